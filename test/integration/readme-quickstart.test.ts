/**
 * The README's "A first completion" runs as written: its `sh` blocks, in order, in bash, against a
 * started API and worker (no language model, as on a fresh `npm start`), with the address and key
 * `npm start` prints replaced by the test API's. A wrapper around `curl` keeps every reply, so each
 * one is checked here, not only what the README's `jq` makes of it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import MarkdownIt from 'markdown-it';
import { startTestApi, type TestApi } from '../support/api';
import { startTestWorker } from '../support/worker';

const run = promisify(execFile);
const README = join(__dirname, '..', '..', 'README.md');
const SECTION = 'A first completion';
// What `npm start` prints (stack/start.sh) and the README's first block assigns.
const START_HOST = 'http://127.0.0.1:9380';
const KEY_PLACEHOLDER = 'combo_XXXXXXXX_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';

/** The fenced `sh` blocks under the README's level-2 heading `title`, up to the next level-2 heading. */
function shellBlocksOf(markdown: string, title: string): string[] {
  const tokens = new MarkdownIt().parse(markdown, {});
  const blocks: string[] = [];
  let inSection = false;
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open' && token.tag === 'h2') inSection = tokens[i + 1]?.content === title;
    else if (inSection && token.type === 'fence' && token.info.trim() === 'sh') blocks.push(token.content);
  });
  return blocks;
}

/** Each `curl` the script runs leaves its status line and headers in <n>.headers and its body in <n>.body. */
const recordingCurl = (dir: string) => `set -euo pipefail
echo 0 > '${dir}/count'
curl() {
  local n
  n=$(( $(cat '${dir}/count') + 1 ))
  echo "$n" > '${dir}/count'
  command curl --dump-header "${dir}/$n.headers" "$@" | tee "${dir}/$n.body"
}
`;

interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

async function repliesIn(dir: string): Promise<Reply[]> {
  const count = (await readdir(dir)).filter((name) => name.endsWith('.body')).length;
  const replies: Reply[] = [];
  for (let n = 1; n <= count; n++) {
    const statusLine = (await readFile(join(dir, `${n}.headers`), 'utf8')).split('\r\n')[0]!;
    const body = await readFile(join(dir, `${n}.body`), 'utf8');
    replies.push({ status: Number(statusLine.split(' ')[1]), json: JSON.parse(body) });
  }
  return replies;
}

describe("the README's first completion", () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let dir: string;

  beforeAll(async () => {
    api = await startTestApi();
    worker = await startTestWorker(api, { dispatcher: false });
    dir = await mkdtemp(join(tmpdir(), 'readme-quickstart-'));
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates an agent and a session and gets an answer, offline, with the requests the README shows', async () => {
    const blocks = shellBlocksOf(await readFile(README, 'utf8'), SECTION);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const [setup, ...requests] = blocks;
    // The first block sets the address and key from npm start's output: the test's stand in for them.
    expect(setup).toContain(`COMBO_URL=${START_HOST}/`);
    expect(setup).toContain(`COMBO_KEY=${KEY_PLACEHOLDER}`);
    const ownSetup = setup!.replaceAll(START_HOST, api.url).replaceAll(KEY_PLACEHOLDER, api.adminKey);

    const scriptPath = join(dir, 'quickstart.sh');
    await writeFile(scriptPath, [recordingCurl(dir), ownSetup, ...requests].join('\n'));
    const { stdout } = await run('bash', [scriptPath], { timeout: 150_000 }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the README's requests failed:\n${error.stderr ?? ''}\n${error.stdout ?? ''}`);
    });

    const [agentReply, sessionReply, completionReply, ...others] = await repliesIn(dir);
    expect(others).toEqual([]);
    expect(agentReply).toMatchObject({ status: 200, json: { code: 0, data: { agent_id: expect.stringMatching(/^agt_/) } } });
    const agentId: string = agentReply!.json.data.agent_id;
    expect(sessionReply).toMatchObject({
      status: 200,
      json: { code: 0, data: { session_id: expect.stringMatching(/^ses_/), agent_id: agentId, status: 'active' } },
    });
    const sessionId: string = sessionReply!.json.data.session_id;
    expect(completionReply).toMatchObject({
      status: 200,
      json: {
        code: 0,
        data: { session_id: sessionId, trace_id: expect.any(String), answer: expect.stringMatching(/no language model/i), offline: true },
      },
    });
    const traceId: string = completionReply!.json.data.trace_id;
    // What the README echoes and prints is what the service answered.
    expect(stdout).toContain(agentId);
    expect(stdout).toContain(sessionId);
    expect(stdout).toContain(traceId);

    const recorded = await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey });
    expect(recorded.json.data).toMatchObject({ trace_id: traceId, session_id: sessionId, status: 'completed' });
  });
});

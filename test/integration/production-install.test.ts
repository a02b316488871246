import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as EsClient } from '@elastic/elasticsearch';
import { MongoClient } from 'mongodb';
import { newKeyText } from '../support/api';
import { testEnvironment } from '../support/config';
import { eventually } from '../support/consumer';
import { chatAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';

const REPO = join(__dirname, '..', '..');
const DOCKERFILE = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
/**
 * Outside the checkout, or Node would find what the production packages lack in the checkout's
 * node_modules; one per checkout, kept between runs (the script reinstalls only for a new lockfile).
 */
const TREE = join(tmpdir(), `combo-prod-install-${createHash('sha256').update(REPO).digest('hex').slice(0, 8)}`);
const BUILD_MINUTES = 15;

/** `bash stack/prod-build.sh <args>`, its output returned, or thrown with it. */
function prodBuild(args: string[], path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(REPO, 'stack', 'prod-build.sh'), ...args], {
      env: { ...process.env, PATH: path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => out.push(chunk));
    child.once('exit', (code) => {
      const text = Buffer.concat(out).toString();
      if (code === 0) resolve(text);
      else reject(new Error(`stack/prod-build.sh ${args.join(' ')} exited with ${code}:\n${text.slice(-4000)}`));
    });
  });
}

/** The final stage's ENV of the Dockerfile, its /app paths moved to the tree built here. */
function imageEnvironment(): Record<string, string> {
  const finalStage = DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM '));
  const instruction = /\nENV ((?:[^\n]*\\\n)*[^\n]*)/.exec(finalStage)?.[1] ?? '';
  const pairs = instruction
    .replace(/\\\n/g, ' ')
    .trim()
    .split(/\s+/)
    .map((pair) => pair.split('=') as [string, string]);
  return Object.fromEntries(pairs.map(([name, value]) => [name, value.replace(/^\/app(?=\/|$)/, TREE)]));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

interface Started {
  child: ChildProcess;
  output: string[];
}

/** Starts `node <script>` from the tree on the image's Node.js and waits for `readyLine` in its log. */
function startFromTree(nodeBin: string, script: string, env: NodeJS.ProcessEnv, readyLine: string): Promise<Started> {
  const child = spawn(join(nodeBin, 'node'), [script], { cwd: TREE, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not log "${readyLine}" within 90 s:\n${output.join('')}`)), 90_000);
    const watch = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes(readyLine)) {
        clearTimeout(timer);
        resolve({ child, output });
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}):\n${output.join('')}`));
    });
  });
}

function stop(started: Started | undefined): Promise<number | null> {
  if (!started || started.child.exitCode !== null || started.child.signalCode !== null)
    return Promise.resolve(started?.child.exitCode ?? null);
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  started.child.kill('SIGTERM');
  return exited;
}

/**
 * What the Docker image runs, without a Docker engine: stack/prod-build.sh (the script the
 * Dockerfile builds /app with) installs the production packages alone into a clean folder, compiles
 * the service and its workflow bundle there and fetches the embedding model; the API and the worker
 * then run from that folder on the image's Node.js major against the local stack.
 */
describe('the production install (the Docker image tree)', () => {
  const model = new ScriptedUpstream();
  const adminKey = newKeyText();
  let database: string;
  let indexPrefix: string;
  let nodeBin: string;
  let api: Started | undefined;
  let worker: Started | undefined;
  let base: string;

  beforeAll(async () => {
    nodeBin = (await prodBuild(['node'], process.env.PATH ?? '')).trim().split('\n').at(-1)!;
    const path = `${nodeBin}:${process.env.PATH ?? ''}`;
    await prodBuild(['app', TREE], path);
    await prodBuild(['model', join(TREE, 'models', 'all-minilm-l6-v2')], path);

    const modelUrl = await model.start();
    model.reply = () => ({ body: chatAnswer('The production tree answers.') });
    const port = await freePort();
    base = `http://127.0.0.1:${port}/v1`;
    // Only what a container would have: the image's ENV and the deployment's variables.
    const env: NodeJS.ProcessEnv = {
      PATH: '/usr/bin:/bin',
      ...imageEnvironment(),
      ...testEnvironment({
        API_PORT: String(port),
        BOOTSTRAP_API_KEY: adminKey,
        LLM_BASE_URL: modelUrl,
        LLM_MODEL: 'scripted-model',
        LOG_LEVEL: 'info',
      }),
    };
    database = env.MONGODB_DB!;
    indexPrefix = env.ELASTICSEARCH_INDEX_PREFIX!;
    worker = await startFromTree(nodeBin, 'dist/workers/main.js', env, 'worker running');
    api = await startFromTree(nodeBin, 'dist/api/main.js', env, 'API listening');
  }, BUILD_MINUTES * 60_000);

  afterAll(async () => {
    await Promise.all([stop(api), stop(worker)]);
    await model.stop();
    if (database === undefined) return;
    const mongo = await MongoClient.connect(process.env.MONGODB_URI!);
    await mongo.db(database).dropDatabase();
    await mongo.close();
    const es = new EsClient({ node: process.env.ELASTICSEARCH_URL! });
    const indices = await es.indices.get({ index: `${indexPrefix}-*`, allow_no_indices: true });
    if (Object.keys(indices).length > 0) await es.indices.delete({ index: Object.keys(indices) });
    await es.close();
  });

  async function call(method: string, path: string, body?: unknown) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, json: (await res.json()) as any };
  }

  it("holds the production packages alone, from the committed lockfile unchanged, and runs on the image's Node.js major", () => {
    const major = /^ARG NODE_MAJOR=(\d+)$/m.exec(DOCKERFILE)?.[1];
    expect(major).toBeDefined();
    const version = spawnSync(join(nodeBin, 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    expect(version.split('.')[0]).toBe(major);
    expect(readFileSync(join(TREE, 'package-lock.json'), 'utf8')).toBe(readFileSync(join(REPO, 'package-lock.json'), 'utf8'));
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const name of Object.keys(pkg.dependencies)) expect(existsSync(join(TREE, 'node_modules', name, 'package.json'))).toBe(true);
    for (const name of ['jest', 'typescript', 'ts-jest']) expect(existsSync(join(TREE, 'node_modules', name))).toBe(false);
  });

  it('answers a completion through the configured model', async () => {
    const agent = await call('POST', '/combo/agents', { name: 'Production check', instructions: 'Answer briefly.' });
    expect(agent.json.code).toBe(0);
    const agentId = agent.json.data.agent_id as string;
    const session = await call('POST', `/combo/agents/${agentId}/sessions`, {});
    const reply = await call('POST', `/combo/agents/${agentId}/completions`, {
      session_id: session.json.data.session_id,
      question: 'Does the image start?',
    });
    expect(reply.status).toBe(200);
    expect(reply.json.data).toMatchObject({ answer: 'The production tree answers.', offline: false });
    expect(model.requests.some((r) => r.path.endsWith('/chat/completions'))).toBe(true);
  });

  it('takes an upload to ready with the bundled embedding model and finds it', async () => {
    const kb = await call('POST', '/kb', { name: 'Production check' });
    expect(kb.json.code).toBe(0);
    const form = new FormData();
    form.append('kb_id', kb.json.data.kb_id);
    form.append(
      'file',
      new Blob([readFileSync(join(REPO, 'test', 'fixtures', 'documents', 'guide.md'))], { type: 'text/markdown' }),
      'guide.md',
    );
    const up = await fetch(`${base}/document`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}` }, body: form });
    const docId = ((await up.json()) as { data: { doc_id: string } }).data.doc_id;
    const settled = await eventually(async () => {
      const doc = (await call('GET', `/document/${docId}`)).json.data as { status: string };
      return doc.status === 'ready' || doc.status === 'failed' ? doc : undefined;
    }, 120_000);
    expect(settled).toMatchObject({ status: 'ready' });
    const search = await call('POST', '/chunk/search', { question: 'rolling back a deployment', kb_ids: [kb.json.data.kb_id], top_k: 3 });
    expect(search.json.data.chunks[0]).toMatchObject({ doc_id: docId, doc_name: 'guide.md' });
  }, 180_000);

  it('serves the operator console it built at /console, with its assets and Content-Security-Policy', async () => {
    const origin = new URL(base).origin;
    const index = await fetch(`${origin}/console/settings/api-keys`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await index.text();
    const script = /<script type="module" crossorigin src="(\/console\/assets\/[^"]+\.js)"><\/script>/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${origin}${script!}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('stops cleanly on SIGTERM, as docker stop sends it', async () => {
    expect(await stop(api)).toBe(0);
    expect(await stop(worker)).toBe(0);
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestApi, type TestApi } from '../support/api';
import { chatError, streamedAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const ROOT = resolve(__dirname, '../..');
// stack/test.sh installs schemathesis there (stack/install.sh schemathesis).
const VENV = process.env.SCHEMATHESIS_VENV ?? join(ROOT, '.stack/schemathesis');

interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> }>>;
}
interface HarEntry {
  request: { method: string; url: string };
  response: { status: number; content: { mimeType?: string; text?: string } };
}

/** The operations of the document that may answer text/event-stream. */
const streamOperations = (doc: OpenApiDocument) =>
  Object.values(doc.paths)
    .flatMap((methods) => Object.values(methods))
    .filter((op) => Object.values(op.responses).some((response) => response.content?.['text/event-stream']))
    .map((op) => op.operationId)
    .sort();

/** A TOML value: strings as JSON strings (a TOML basic string for these ASCII values), booleans and arrays as they are, objects as inline tables. */
const toml = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(toml).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)} = ${toml(item)}`)
      .join(', ')} }`;
  return JSON.stringify(value);
};

/**
 * schemathesis, an outside validator that reads what is on the wire, checks the responses of every
 * stream operation of a running API against the served OpenAPI document: each SSE event (its
 * `data` a string, parsed and held to `contentSchema`), content types and JSON replies.
 */
describe('event streams as schemathesis reads them', () => {
  let api: TestApi;
  let worker: Worker;
  const model = new ScriptedUpstream();
  let dir: string;
  let agentId: string;
  let sessionId: string;
  let traceId: string;

  beforeAll(async () => {
    const modelUrl = await model.start();
    // Most runs answer; every third model call is refused, so streams also end on `error`.
    let calls = 0;
    model.reply = () =>
      ++calls % 3 === 0
        ? { status: 400, body: chatError('refused by the scripted model', 'invalid_request_error') }
        : { stream: streamedAnswer('Streams carry JSON text.', { pieces: 3 }) };
    api = await startTestApi({ LLM_BASE_URL: modelUrl, RATE_LIMIT_COMPLETIONS_PER_MIN: '10000', RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
    worker = await startTestWorker(api, { dispatcher: false });
    dir = await mkdtemp(join(tmpdir(), 'stream-conformance-'));
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Conformance' } })).json.data.agent_id;
    sessionId = (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id;
    // A finished run for GET …/events to follow.
    const first = await readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'What do streams carry?', stream: true }),
    });
    expect(first.events.at(-1)?.event).toBe('done');
    traceId = first.events[0]!.id!.split(':')[0]!;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('finds every event of every stream operation as the document describes it', async () => {
    const doc = (await api.call('GET', '/v1/openapi.json')).json as OpenApiDocument;
    // What each stream operation needs to stream rather than refuse (ids of this tenant, no other route
    // or files); the rest of each request is generated. A new stream operation needs its entry here.
    const fixed: Record<string, Record<string, unknown>> = {
      createCompletion: {
        'path.agent_id': agentId,
        'body.session_id': sessionId,
        'body.stream': true,
        'body.background': false,
        'body.route': '@chat@llm@default@',
        'body.attachments': [],
        'body.context_ids': [],
      },
      resumeCompletionStream: { 'path.trace_id': traceId, 'query.last_event_id': `${traceId}:0` },
      createOpenAIChatCompletion: {
        'body.model': agentId,
        'body.messages': [{ role: 'user', content: 'What do streams carry?' }],
        'body.stream': true,
        'body.tools': [],
        'body.functions': [],
        'body.response_format': { type: 'text' },
        'body.n': 1,
      },
    };
    expect(streamOperations(doc)).toEqual(Object.keys(fixed).sort());

    const config = join(dir, 'schemathesis.toml');
    await writeFile(
      config,
      Object.entries(fixed)
        .map(
          ([operationId, parameters]) =>
            `[[operations]]\ninclude-operation-id = ${toml(operationId)}\n` +
            `parameters = { ${Object.entries(parameters)
              .map(([name, value]) => `${toml(name)} = ${toml(value)}`)
              .join(', ')} }\n`,
        )
        .join('\n'),
    );
    const har = join(dir, 'run.har');
    const args = [
      '--config-file',
      config,
      'run',
      `${api.url}/v1/openapi.json`,
      ...Object.keys(fixed).flatMap((operationId) => ['--include-operation-id', operationId]),
      '--checks',
      'content_type_conformance,response_schema_conformance',
      '--mode',
      'positive',
      '--phases',
      'fuzzing',
      '--max-examples',
      '6',
      '--seed',
      '1',
      '--workers',
      '1',
      '--header',
      `Authorization: Bearer ${api.adminKey}`,
      '--request-timeout',
      '30',
      '--report',
      'har',
      '--report-har-path',
      har,
      '--no-color',
    ];
    // Its exit status, or the spawn error's code (ENOENT: not installed).
    const result = await new Promise<{ code: number | string; output: string }>((done) =>
      execFile(join(VENV, 'bin/schemathesis'), args, { cwd: dir, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
        done({ code: err ? (err.code ?? 1) : 0, output: stdout + stderr }),
      ),
    );
    if (result.code === 'ENOENT') throw new Error(`no schemathesis in ${VENV}: bash stack/install.sh schemathesis installs it`);
    if (result.code !== 0) throw new Error(`schemathesis failed (exit ${result.code}):\n${result.output}`);

    // It did read streams of each operation, not only refusals.
    const entries = (JSON.parse(await readFile(har, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
    const streamed = (method: string, path: string) =>
      entries.filter(
        (e) =>
          e.request.method === method &&
          new URL(e.request.url).pathname === path &&
          e.response.status === 200 &&
          e.response.content.mimeType?.startsWith('text/event-stream'),
      );
    const created = streamed('POST', `/v1/combo/agents/${agentId}/completions`);
    const openAiStreams = streamed('POST', '/v1/openai/chat/completions');
    expect(openAiStreams.some((e) => (e.response.content.text ?? '').includes('data: [DONE]'))).toBe(true);
    const followed = streamed('GET', `/v1/combo/completions/${traceId}/events`);
    expect(created.length).toBeGreaterThan(0);
    expect(followed.length).toBeGreaterThan(0);
    // Among them, streams that answered and streams that failed.
    const texts = created.map((e) => e.response.content.text ?? '');
    expect(texts.some((t) => t.includes('event: message'))).toBe(true);
    expect(texts.some((t) => t.includes('event: error'))).toBe(true);
  }, 180_000);
});

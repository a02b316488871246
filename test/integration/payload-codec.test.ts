import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { AesGcmPayloadCodec } from '../../common/payload-codec';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, chatToolCall, type WireChatRequest } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const newKey = (id: string) => ({ id, key: randomBytes(32) });
const K1 = newKey('k1');
const K2 = newKey('k2');
const keysSetting = (...keys: Array<{ id: string; key: Buffer }>) => keys.map(({ id, key }) => `${id}:${key.toString('base64')}`).join(',');
const UI_ORIGIN = 'http://temporal-ui.example:8233';
// stack/test.sh names the stack's binaries (STACK_BIN_DIR); else the checkout's own .stack.
const TEMPORAL_CLI = join(process.env.STACK_BIN_DIR ?? resolve(__dirname, '../../.stack/bin'), 'temporal');

const lastUser = (body: WireChatRequest) => [...body.messages].reverse().find((m) => m.role === 'user')!.content ?? '';

/** A workflow's whole history as Temporal stores it (protobuf bytes), read without any codec. */
async function storedHistory(client: Client, workflowId: string): Promise<Buffer> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return Buffer.from(temporal.api.history.v1.History.encode(history).finish());
}

/** The started event's input payloads, as Temporal's remote codec protocol carries them. */
async function startedInput(client: Client, workflowId: string) {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const payloads = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
  return payloads.map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  }));
}

/**
 * Prompts and answers encrypted in Temporal (TEMPORAL_PAYLOAD_KEYS): a completion's history read
 * straight from Temporal holds no plaintext of the question or the answer; the codec endpoint
 * decodes it for an admin (from the Temporal UI's origin only) and refuses everyone else; after a
 * key rotation old runs stay readable; and a run started before the keys were set goes on under them.
 */
describe('Temporal payload codec', () => {
  const model = new ScriptedUpstream();
  let plain: Client;
  let api: TestApi;
  let worker: Worker;

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = (request) => {
      const body = request.body as WireChatRequest;
      const question = lastUser(body);
      // `[approve]`: the model calls current_time (which needs a person's approval) before it answers.
      if (question.includes('[approve]') && !body.messages.some((m) => m.role === 'tool'))
        return { body: chatToolCall([{ name: 'current_time', args: {} }]) };
      return { body: chatAnswer(`ANSWER-TEXT to ${question}`) };
    };
    api = await startTestApi({ LLM_BASE_URL: modelUrl, TEMPORAL_PAYLOAD_KEYS: keysSetting(K1), TEMPORAL_UI_URL: `${UI_ORIGIN}/` });
    worker = await startTestWorker(api, { dispatcher: false });
    plain = new Client({
      connection: await Connection.connect({ address: api.config.TEMPORAL_ADDRESS }),
      namespace: api.config.TEMPORAL_NAMESPACE,
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  const ask = async (target: TestApi, question: string, extra: Record<string, unknown> = {}, agentBody: Record<string, unknown> = {}) => {
    const agent = await target.call('POST', '/v1/combo/agents', { key: target.adminKey, body: { name: 'Codec', ...agentBody } });
    expect(agent.json).toMatchObject({ code: 0 });
    const agentId = agent.json.data.agent_id as string;
    const sessionId = (await target.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: target.adminKey, body: {} })).json.data
      .session_id;
    return target.call('POST', `/v1/combo/agents/${agentId}/completions`, {
      key: target.adminKey,
      body: { session_id: sessionId, question, ...extra },
    });
  };
  /** `key` null: no credentials. */
  const decode = (target: TestApi, payloads: unknown, headers: Record<string, string> = {}, key: string | null = target.adminKey) =>
    target.call('POST', '/v1/codec/decode', { key: key ?? undefined, body: { payloads }, headers });

  let firstTrace: string;

  it("keeps the question and the answer out of Temporal's storage; the codec endpoint decodes them for an admin", async () => {
    const reply = await ask(api, 'SECRET-QUESTION-7f3a');
    expect(reply.json.data.answer).toBe('ANSWER-TEXT to SECRET-QUESTION-7f3a');
    firstTrace = reply.json.data.trace_id;
    const stored = await storedHistory(plain, `completion-${firstTrace}`);
    expect(stored.includes('SECRET-QUESTION-7f3a')).toBe(false);
    expect(stored.includes('ANSWER-TEXT')).toBe(false);
    expect(stored.includes('binary/encrypted')).toBe(true);

    const payloads = await startedInput(plain, `completion-${firstTrace}`);
    const decoded = await decode(api, payloads, { 'X-Namespace': api.config.TEMPORAL_NAMESPACE });
    expect(decoded.status).toBe(200);
    const [input] = decoded.json.payloads as Array<{ metadata: Record<string, string>; data: string }>;
    expect(Buffer.from(input!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(Buffer.from(input!.data, 'base64').toString()).toContain('SECRET-QUESTION-7f3a');

    // Temporal's own CLI, pointed at the endpoint with an admin key, shows the history decoded.
    const cli = (auth: string[]) =>
      promisify(execFile)(
        TEMPORAL_CLI,
        [
          'workflow',
          'show',
          '-w',
          `completion-${firstTrace}`,
          '--address',
          api.config.TEMPORAL_ADDRESS,
          '--namespace',
          api.config.TEMPORAL_NAMESPACE,
          '--output',
          'json',
          '--codec-endpoint',
          `${api.url}/v1/codec`,
          ...auth,
        ],
        { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      );
    const startedShown = (stdout: string) => {
      const shownInput = (
        JSON.parse(stdout) as {
          events: Array<Record<string, { input?: { payloads: Array<{ metadata: Record<string, string>; data: string }> } }>>;
        }
      ).events[0]!['workflowExecutionStartedEventAttributes']!.input!.payloads[0]!;
      return {
        encoding: Buffer.from(shownInput.metadata.encoding!, 'base64').toString(),
        data: Buffer.from(shownInput.data, 'base64').toString(),
      };
    };
    const shown = startedShown((await cli(['--codec-auth', `Bearer ${api.adminKey}`])).stdout);
    expect(shown.encoding).toBe('json/plain');
    expect(shown.data).toContain('SECRET-QUESTION-7f3a');
    // Without credentials the endpoint refuses: the CLI fails, or shows the payload still encrypted.
    const refused = await cli([]).then(
      ({ stdout }) => startedShown(stdout).encoding,
      () => 'failed',
    );
    expect(['failed', 'binary/encrypted']).toContain(refused);
  });

  it('refuses the codec endpoint to members, to callers without credentials and for another namespace; browsers only from the UI', async () => {
    const payloads = await startedInput(plain, `completion-${firstTrace}`);
    const member = (await api.call('POST', '/v1/api-keys', { key: api.adminKey, body: { name: 'member', role: 'member' } })).json.data
      .api_key as string;
    expect((await decode(api, payloads, {}, member)).status).toBe(403);
    expect((await decode(api, payloads, {}, null)).status).toBe(401);
    const otherNamespace = await decode(api, payloads, { 'X-Namespace': 'someone-else' });
    expect(otherNamespace.status).toBe(400);
    expect(JSON.stringify(otherNamespace.json)).not.toContain('SECRET-QUESTION');

    const preflight = (origin: string) =>
      fetch(`${api.url}/v1/codec/decode`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,x-namespace,content-type',
        },
      });
    const fromUi = await preflight(UI_ORIGIN);
    expect(fromUi.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(fromUi.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-namespace');
    expect((await preflight('http://elsewhere.example')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('reads runs encrypted with the old key after a rotation, and encrypts new payloads with the new key', async () => {
    const rotated = await startTestApi({
      MONGODB_DB: api.config.MONGODB_DB,
      ELASTICSEARCH_INDEX_PREFIX: api.config.ELASTICSEARCH_INDEX_PREFIX,
      TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE,
      TEMPORAL_PAYLOAD_KEYS: keysSetting(K2, K1),
    });
    try {
      const payloads = await startedInput(plain, `completion-${firstTrace}`);
      const decoded = await decode(rotated, payloads);
      expect(Buffer.from(decoded.json.payloads[0].data, 'base64').toString()).toContain('SECRET-QUESTION-7f3a');
      const encoded = await rotated.call('POST', '/v1/codec/encode', { key: rotated.adminKey, body: { payloads: decoded.json.payloads } });
      expect(Buffer.from(encoded.json.payloads[0].metadata['encryption-key-id'], 'base64').toString()).toBe('k2');
      // A client with the rotated keys reads the old run's result.
      const rotatedClient = new Client({
        connection: await Connection.connect({ address: api.config.TEMPORAL_ADDRESS }),
        namespace: api.config.TEMPORAL_NAMESPACE,
        dataConverter: { payloadCodecs: [new AesGcmPayloadCodec([K2, K1])] },
      });
      const outcome = (await rotatedClient.workflow.getHandle(`completion-${firstTrace}`).result()) as { answer: string };
      expect(outcome.answer).toBe('ANSWER-TEXT to SECRET-QUESTION-7f3a');
    } finally {
      await rotated.close({ keepDatabase: true });
    }
  });

  it('lets a run started before the keys were set go on under them', async () => {
    const before = await startTestApi({ LLM_BASE_URL: api.config.LLM_BASE_URL! });
    const beforeWorker = await startTestWorker(before, { dispatcher: false });
    let after: TestApi | undefined;
    let afterWorker: Worker | undefined;
    try {
      const started = await ask(
        before,
        'OLD-RUN-QUESTION [approve]',
        { background: true },
        { tools: ['current_time'], approval: { tools: ['current_time'], timeout_s: 120 } },
      );
      expect(started.json).toMatchObject({ code: 0 });
      const traceId = started.json.data.trace_id as string;
      const waiting = await eventually(async () => {
        const run = (await before.call('GET', `/v1/combo/completions/${traceId}`, { key: before.adminKey })).json.data;
        return run.status === 'waiting_approval' ? run : undefined;
      });
      // Stored in the clear: the run began before the codec.
      expect((await storedHistory(plain, `completion-${traceId}`)).includes('OLD-RUN-QUESTION')).toBe(true);
      await beforeWorker.stop();

      after = await startTestApi({
        MONGODB_DB: before.config.MONGODB_DB,
        ELASTICSEARCH_INDEX_PREFIX: before.config.ELASTICSEARCH_INDEX_PREFIX,
        TEMPORAL_TASK_QUEUE: before.config.TEMPORAL_TASK_QUEUE,
        LLM_BASE_URL: api.config.LLM_BASE_URL!,
        TEMPORAL_PAYLOAD_KEYS: keysSetting(K1),
      });
      afterWorker = await startTestWorker(after, { dispatcher: false });
      const decided = await after.call('POST', `/v1/combo/completions/${traceId}/approvals/${waiting.approvals[0].approval_id}`, {
        key: after.adminKey,
        body: { decision: 'approve' },
      });
      expect(decided.status).toBe(200);
      const ended = await eventually(async () => {
        const run = (await after!.call('GET', `/v1/combo/completions/${traceId}`, { key: after!.adminKey })).json.data;
        return run.status === 'completed' ? run : undefined;
      }, 60_000);
      expect(ended.answer).toBe('ANSWER-TEXT to OLD-RUN-QUESTION [approve]');
      // What came after the keys is encrypted: the answer is nowhere in the clear.
      const stored = await storedHistory(plain, `completion-${traceId}`);
      expect(stored.includes('ANSWER-TEXT')).toBe(false);
      expect(stored.includes('binary/encrypted')).toBe(true);
    } finally {
      await afterWorker?.stop();
      await beforeWorker.stop().catch(() => undefined);
      await after?.close({ keepDatabase: true });
      await before.close();
    }
  }, 120_000);
});

import { startTestApi, type TestApi } from '../support/api';
import { chatAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

/** No request waits on a workflow without a bound, and no run outlives its own. */
describe('bounded waits', () => {
  let api: TestApi;
  let worker: Worker | undefined;
  const model = new ScriptedUpstream();
  let agentId: string;

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = () => ({ body: chatAnswer('late but here'), delayMs: 4_000 });
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_TIMEOUT_MS: '20000',
      LLM_MAX_ATTEMPTS: '1',
      COMPLETION_REPLY_WAIT_MS: '500',
      COMPLETION_RUN_TIMEOUT_MS: '2000',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
    });
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Waiter' } })).json.data.agent_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  const newSession = async () =>
    (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id as string;

  it('answers a JSON completion no worker takes with 202 and the run to follow, which runs once a worker comes', async () => {
    const sessionId = await newSession();
    const res = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
      key: api.adminKey,
      body: { session_id: sessionId, question: 'anyone?' },
    });
    expect(res.status).toBe(202);
    const traceId = res.json.data.trace_id;
    expect(res.json).toEqual({
      code: 0,
      message: 'ok',
      data: {
        trace_id: traceId,
        session_id: sessionId,
        status: 'running',
        links: { self: `/v1/combo/completions/${traceId}`, events: `/v1/combo/completions/${traceId}/events` },
      },
    });
    expect((await api.call('GET', res.json.data.links.self, { key: api.adminKey })).json.data).toMatchObject({
      status: 'running',
      answer: null,
    });
  });

  it('ends a run at its own time bound, recording the failure on its stream', async () => {
    worker = await startTestWorker(api, { dispatcher: false });
    const sessionId = await newSession();
    const stream = await readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'take your time', stream: true }),
    });
    expect(stream.events.slice(-2).map((e) => e.event)).toEqual(['error', 'done']);
    expect(stream.events.at(-2)!.data).toMatchObject({ code: 20001, message: expect.stringContaining('time bound') });
    const traceId = stream.events[0]!.data.trace_id;
    expect((await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey })).json.data).toMatchObject({
      status: 'failed',
      error: { code: 20001 },
    });
  });
});

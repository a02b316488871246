import { randomToken } from '../../common/ids';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { streamedAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse, type SseEvent } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

/**
 * A streamed completion that nothing left can refuse with an HTTP error (a strategy other than
 * `reject`, no agent task going in its session, no Idempotency-Key) opens its stream on `accepted`
 * once its request is checked, and hands its run to the session's workflow behind it.
 */
describe('stream opening', () => {
  const model = new ScriptedUpstream();
  let modelUrl: string;

  beforeAll(async () => {
    modelUrl = await model.start();
    model.reply = () => ({ stream: streamedAnswer('Answered after all.', { pieces: 3 }) });
  });
  afterAll(() => model.stop());

  const setUp = async (api: TestApi) => {
    const call = async (path: string, body: unknown) => (await api.call('POST', path, { key: api.adminKey, body })).json.data;
    const agentId = (await call('/v1/combo/agents', { name: 'Opener' })).agent_id as string;
    const newSession = async () => (await call(`/v1/combo/agents/${agentId}/sessions`, {})).session_id as string;
    const stream = (body: Record<string, unknown>, options: { stopAfter?: number; headers?: Record<string, string> } = {}) =>
      readSse(
        `${api.url}/v1/combo/agents/${agentId}/completions`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json', ...options.headers },
          body: JSON.stringify({ ...body, stream: true }),
        },
        options,
      );
    const getRun = async (traceId: string) => (await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey })).json.data;
    const storedEvents = async (traceId: string) =>
      (await readSse(`${api.url}/v1/combo/completions/${traceId}/events`, { headers: { authorization: `Bearer ${api.adminKey}` } })).events;
    return { newSession, stream, getRun, storedEvents };
  };

  const expectContiguous = (events: SseEvent[], traceId: string) =>
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => `${traceId}:${i}`));

  describe('before its run is handed over', () => {
    let api: TestApi;
    let worker: Worker | undefined;

    beforeAll(async () => {
      api = await startTestApi({
        LLM_BASE_URL: modelUrl,
        // Far longer than the test: a stream that waited for its run's admission would not open in it.
        COMPLETION_REPLY_WAIT_MS: '900000',
        RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      });
    });
    afterAll(async () => {
      await worker?.stop();
      await api?.close();
    });

    it('sends accepted while no worker has taken the run; the run goes on after its client left, and its stream goes on for another', async () => {
      const { newSession, stream, getRun, storedEvents } = await setUp(api);
      // No worker polls the API's task queues: the session's workflow cannot answer the hand-over.
      const left = await stream(
        { session_id: await newSession(), question: 'are you there?', multitask_strategy: 'enqueue' },
        { stopAfter: 1 },
      );
      expect(left.status).toBe(200);
      const accepted = left.events[0]!;
      const traceId = accepted.data.trace_id as string;
      expect(accepted).toEqual({
        id: `${traceId}:0`,
        event: 'thinking',
        data: { phase: 'accepted', trace_id: traceId, route: '@chat@llm@default@', offline: false, timestamp: expect.any(String) },
      });
      // Recorded behind the stream; its session is idle, so its workflow is started (no worker needed
      // for that) and waits for one.
      const recorded = await eventually(async () => {
        const now = await getRun(traceId);
        return now.status === 'running' && now.run_id ? now : undefined;
      });
      expect(recorded).toMatchObject({ answer: null, run_id: expect.any(String) });

      // A client that stays: its stream goes on from the store once the run is handed over.
      const stayingSession = await newSession();
      const staying = stream({ session_id: stayingSession, question: 'still there?', multitask_strategy: 'interrupt' });

      worker = await startTestWorker(api, { dispatcher: false });
      const run = await eventually(async () => {
        const now = await getRun(traceId);
        return now.status === 'completed' ? now : undefined;
      }, 60_000);
      expect(run).toMatchObject({ answer: 'Answered after all.', stop_reason: 'answered' });
      // The stored stream starts with the very event the client got, timestamp included.
      const stored = await storedEvents(traceId);
      expect(stored[0]).toEqual(accepted);
      expectContiguous(stored, traceId);
      expect(stored.at(-1)).toMatchObject({ event: 'done', data: { stop_reason: 'answered' } });

      const followed = (await staying).events;
      const stayingTrace = followed[0]!.data.trace_id as string;
      expectContiguous(followed, stayingTrace);
      expect(followed[0]).toMatchObject({ event: 'thinking', data: { phase: 'accepted' } });
      expect(followed.at(-2)).toMatchObject({ event: 'message', data: { answer: 'Answered after all.' } });
      expect(followed.at(-1)).toMatchObject({ event: 'done', data: { session_id: stayingSession, stop_reason: 'answered' } });
      expect(await storedEvents(stayingTrace)).toEqual(followed);
    });
  });

  describe('when Temporal refuses the hand-over', () => {
    let api: TestApi;

    beforeAll(async () => {
      // A namespace the server does not have: every Temporal call of the API is refused.
      api = await startTestApi({ LLM_BASE_URL: modelUrl, TEMPORAL_NAMESPACE: `missing-${randomToken(8).toLowerCase()}` });
    });
    afterAll(() => api?.close());

    it('ends the opened stream with error and done and records the run failed; a keyed request gets an HTTP error before any stream', async () => {
      const { newSession, stream, getRun, storedEvents } = await setUp(api);
      const sessionId = await newSession();
      const opened = async (body: Record<string, unknown>) => {
        const reply = await stream({ session_id: sessionId, ...body });
        expect(reply.status).toBe(200);
        const traceId = reply.events[0]!.data.trace_id as string;
        expect(reply.events.map((e) => [e.id, e.event])).toEqual([
          [`${traceId}:0`, 'thinking'],
          [`${traceId}:1`, 'error'],
          [`${traceId}:2`, 'done'],
        ]);
        expect(reply.events[1]!.data).toMatchObject({ code: 20001, message: expect.any(String) });
        expect(reply.events[2]!.data).toMatchObject({ session_id: sessionId, trace_id: traceId, stop_reason: 'failed' });
        // Nothing looks alive: the run failed, and its stored stream is the one the client got.
        expect(await getRun(traceId)).toMatchObject({ status: 'failed', error: { code: 20001 }, finished_at: expect.any(String) });
        expect(await storedEvents(traceId)).toEqual(reply.events);
        return traceId;
      };
      const enqueued = await opened({ question: 'anyone?', multitask_strategy: 'enqueue' });
      // Under reject too, once the request holds its idle session's turn: nothing can refuse it then.
      const rejectable = await opened({ question: 'anyone there?' });
      // The failed starts gave the session's turn back.
      expect(await api.services.mongo.db.collection<{ _id: string }>('session_turns').findOne({ _id: sessionId })).toBeNull();

      const refused = await stream({ session_id: sessionId, question: 'anyone now?' }, { headers: { 'idempotency-key': randomToken(12) } });
      expect(refused.status).toBe(500);
      expect(refused.events[0]!.data).toMatchObject({ code: 20001 });
      const runs = (await api.call('GET', `/v1/combo/sessions/${sessionId}/completions`, { key: api.adminKey })).json.data;
      expect(runs.items.map((r: { trace_id: string }) => r.trace_id).sort()).toEqual([enqueued, rejectable].sort());
    });
  });
});

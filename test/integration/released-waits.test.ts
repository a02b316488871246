import type { ChildProcess } from 'node:child_process';
import { type ClientRequest, request } from 'node:http';
import { Connection, type ConnectionOptions, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, type WireChatRequest } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { killProcess, spawnWorkerProcess } from '../support/worker-process';

type Interceptor = NonNullable<ConnectionOptions['interceptors']>[number];

/** Streams opened on running runs and closed by their clients. */
const STREAMS = 200;
/** Runs the streams follow. */
const FOLLOWED_RUNS = 4;
/** JSON completions whose clients leave before the reply. */
const JSON_CALLS = 20;
/**
 * How far a count of the API process may stay above its baseline once the clients have left: a
 * few timers come and go with what the process does meanwhile (the rate limiter's and database
 * driver's own timers, an HTTP keep-alive of the test's client). A leak is one per closed request
 * (STREAMS + JSON_CALLS Temporal calls, JSON_CALLS timers), far above it.
 */
const TOLERANCE = 3;

/**
 * A wait on a run belongs to its caller: when the client of a stream or of a JSON completion goes
 * away, the API process ends its Temporal calls (long-poll `result()`) and its timers at once, while
 * the runs themselves go on. Measured on the running API process: its active resources by type and
 * its Temporal gRPC calls in flight, counted by an interceptor on its own Temporal connection. The
 * worker is a process of its own, so what is counted here is the API's.
 */
describe('released waits', () => {
  let api: TestApi;
  let worker: ChildProcess;
  const model = new ScriptedUpstream();
  let agentId: string;
  let temporalCallsInFlight = 0;

  /** Counts each gRPC call of the API's Temporal connection from its start to its status (a cancelled call's too). */
  const countingInterceptor: Interceptor = (options, nextCall) => {
    const call = nextCall(options);
    const start = call.start.bind(call);
    call.start = (metadata, listener) => {
      temporalCallsInFlight++;
      start(metadata, {
        ...listener,
        onReceiveStatus: (status) => {
          temporalCallsInFlight--;
          listener?.onReceiveStatus?.(status);
        },
      });
    };
    // The next interceptor's call (the retry interceptor's, an InterceptingCall), its start wrapped.
    return call as ReturnType<Interceptor>;
  };

  beforeAll(async () => {
    // The model holds every question for ten minutes: the runs are going on while the test measures.
    model.reply = () => ({ body: chatAnswer('too late'), delayMs: 600_000 });
    const modelUrl = await model.start();
    const connect = Connection.connect.bind(Connection);
    const spy = jest
      .spyOn(Connection, 'connect')
      .mockImplementation((options) =>
        connect({ ...options, interceptors: [countingInterceptor, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())] }),
      );
    try {
      api = await startTestApi({
        LLM_BASE_URL: modelUrl,
        LLM_TIMEOUT_MS: '600000',
        // A model call whose heartbeats a loaded machine delays past their timeout is tried again: the run goes on.
        LLM_MAX_ATTEMPTS: '10',
        COMPLETION_RUN_TIMEOUT_MS: '900000',
        // Far longer than the test: a JSON call's wait that outlived its client would still be there.
        COMPLETION_REPLY_WAIT_MS: '900000',
        RATE_LIMIT_COMPLETIONS_PER_MIN: '100000',
        RATE_LIMIT_DEFAULT_PER_MIN: '100000',
      });
    } finally {
      spy.mockRestore();
    }
    // With the suite's workflow bundle: the worker process starts in seconds, however loaded the machine is.
    worker = await spawnWorkerProcess(api.config);
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Patient' } })).json.data.agent_id;
  }, 300_000);

  afterAll(async () => {
    if (worker) await killProcess(worker);
    // The runs (and their sessions' workflows) would wait for the model until their time bound: ended here.
    if (api) {
      const open = api.services.temporal.workflow.list({
        query: `TaskQueue = '${api.config.TEMPORAL_TASK_QUEUE}' AND ExecutionStatus = 'Running'`,
      });
      const ends: Promise<unknown>[] = [];
      for await (const run of open)
        ends.push(
          api.services.temporal.workflow
            .getHandle(run.workflowId)
            .terminate('test over')
            .catch(() => undefined),
        );
      await Promise.all(ends);
    }
    await api?.close();
    await model.stop();
  }, 120_000);

  const headers = () => ({ authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' });
  const newSession = async () =>
    (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id as string;
  const questionsAsked = () => new Set(model.requests.map((r) => (r.body as WireChatRequest | undefined)?.messages.at(-1)?.content ?? ''));
  const untilAsked = (questions: string[]) =>
    eventually(async () => (questions.every((q) => questionsAsked().has(q)) ? true : undefined), 120_000);

  /** The API process's active resources by type, sockets left out (see below). */
  const resources = () => {
    const counts: Record<string, number> = {};
    // Sockets are not waits: the server's side of a closed request closes with it whatever the
    // code does, and the database driver's pool keeps the connections a load opened.
    for (const type of process.getActiveResourcesInfo()) if (type !== 'TCPSocketWrap') counts[type] = (counts[type] ?? 0) + 1;
    return counts;
  };
  const above = (now: Record<string, number>, base: Record<string, number>) =>
    Object.fromEntries(Object.entries(now).map(([type, n]) => [type, n - (base[type] ?? 0)]));

  /**
   * A client's request on a connection of its own (no keep-alive reuse: 200 at once would meet
   * connections the server has just closed): `firstBytes` settles with the reply's first bytes, and
   * `leave()` cuts the connection as a client going away does.
   */
  const openRequest = (method: string, path: string, body?: unknown) => {
    let req!: ClientRequest;
    const firstBytes = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req = request(`${api.url}${path}`, { method, agent: false, headers: headers() }, (res) =>
        res.once('data', (chunk: Buffer) => resolve({ status: res.statusCode ?? 0, text: chunk.toString() })),
      );
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
    return { firstBytes, leave: () => req.destroy() };
  };

  it('ends the Temporal calls and timers of streams and JSON calls whose clients left, while their runs go on', async () => {
    const followed: string[] = [];
    for (let i = 0; i < FOLLOWED_RUNS; i++) {
      const question = `follow me ${i}`;
      const res = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
        key: api.adminKey,
        body: { session_id: await newSession(), question, background: true },
      });
      expect(res.status).toBe(202);
      followed.push(res.json.data.trace_id);
    }
    await untilAsked(followed.map((_, i) => `follow me ${i}`));
    const sessions = await Promise.all(Array.from({ length: JSON_CALLS }, () => newSession()));

    const baseline = { resources: resources(), calls: temporalCallsInFlight };

    // Streams: each client reads the stream's first event (its wait on the run's end has begun), then leaves.
    const streams = Array.from({ length: STREAMS }, (_, i) =>
      openRequest('GET', `/v1/combo/completions/${followed[i % FOLLOWED_RUNS]}/events`),
    );
    for (const first of await Promise.all(streams.map((s) => s.firstBytes))) {
      expect(first).toEqual({ status: 200, text: expect.stringContaining('event: thinking') });
    }
    // JSON completions: each client leaves once its run is at the model (the API waits for the reply).
    const jsonCalls = sessions.map((sessionId, i) =>
      openRequest('POST', `/v1/combo/agents/${agentId}/completions`, { session_id: sessionId, question: `leave before the answer ${i}` }),
    );
    await untilAsked(sessions.map((_, i) => `leave before the answer ${i}`));
    // The waits are there to be released: one Temporal call per stream and per JSON call.
    expect(temporalCallsInFlight - baseline.calls).toBeGreaterThanOrEqual(STREAMS + JSON_CALLS - TOLERANCE);

    for (const call of [...streams, ...jsonCalls]) call.leave();

    const released = await eventually(async () => {
      const now = { resources: resources(), calls: temporalCallsInFlight };
      const grown = above(now.resources, baseline.resources);
      const held = Object.values(grown).some((n) => n > TOLERANCE) || now.calls - baseline.calls > TOLERANCE;
      return held ? undefined : now;
    }, 30_000).catch(() => ({ resources: resources(), calls: temporalCallsInFlight }));
    const leftOver = { temporalCalls: released.calls - baseline.calls, resources: above(released.resources, baseline.resources) };
    const withinTolerance = leftOver.temporalCalls <= TOLERANCE && Object.values(leftOver.resources).every((n) => n <= TOLERANCE);
    // On failure, what stayed above the baseline.
    expect(withinTolerance ? 'released' : leftOver).toBe('released');

    // Released because their clients left: every run is still going.
    for (const traceId of followed) {
      expect((await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey })).json.data.status).toBe('running');
    }
  }, 600_000);
});

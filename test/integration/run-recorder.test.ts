import { Client as EsClient } from '@elastic/elasticsearch';
import type { Db } from 'mongodb';
import { createAgentTaskActivities } from '../../activities/agent-tasks';
import { agentTaskTraceId } from '../../common/agent-task-ids';
import { ErrorCodes } from '../../common/errors';
import { randomToken } from '../../common/ids';
import { createRunEndRecorder, type RunEnding, type RunEndStores } from '../../completion/run-end-recorder';
import { answeredRun, canceledRun, failedRun } from '../../completion/run-endings';
import type { RunContext } from '../../completion/run-input';
import { createRunStartRecorder, type RunStartStores } from '../../completion/run-start-recorder';
import { createCompletionRunStore, type NewRun } from '../../stores/completion-runs';
import { createCostQueue } from '../../stores/cost-queue';
import { createEventLog } from '../../stores/event-log';
import { connectMongo, type MongoHandle } from '../../stores/mongo';
import { createSessionTurnStore } from '../../stores/session-turns';
import { createRunEventStore } from '../../stores/run-events';
import { createStores } from '../../stores';
import { createSessionStore } from '../../stores/sessions';
import { testConfig } from '../support/config';

/**
 * The run recorders on the real FerretDB: a recording that fails after any of its writes (the
 * stores are real; only the fault is injected, into the write after it) and is then retried whole
 * leaves exactly one turn, one run-record end, one of each event, one cost entry and one of each
 * of the stream's first and last events.
 */
let mongo: MongoHandle;
let db: Db;
let stores: RunEndStores & RunStartStores;

beforeAll(async () => {
  const config = testConfig();
  mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  db = mongo.db;
  const eventLog = createEventLog(db);
  stores = {
    sessions: createSessionStore(db, eventLog),
    runs: createCompletionRunStore(db),
    eventLog,
    costQueue: createCostQueue(db),
    runEvents: createRunEventStore(db),
    sessionTurns: createSessionTurnStore(db),
  };
});
afterAll(async () => {
  await db?.dropDatabase();
  await mongo?.close();
});

class InjectedFault extends Error {}

type FaultMode = 'before' | 'after';

/**
 * The stores with every write counted: write `failAt` (1-based) fails, either before it reaches the
 * database or after it was written (a reply lost on the way back).
 */
function faulty<T extends object>(real: T, failAt: number, mode: FaultMode, counter: { writes: number }): T {
  const wrapped: Record<string, Record<string, unknown>> = {};
  for (const [name, store] of Object.entries(real) as Array<[string, Record<string, unknown>]>) {
    wrapped[name] = new Proxy(store, {
      get(target, prop) {
        const value = target[prop as string];
        if (typeof value !== 'function' || !WRITES.has(prop as string)) return value;
        return async (...args: unknown[]) => {
          counter.writes++;
          if (counter.writes !== failAt) return (value as (...a: unknown[]) => unknown).apply(target, args);
          if (mode === 'after') await (value as (...a: unknown[]) => unknown).apply(target, args);
          throw new InjectedFault(`write ${failAt} failed (${mode})`);
        };
      },
    });
  }
  return wrapped as T;
}

/** The writes the recorders make (every other method passes through uncounted). */
const WRITES = new Set(['recordTurn', 'complete', 'fail', 'cancel', 'appendMany', 'enqueue', 'appendOnce', 'startOnce']);

const newRun = (): { ctx: RunContext; run: NewRun } => {
  const ctx: RunContext = {
    traceId: `trc_${randomToken(20)}`,
    tenantId: `t-${randomToken(6)}`,
    agentId: `agt_${randomToken(20)}`,
    sessionId: `ses_${randomToken(20)}`,
    stream: true,
    recordEvents: true,
    runId: `run-${randomToken(8)}`,
  };
  return {
    ctx,
    run: {
      traceId: ctx.traceId,
      tenantId: ctx.tenantId,
      agentId: ctx.agentId,
      sessionId: ctx.sessionId,
      kind: 'chat',
      workflowId: `completion-${ctx.traceId}`,
      route: '@kbqa@llm@default@',
      question: 'what is a run?',
      stream: true,
      offline: false,
    },
  };
};

const route = { scenario: 'kbqa', processor: 'llm', mode: 'default', text: '@kbqa@llm@default@', usesModel: true };
const requestedAt = Date.now();

/** Each kind of end as its activity builds it, built again for every attempt (as a retry does). */
const ENDINGS: Record<string, { build: (ctx: RunContext) => RunEnding; status: string; turn: boolean; streamed: string[] }> = {
  answered: {
    build: (ctx) =>
      answeredRun(
        {
          ctx,
          seq: 1,
          question: 'what is a run?',
          answer: 'A run is one answer.',
          reference: [],
          artifacts: [],
          model: 'scripted-model',
          offline: false,
          route,
          stopReason: 'answered',
          tokens: 42,
          requestedAt,
          userId: 'user',
          sources: ['question'],
          answerStep: { step: 1, confidence: 1 },
        },
        'http://service.test',
        new Date(),
      ).ending,
    status: 'completed',
    turn: true,
    streamed: ['done', 'message', 'thinking'],
  },
  failed: {
    build: (ctx) =>
      failedRun({ ctx, seq: 1, question: 'what is a run?', code: 30001, message: 'the model failed', tokens: 7, requestedAt }, new Date()),
    status: 'failed',
    turn: false,
    streamed: ['done', 'error', 'thinking'],
  },
  canceled: {
    build: (ctx) =>
      canceledRun(
        {
          ctx,
          seq: 1,
          question: 'what is a run?',
          answer: 'A run is',
          model: 'scripted-model',
          tokens: 9,
          requestedAt,
          beforeStart: false,
        },
        new Date(),
      ),
    status: 'canceled',
    turn: true,
    streamed: ['done', 'message', 'thinking'],
  },
};

/** How many writes a recording makes: counted on a run recorded without a fault. */
async function writesOf(record: (s: RunEndStores & RunStartStores) => Promise<unknown>): Promise<number> {
  const counter = { writes: 0 };
  await record(faulty(stores, 0, 'before', counter));
  return counter.writes;
}

const countBy = (docs: Array<{ event: string }>) => {
  const counts: Record<string, number> = {};
  for (const d of docs) counts[d.event] = (counts[d.event] ?? 0) + 1;
  return counts;
};

/** Everything the run left in the database, counted. */
async function recorded(ctx: RunContext) {
  const [messages, memory, run, events, queued, costs, stream] = await Promise.all([
    db.collection('messages').find({ session_id: ctx.sessionId }).toArray(),
    db.collection<{ _id: string; turns: Array<{ trace_id?: string }> }>('session_memory').findOne({ _id: ctx.sessionId }),
    db.collection<{ _id: string; status: string; finished_at: Date | null }>('completion_runs').findOne({ _id: ctx.traceId }),
    db.collection<{ event: string }>('events').find({ tenant_id: ctx.tenantId }).toArray(),
    db.collection<{ event: string }>('event_dispatch_queue').find({ tenant_id: ctx.tenantId }).toArray(),
    db.collection('cost_queue').countDocuments({ _id: ctx.traceId } as object),
    db.collection<{ event: string }>('completion_events').find({ trace_id: ctx.traceId }).toArray(),
  ]);
  return {
    messages: messages.length,
    memoryTurns: memory?.turns.filter((t) => t.trace_id === ctx.traceId).length ?? 0,
    status: run?.status,
    finished: run?.finished_at instanceof Date,
    events: countBy(events),
    queued: countBy(queued),
    costs,
    stream: countBy(stream),
  };
}

describe.each(Object.entries(ENDINGS))('the end recorder, a run %s', (_kind, kind) => {
  const startAndEnd = async (s: RunEndStores & RunStartStores, ctx: RunContext, run: NewRun) => {
    await createRunStartRecorder(s).recordStart(run, { route: route.text, offline: false, queued: false });
    await createRunEndRecorder(s).recordEnd(kind.build(ctx));
  };
  let writes: number;
  beforeAll(async () => {
    const { ctx, run } = newRun();
    await createRunStartRecorder(stores).recordStart(run, { route: route.text, offline: false, queued: false });
    writes = await writesOf((s) => createRunEndRecorder(s).recordEnd(kind.build(ctx)));
  });

  const expectOnce = async (ctx: RunContext, expected: Awaited<ReturnType<typeof recorded>>) => {
    const now = await recorded(ctx);
    expect(now).toEqual(expected);
    expect(now.status).toBe(kind.status);
    expect(now.finished).toBe(true);
    expect(now.messages).toBe(kind.turn ? 2 : 0);
    expect(now.memoryTurns).toBe(kind.turn ? 2 : 0);
    expect(now.costs).toBe(1);
    expect(Object.keys(now.stream).sort()).toEqual(kind.streamed);
    for (const counts of [now.events, now.queued, now.stream]) for (const n of Object.values(counts)) expect(n).toBe(1);
  };

  it('records every part once when nothing fails (the reference the retries are held to)', async () => {
    const { ctx, run } = newRun();
    await startAndEnd(stores, ctx, run);
    const once = await recorded(ctx);
    await expectOnce(ctx, once);
    // Recorded again whole: nothing changes.
    await startAndEnd(stores, ctx, run);
    await expectOnce(ctx, once);
  });

  it.each(['before', 'after'] as const)(
    'retried after a fault at each of its writes (%s the write), records each part once',
    async (mode) => {
      expect(writes).toBeGreaterThanOrEqual(4);
      const { ctx: reference, run: referenceRun } = newRun();
      await startAndEnd(stores, reference, referenceRun);
      const expected = await recorded(reference);
      for (let k = 0; k < writes; k++) {
        const { ctx, run } = newRun();
        await createRunStartRecorder(stores).recordStart(run, { route: route.text, offline: false, queued: false });
        const counter = { writes: 0 };
        // Writes 1..k succeed; write k+1 fails.
        await expect(createRunEndRecorder(faulty(stores, k + 1, mode, counter)).recordEnd(kind.build(ctx))).rejects.toBeInstanceOf(
          InjectedFault,
        );
        await createRunEndRecorder(stores).recordEnd(kind.build(ctx));
        const now = await recorded(ctx);
        // Tenants differ per run: compare what was recorded, not where.
        expect({ k, ...now }).toEqual({ k, ...expected });
        await expectOnce(ctx, expected);
      }
    },
  );
});

describe('the start recorder', () => {
  it.each(['before', 'after'] as const)(
    'retried after a fault at each of its writes (%s the write), records the run and its first events once',
    async (mode) => {
      const first = { route: route.text, offline: false, queued: true };
      for (let k = 0; k < 2; k++) {
        const { run } = newRun();
        const counter = { writes: 0 };
        await expect(createRunStartRecorder(faulty(stores, k + 1, mode, counter)).recordStart(run, first)).rejects.toBeInstanceOf(
          InjectedFault,
        );
        await createRunStartRecorder(stores).recordStart(run, first);
        expect(await db.collection('completion_runs').countDocuments({ _id: run.traceId } as object)).toBe(1);
        const stream = await db
          .collection<{ seq: number; event: string; data: { phase?: string } }>('completion_events')
          .find({ trace_id: run.traceId })
          .toArray();
        expect(stream.map((e) => [e.seq, e.event, e.data.phase]).sort()).toEqual([
          [0, 'thinking', 'accepted'],
          [1, 'thinking', 'queued'],
        ]);
      }
    },
  );
});

describe('the stream events a run writes once', () => {
  it('are not written again past events of others, and a partly written batch is completed', async () => {
    const traceId = `trc_${randomToken(20)}`;
    const message = { key: 'end:message', event: 'message' as const, data: { answer: 'a', reference: [] } };
    const done = { key: 'end:done', event: 'done' as const, data: { session_id: 'ses_x', trace_id: traceId } };
    // An earlier attempt wrote the message, another writer took the next number, then the batch is retried.
    await stores.runEvents.appendOnce(traceId, 3, [message]);
    await createRunEventStore(db).append(traceId, 4, [{ event: 'thinking', data: { phase: 'queued' } }]);
    const next = await stores.runEvents.appendOnce(traceId, 3, [message, done]);
    expect(next).toBe(6);
    await stores.runEvents.appendOnce(traceId, 3, [message, done]);
    // An event written any number of times (no key) still moves on past the taken numbers.
    expect(await createRunEventStore(db).append(traceId, 3, [{ event: 'thinking', data: { phase: 'model_retry' } }])).toBe(7);
    const stream = await db.collection<{ seq: number; event: string }>('completion_events').find({ trace_id: traceId }).toArray();
    expect(stream.map((e) => [e.seq, e.event]).sort()).toEqual([
      [3, 'message'],
      [4, 'thinking'],
      [5, 'done'],
      [6, 'thinking'],
    ]);
  });
});

describe('an agent task ended at its time bound before its run recorded its end', () => {
  it('ends the run failed as any failed run ends (run.failed, the stream error and done), once when retried', async () => {
    const config = testConfig();
    const es = new EsClient({ node: config.ELASTICSEARCH_URL });
    try {
      const activities = createAgentTaskActivities({
        ...createStores(db, es, config, { readCaches: false }),
        runs: createCompletionRunStore(db),
        config,
      });
      const workflowId = `cron-job-${randomToken(12)}`;
      const { ctx, run } = newRun();
      const taskRun = { ...run, traceId: agentTaskTraceId(workflowId), kind: 'cron' as const, stream: false };
      await createRunStartRecorder(stores).recordStart(taskRun, { route: route.text, offline: false, queued: false });
      const failure = { workflowId, message: 'the agent task was ended without recording its outcome', startedAt: requestedAt };
      await activities.failAgentTask(failure);
      await activities.failAgentTask(failure);
      const now = await recorded({ ...ctx, traceId: taskRun.traceId });
      expect(now).toMatchObject({ status: 'failed', finished: true, messages: 0, costs: 0 });
      expect(now.events).toEqual({ 'run.failed': 1 });
      expect(now.stream).toEqual({ thinking: 1, error: 1, done: 1 });
      const record = await createCompletionRunStore(db).find(ctx.tenantId, taskRun.traceId);
      expect(record?.error).toEqual({ code: ErrorCodes.INTERNAL, message: failure.message });
    } finally {
      await es.close();
    }
  });
});

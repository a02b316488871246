import type { Db } from 'mongodb';
import { notFound } from '../common/errors';
import type { CompletionRun, Cost, Reference, StopReason } from '../common/schemas/completions';

interface RunDoc {
  _id: string;
  tenant_id: string;
  agent_id: string;
  session_id: string;
  route: string;
  stream: boolean;
  status: CompletionRun['status'];
  answer: string | null;
  reference: Reference[];
  cost: Cost | null;
  model: string | null;
  offline: boolean;
  stop_reason: StopReason | null;
  artifacts: Array<Record<string, unknown>>;
  error: { code: number; message: string } | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface NewRun {
  traceId: string;
  tenantId: string;
  agentId: string;
  sessionId: string;
  route: string;
  stream: boolean;
  offline: boolean;
}

export interface RunResult {
  answer: string;
  reference: Reference[];
  cost: Cost;
  model: string | null;
  stopReason: StopReason;
  artifacts: Array<Record<string, unknown>>;
}

const present = (d: RunDoc): CompletionRun => ({
  trace_id: d._id,
  agent_id: d.agent_id,
  session_id: d.session_id,
  route: d.route,
  status: d.status,
  answer: d.answer,
  reference: d.reference,
  cost: d.cost,
  model: d.model,
  offline: d.offline,
  stop_reason: d.stop_reason,
  artifacts: d.artifacts,
  error: d.error,
  created_at: d.created_at.toISOString(),
  finished_at: d.finished_at?.toISOString() ?? null,
});

/** One record per completion run (`_id` = trace id): its state and result, readable after the reply. */
export function createCompletionRunStore(db: Db) {
  const runs = db.collection<RunDoc>('completion_runs');
  return {
    async start(run: NewRun): Promise<void> {
      await runs.insertOne({
        _id: run.traceId,
        tenant_id: run.tenantId,
        agent_id: run.agentId,
        session_id: run.sessionId,
        route: run.route,
        stream: run.stream,
        status: 'running',
        answer: null,
        reference: [],
        cost: null,
        model: null,
        offline: run.offline,
        stop_reason: null,
        artifacts: [],
        error: null,
        created_at: new Date(),
        finished_at: null,
      });
    },

    /** The run was never started (its workflow refused): nothing of it remains. */
    discard: async (traceId: string) => void (await runs.deleteOne({ _id: traceId })),

    async complete(traceId: string, result: RunResult, at: Date): Promise<void> {
      await runs.updateOne(
        { _id: traceId },
        {
          $set: {
            status: 'completed',
            answer: result.answer,
            reference: result.reference,
            cost: result.cost,
            model: result.model,
            stop_reason: result.stopReason,
            artifacts: result.artifacts,
            finished_at: at,
          },
        },
      );
    },

    async fail(traceId: string, error: { code: number; message: string }, cost: Cost, at: Date): Promise<void> {
      await runs.updateOne({ _id: traceId }, { $set: { status: 'failed', error, cost, finished_at: at } });
    },

    async get(tenantId: string, traceId: string): Promise<CompletionRun> {
      const doc = await runs.findOne({ _id: traceId, tenant_id: tenantId });
      if (!doc) throw notFound('completion', traceId);
      return present(doc);
    },
  };
}

export type CompletionRunStore = ReturnType<typeof createCompletionRunStore>;

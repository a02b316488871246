import type { Db } from 'mongodb';
import type { RunCost } from '../common/cost-periods';
import { isDuplicateKey } from './mongo';

/**
 * A run's cost waiting to be added to its period (`_id` = trace id). Completions only queue their
 * cost (one insert on their path); the worker's cost aggregator adds queued costs to the ledger.
 */
interface QueuedCostDoc {
  _id: string;
  tenant_id: string;
  tokens: number;
  duration_ms: number;
  at: Date;
  /** Absent on costs queued before runs recorded their agent. */
  agent_id?: string | null;
  /** Absent on costs queued before the split and the money were kept: read as 0. */
  input_tokens?: number;
  output_tokens?: number;
  amount?: number;
}

/** Finished runs' costs on their way to the ledger (collection `cost_queue`). */
export function createCostQueue(db: Db) {
  const queue = db.collection<QueuedCostDoc>('cost_queue');
  return {
    /** Queues a finished run's cost; queuing the same trace twice keeps one entry. */
    async enqueue(run: RunCost): Promise<void> {
      try {
        await queue.insertOne({
          _id: run.traceId,
          tenant_id: run.tenantId,
          tokens: run.tokens,
          duration_ms: run.durationMs,
          at: run.at,
          agent_id: run.agentId ?? null,
          input_tokens: run.inputTokens ?? 0,
          output_tokens: run.outputTokens ?? 0,
          amount: run.amount ?? 0,
        });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    },

    /** Up to `limit` queued costs. Read without sort: cheap on FerretDB, and every one is handled anyway. */
    async pending(limit: number): Promise<RunCost[]> {
      const docs = await queue.find({}).limit(limit).toArray();
      return docs.map((d) => ({
        tenantId: d.tenant_id,
        traceId: d._id,
        tokens: d.tokens,
        durationMs: d.duration_ms,
        at: d.at,
        agentId: d.agent_id ?? null,
        inputTokens: d.input_tokens ?? 0,
        outputTokens: d.output_tokens ?? 0,
        amount: d.amount ?? 0,
      }));
    },

    async remove(traceId: string): Promise<void> {
      await queue.deleteOne({ _id: traceId });
    },
  };
}

export type CostQueue = ReturnType<typeof createCostQueue>;

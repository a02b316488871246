import type { Db } from 'mongodb';
import { periodOf, type RunCost } from '../common/cost-periods';
import type { CostGroup, CostGroupBy } from '../common/schemas/costs';
import { roundAmount } from '../common/run-spend';
import { isDuplicateKey } from './mongo';

/**
 * One recorded run; its `_id` (the trace id) is what makes recording a run twice impossible. The
 * costs by agent and by day are aggregated over these (index `tenant_id, at`).
 */
export interface CostRunDoc {
  _id: string;
  tenant_id: string;
  period: string;
  tokens: number;
  duration_ms: number;
  /** Absent on runs recorded before the split and the money were kept: they sum as 0. */
  input_tokens?: number;
  output_tokens?: number;
  amount?: number;
  at: Date;
  /** The agent that ran; null for runs recorded before the agent was (and absent on those older still). */
  agent_id?: string | null;
  /**
   * The UTC day it ended, `YYYY-MM-DD` (FerretDB v1 has no date operators to group by `at`). Runs
   * recorded before it was kept get it from the worker's start-up migration (stores/migrations.ts).
   */
  day?: string;
}

/** What the by-agent or by-day costs cover: runs that ended at `since` or later and before `until`. */
export interface CostGrouping {
  by: CostGroupBy;
  since: Date;
  until: Date;
}

type GroupKey = string | null;

export const COST_RUNS = 'cost_runs';

/** The runs whose costs are counted (collection `cost_runs`), one per trace id, and their sums by agent or day. */
export function createCostRunStore(db: Db) {
  const runs = db.collection<CostRunDoc>(COST_RUNS);

  /**
   * One sum per group, computed by the database. FerretDB v1 computes only the first accumulator
   * of a `$group` (the others come back 0), so each total is its own single-accumulator pipeline.
   */
  async function sumsBy(match: object, key: string, value: string | 1): Promise<Map<GroupKey, number>> {
    const rows = await runs
      .aggregate<{ _id: GroupKey; v: number }>([{ $match: match }, { $group: { _id: `$${key}`, v: { $sum: value } } }])
      .toArray();
    return new Map(rows.map((r) => [r._id ?? null, r.v]));
  }

  return {
    /**
     * Records the run in `period` (its tokens and duration already rounded): null when this call
     * recorded it, else the period it had been recorded in (an activity or fold retry).
     */
    async record(run: RunCost, period: string): Promise<{ recordedIn: string } | null> {
      try {
        await runs.insertOne({
          _id: run.traceId,
          tenant_id: run.tenantId,
          period,
          tokens: run.tokens,
          duration_ms: run.durationMs,
          input_tokens: run.inputTokens ?? 0,
          output_tokens: run.outputTokens ?? 0,
          amount: run.amount ?? 0,
          at: run.at,
          agent_id: run.agentId ?? null,
          day: periodOf(run.at, 'day'),
        });
        return null;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const recorded = await runs.findOne({ _id: run.traceId }, { projection: { period: 1 } });
        return { recordedIn: recorded?.period ?? period };
      }
    },

    /**
     * The tenant's runs that ended in [since, until), summed per agent (most tokens first; runs
     * recorded before agents were count under null) or per UTC day (oldest first; days without runs
     * are left out).
     */
    async groups(tenantId: string, { by, since, until }: CostGrouping): Promise<CostGroup[]> {
      const key = by === 'agent' ? 'agent_id' : 'day';
      const match = { tenant_id: tenantId, at: { $gte: since, $lt: until } };
      // A field missing on runs recorded before it was kept adds nothing to its `$sum`.
      const [tokens, durations, counts, inputs, outputs, amounts] = await Promise.all([
        sumsBy(match, key, '$tokens'),
        sumsBy(match, key, '$duration_ms'),
        sumsBy(match, key, 1),
        sumsBy(match, key, '$input_tokens'),
        sumsBy(match, key, '$output_tokens'),
        sumsBy(match, key, '$amount'),
      ]);
      const totals = [...counts].map(([group, count]) => ({
        group,
        tokens: tokens.get(group) ?? 0,
        duration_ms: durations.get(group) ?? 0,
        runs: count,
        input_tokens: inputs.get(group) ?? 0,
        output_tokens: outputs.get(group) ?? 0,
        amount: roundAmount(amounts.get(group) ?? 0),
      }));
      if (by === 'day') {
        // Runs not dated yet (recorded before days were kept, until the worker has dated them) are left out.
        return totals
          .filter((t): t is typeof t & { group: string } => t.group !== null)
          .sort((a, b) => a.group.localeCompare(b.group))
          .map(({ group, ...sums }) => ({ day: group, ...sums }));
      }
      // Most tokens first; the runs of no known agent (recorded before agents were) last among equals.
      return totals
        .sort((a, b) => b.tokens - a.tokens || (a.group === null ? 1 : b.group === null ? -1 : a.group.localeCompare(b.group)))
        .map(({ group, ...sums }) => ({ agent_id: group, ...sums }));
    },
  };
}

export type CostRunStore = ReturnType<typeof createCostRunStore>;

import type { Db } from 'mongodb';
import type { CostGroup, CostGroupBy, CostSummary } from '../common/schemas/costs';
import { startedEarly } from '../common/started-early';
import { type EventLog, eventIdFor, newEvent } from './event-log';
import { isDuplicateKey } from './mongo';

/** How long a cost period is: a UTC calendar month (`YYYY-MM`, the default) or a UTC day (`YYYY-MM-DD`). */
export type CostPeriodUnit = 'month' | 'day';

export interface CostStoreOptions {
  /** Threshold of tenants that set none (COST_THRESHOLD_TOKENS); absent: no threshold. */
  defaultThresholdTokens?: number;
  periodUnit?: CostPeriodUnit;
}

export interface RunCost {
  tenantId: string;
  traceId: string;
  tokens: number;
  durationMs: number;
  /** When the run ended; picks the period. */
  at: Date;
  /** The agent that ran; null (or absent) for costs queued before runs recorded their agent. */
  agentId?: string | null;
}

export interface CostTotals {
  tokens: number;
  duration_ms: number;
  runs: number;
}

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
}

/**
 * One recorded run; its `_id` (the trace id) is what makes recording a run twice impossible. The
 * costs by agent and by day are aggregated over these (index `tenant_id, at`).
 */
interface RunCostDoc {
  _id: string;
  tenant_id: string;
  period: string;
  tokens: number;
  duration_ms: number;
  at: Date;
  /** The agent that ran; null for runs recorded before the agent was (and absent on those older still). */
  agent_id?: string | null;
  /**
   * The UTC day it ended, `YYYY-MM-DD` (FerretDB v1 has no date operators to group by `at`). Runs
   * recorded before it was kept get it from `dateUndatedRuns`, which the worker runs on start.
   */
  day?: string;
}

/**
 * Entry `seq` of a tenant's period ledger, holding the period's running totals after its run.
 * FerretDB v1 does not apply concurrent `$inc`s atomically (they lose counts), but an insert on a
 * taken `_id` always fails: so a run claims the next sequence number by inserting it, and a loser
 * moves on to the number after the winner's.
 */
interface LedgerDoc extends CostTotals {
  _id: string;
  tenant_id: string;
  period: string;
  seq: number;
  trace_id: string;
  at: Date;
  /** The agent of the entry's run; absent on entries from before runs recorded their agent. */
  agent_id?: string | null;
}

/** The ledger's newest entry as last seen: where reads start probing, so it may lag but never lead. */
interface TotalsDoc extends CostTotals {
  _id: string;
  tenant_id: string;
  period: string;
  seq: number;
  updated_at: Date;
}

interface SettingsDoc {
  _id: string;
  /** null: the tenant turned the threshold off (the installation default does not apply). */
  threshold_tokens: number | null;
  updated_at: Date;
}

interface Threshold {
  tokens: number | null;
  source: CostSummary['threshold_source'];
}

type Position = CostTotals & { seq: number };

/** Contention is between one tenant's concurrent runs; each lost race means another run got in. */
const MAX_CLAIMS = 1_000;

/** Runs dated per write by `dateUndatedRuns`. */
const DATING_BATCH = 500;

/** What the by-agent or by-day costs cover: runs that ended at `since` or later and before `until`. */
export interface CostGrouping {
  by: CostGroupBy;
  since: Date;
  until: Date;
}

type GroupKey = string | null;

export function periodOf(at: Date, unit: CostPeriodUnit = 'month'): string {
  return at.toISOString().slice(0, unit === 'day' ? 10 : 7);
}

const totalsKey = (tenantId: string, period: string) => `${tenantId}:${period}`;
const positionOf = (d: Position): Position => ({ seq: d.seq, tokens: d.tokens, duration_ms: d.duration_ms, runs: d.runs });
const totalsOf = ({ tokens, duration_ms, runs }: CostTotals): CostTotals => ({ tokens, duration_ms, runs });

/**
 * Per-tenant cost of completion runs per period, and the `cost.threshold_exceeded` event, recorded
 * once per tenant and period (its id is derived from them). Every read is by `_id`.
 */
export function createCostStore(db: Db, eventLog: EventLog, options: CostStoreOptions = {}) {
  const runs = db.collection<RunCostDoc>('cost_runs');
  const queue = db.collection<QueuedCostDoc>('cost_queue');
  const ledger = db.collection<LedgerDoc>('cost_ledger');
  const totals = db.collection<TotalsDoc>('cost_totals');
  const settings = db.collection<SettingsDoc>('cost_settings');
  const unit = options.periodUnit ?? 'month';

  /** The newest ledger entry at or after `from`. */
  async function newestFrom(key: string, from: Position): Promise<Position> {
    let current = from;
    for (;;) {
      const next = await ledger.findOne({ _id: `${key}:${current.seq + 1}` });
      if (!next) return current;
      current = positionOf(next);
    }
  }

  async function newest(tenantId: string, period: string): Promise<Position> {
    const key = totalsKey(tenantId, period);
    const head = await totals.findOne({ _id: key });
    return newestFrom(key, head ? positionOf(head) : { seq: 0, tokens: 0, duration_ms: 0, runs: 0 });
  }

  async function append(run: RunCost, period: string, head: Position): Promise<{ before: Position; after: Position }> {
    const key = totalsKey(run.tenantId, period);
    let before = head;
    for (let claims = 1; ; claims++) {
      const entry: LedgerDoc = {
        _id: `${key}:${before.seq + 1}`,
        tenant_id: run.tenantId,
        period,
        seq: before.seq + 1,
        trace_id: run.traceId,
        agent_id: run.agentId ?? null,
        tokens: before.tokens + run.tokens,
        duration_ms: before.duration_ms + run.durationMs,
        runs: before.runs + 1,
        at: run.at,
      };
      try {
        await ledger.insertOne(entry);
        await advanceHead(entry);
        return { before, after: positionOf(entry) };
      } catch (err) {
        if (!isDuplicateKey(err) || claims >= MAX_CLAIMS) throw err;
        before = await newestFrom(key, before);
      }
    }
  }

  /** Moves the head forward; a head already past this entry makes the upsert's insert fail, which is fine. */
  async function advanceHead(entry: LedgerDoc): Promise<void> {
    const key = totalsKey(entry.tenant_id, entry.period);
    try {
      await totals.updateOne(
        { _id: key, seq: { $lt: entry.seq } },
        { $set: { tenant_id: entry.tenant_id, period: entry.period, ...positionOf(entry), updated_at: new Date() } },
        { upsert: true },
      );
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  async function thresholdOf(tenantId: string): Promise<Threshold> {
    const doc = await settings.findOne({ _id: tenantId });
    if (doc) return doc.threshold_tokens === null ? { tokens: null, source: 'none' } : { tokens: doc.threshold_tokens, source: 'tenant' };
    return options.defaultThresholdTokens
      ? { tokens: options.defaultThresholdTokens, source: 'default' }
      : { tokens: null, source: 'none' };
  }

  /**
   * Records the event when the period is at or over the threshold. The run that crosses it always
   * appends; any other caller appends only if the event is missing (a lowered threshold, or a retry
   * after a crash between recording and appending). The derived id makes concurrent appends one event.
   */
  async function noteThreshold(
    tenantId: string,
    period: string,
    total: number,
    threshold: number | null,
    at: Date,
    crossed: boolean,
  ): Promise<boolean> {
    if (threshold === null || total < threshold) return false;
    const factKey = totalsKey(tenantId, period);
    if (!crossed && (await eventLog.has(eventIdFor('cost.threshold_exceeded', factKey)))) return true;
    await eventLog.appendMany([
      newEvent('cost.threshold_exceeded', tenantId, factKey, { tenant_id: tenantId, period, amount: total, threshold, unit: 'tokens' }, at),
    ]);
    return true;
  }

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

  async function groups(tenantId: string, { by, since, until }: CostGrouping): Promise<CostGroup[]> {
    const key = by === 'agent' ? 'agent_id' : 'day';
    const match = { tenant_id: tenantId, at: { $gte: since, $lt: until } };
    const [tokens, durations, counts] = await Promise.all([
      sumsBy(match, key, '$tokens'),
      sumsBy(match, key, '$duration_ms'),
      sumsBy(match, key, 1),
    ]);
    const totals = [...counts].map(([group, count]) => ({
      group,
      tokens: tokens.get(group) ?? 0,
      duration_ms: durations.get(group) ?? 0,
      runs: count,
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
  }

  async function summary(tenantId: string, period: string): Promise<CostSummary> {
    const [position, threshold] = await Promise.all([newest(tenantId, period), thresholdOf(tenantId)]);
    return {
      period,
      ...totalsOf(position),
      threshold_tokens: threshold.tokens,
      threshold_source: threshold.source,
      threshold_exceeded: threshold.tokens !== null && position.tokens >= threshold.tokens,
    };
  }

  /** The current period's summary under the threshold now in force; records the crossing if the period is already over it. */
  async function noteCurrentPeriod(tenantId: string): Promise<CostSummary> {
    const current = await summary(tenantId, periodOf(new Date(), unit));
    await noteThreshold(tenantId, current.period, current.tokens, current.threshold_tokens, new Date(), false);
    return current;
  }

  const store = {
    runs,
    queue,
    ledger,

    /** Queues a finished run's cost; queuing the same trace twice keeps one entry. */
    async enqueueRunCost(run: RunCost): Promise<void> {
      try {
        await queue.insertOne({
          _id: run.traceId,
          tenant_id: run.tenantId,
          tokens: run.tokens,
          duration_ms: run.durationMs,
          at: run.at,
          agent_id: run.agentId ?? null,
        });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    },

    /**
     * Adds up to `limit` queued costs to their periods (recording the threshold event when one
     * crosses it), then drops them from the queue. A cost added but not yet dropped (a crash in
     * between) is not added again: recording is keyed by trace id. Read without sort: cheap on FerretDB.
     */
    async foldQueued(limit = 200): Promise<number> {
      const pending = await queue.find({}).limit(limit).toArray();
      for (const entry of pending) {
        await store.recordRunCost({
          tenantId: entry.tenant_id,
          traceId: entry._id,
          tokens: entry.tokens,
          durationMs: entry.duration_ms,
          at: entry.at,
          agentId: entry.agent_id ?? null,
        });
        await queue.deleteOne({ _id: entry._id });
      }
      return pending.length;
    },
    totals,
    settings,
    periodUnit: unit,
    periodOf: (at: Date) => periodOf(at, unit),

    /**
     * Adds one completion run to its tenant's period. A trace id already recorded (an activity retry)
     * adds nothing. A process dying between the run's record and its ledger entry loses that run's
     * cost: the ledger under-counts then, it never counts a run twice.
     */
    async recordRunCost(run: RunCost): Promise<{ period: string; totals: CostTotals; thresholdExceeded: boolean }> {
      const period = periodOf(run.at, unit);
      const tokens = Math.max(0, Math.round(run.tokens));
      const durationMs = Math.max(0, Math.round(run.durationMs));
      // The reads the ledger entry needs go alongside the run's record: this sits on every completion's path.
      const thresholdRead = startedEarly(thresholdOf(run.tenantId));
      const headRead = startedEarly(newest(run.tenantId, period));
      try {
        await runs.insertOne({
          _id: run.traceId,
          tenant_id: run.tenantId,
          period,
          tokens,
          duration_ms: durationMs,
          at: run.at,
          agent_id: run.agentId ?? null,
          day: periodOf(run.at, 'day'),
        });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const recorded = await runs.findOne({ _id: run.traceId });
        const recordedPeriod = recorded?.period ?? period;
        const [position, threshold] = await Promise.all([newest(run.tenantId, recordedPeriod), thresholdRead]);
        const exceeded = await noteThreshold(run.tenantId, recordedPeriod, position.tokens, threshold.tokens, run.at, false);
        return { period: recordedPeriod, totals: totalsOf(position), thresholdExceeded: exceeded };
      }
      const { before, after } = await append({ ...run, tokens, durationMs }, period, await headRead);
      const threshold = await thresholdRead;
      const crossed = threshold.tokens !== null && before.tokens < threshold.tokens;
      const exceeded = await noteThreshold(run.tenantId, period, after.tokens, threshold.tokens, run.at, crossed);
      return { period, totals: totalsOf(after), thresholdExceeded: exceeded };
    },

    /**
     * The tenant's runs that ended in [since, until), summed per agent (most tokens first; runs
     * recorded before agents were count under null) or per UTC day (oldest first; days without runs
     * are left out).
     */
    groups,

    /**
     * Gives every run recorded before days were kept its UTC day (from `at`), a batch per write, in
     * `_id` order so each run is read once. Safe to run in several processes at once (they write the
     * same values). Returns how many runs it dated.
     */
    async dateUndatedRuns(): Promise<number> {
      let dated = 0;
      let after: string | undefined;
      for (;;) {
        const batch = await runs
          .find({ day: { $exists: false }, ...(after !== undefined ? { _id: { $gt: after } } : {}) }, { projection: { _id: 1, at: 1 } })
          .sort({ _id: 1 })
          .limit(DATING_BATCH)
          .toArray();
        if (batch.length === 0) return dated;
        const byDay = new Map<string, string[]>();
        for (const run of batch) {
          const day = periodOf(run.at, 'day');
          byDay.set(day, [...(byDay.get(day) ?? []), run._id]);
        }
        for (const [day, ids] of byDay) await runs.updateMany({ _id: { $in: ids }, day: { $exists: false } }, { $set: { day } });
        dated += batch.length;
        after = batch[batch.length - 1]!._id;
      }
    },

    /** Whether `period` names a period of this store's unit (a day or a month). */
    isPeriod: (period: string): boolean => period.length === periodOf(new Date(0), unit).length,

    /** The period's totals and the threshold; the current period when none is given. */
    summary: (tenantId: string, period?: string): Promise<CostSummary> => summary(tenantId, period ?? periodOf(new Date(), unit)),

    /**
     * Sets (or with null turns off) the tenant's threshold. A period already over the new threshold
     * records its event now, once, as a run crossing it would.
     */
    async setThreshold(tenantId: string, thresholdTokens: number | null): Promise<CostSummary> {
      const write = () =>
        settings.updateOne({ _id: tenantId }, { $set: { threshold_tokens: thresholdTokens, updated_at: new Date() } }, { upsert: true });
      // Two first-time upserts of one tenant race to insert; the loser's update then finds the document.
      await write().catch((err: unknown) => {
        if (isDuplicateKey(err)) return write();
        throw err;
      });
      return noteCurrentPeriod(tenantId);
    },

    /** Forgets the tenant's own threshold: the installation default (COST_THRESHOLD_TOKENS) applies again. */
    async clearThreshold(tenantId: string): Promise<CostSummary> {
      await settings.deleteOne({ _id: tenantId });
      return noteCurrentPeriod(tenantId);
    },
  };
  return store;
}

export type CostStore = ReturnType<typeof createCostStore>;

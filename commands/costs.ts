import { type CostPeriodUnit, type CostTotals, periodOf, type RunCost } from '../common/cost-periods';
import { eventIdFor, newEvent } from '../common/events';
import type { CostGroup, CostSummary } from '../common/schemas/costs';
import { startedEarly } from '../common/started-early';
import type { CostLedger, LedgerPosition } from '../stores/cost-ledger';
import type { CostQueue } from '../stores/cost-queue';
import type { CostGrouping, CostRunStore } from '../stores/cost-runs';
import type { CostSettings } from '../stores/cost-settings';
import type { EventLog } from '../stores/event-log';

export interface CostCommandDeps {
  costRuns: CostRunStore;
  costLedger: CostLedger;
  costSettings: CostSettings;
  costQueue: Pick<CostQueue, 'pending' | 'remove'>;
  eventLog: Pick<EventLog, 'appendMany' | 'has'>;
  /** How long a period is (default: a UTC month). */
  periodUnit?: CostPeriodUnit;
}

const totalsOf = ({ tokens, duration_ms, runs }: CostTotals): CostTotals => ({ tokens, duration_ms, runs });

/**
 * Per-tenant cost of completion runs per period, and the threshold rule: when a period's tokens
 * reach the tenant's threshold, `cost.threshold_exceeded` is recorded once per tenant and period
 * (its id is derived from them).
 */
export function createCostCommands(deps: CostCommandDeps) {
  const { costRuns, costLedger, costSettings, costQueue, eventLog } = deps;
  const unit = deps.periodUnit ?? 'month';

  /**
   * The threshold rule: records the event when the period is at or over the threshold. The run
   * that crosses it always appends; any other caller appends only if the event is missing (a
   * lowered threshold, or a retry after a crash between recording and appending). The derived id
   * makes concurrent appends one event.
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
    const factKey = `${tenantId}:${period}`;
    if (!crossed && (await eventLog.has(eventIdFor('cost.threshold_exceeded', factKey)))) return true;
    await eventLog.appendMany([
      newEvent('cost.threshold_exceeded', tenantId, factKey, { tenant_id: tenantId, period, amount: total, threshold, unit: 'tokens' }, at),
    ]);
    return true;
  }

  async function summary(tenantId: string, period: string): Promise<CostSummary> {
    const [position, threshold] = await Promise.all([costLedger.newest(tenantId, period), costSettings.thresholdOf(tenantId)]);
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

  /**
   * Adds one completion run to its tenant's period. A trace id already recorded (a retry) adds
   * nothing. A process dying between the run's record and its ledger entry loses that run's cost:
   * the ledger under-counts then, it never counts a run twice.
   */
  async function recordRunCost(run: RunCost): Promise<{ period: string; totals: CostTotals; thresholdExceeded: boolean }> {
    const period = periodOf(run.at, unit);
    const rounded = { ...run, tokens: Math.max(0, Math.round(run.tokens)), durationMs: Math.max(0, Math.round(run.durationMs)) };
    // The reads the ledger entry needs go alongside the run's record.
    const thresholdRead = startedEarly(costSettings.thresholdOf(run.tenantId));
    const headRead = startedEarly<LedgerPosition>(costLedger.newest(run.tenantId, period));
    const earlier = await costRuns.record(rounded, period);
    if (earlier) {
      const [position, threshold] = await Promise.all([costLedger.newest(run.tenantId, earlier.recordedIn), thresholdRead]);
      const exceeded = await noteThreshold(run.tenantId, earlier.recordedIn, position.tokens, threshold.tokens, run.at, false);
      return { period: earlier.recordedIn, totals: totalsOf(position), thresholdExceeded: exceeded };
    }
    const { before, after } = await costLedger.append(rounded, period, await headRead);
    const threshold = await thresholdRead;
    const crossed = threshold.tokens !== null && before.tokens < threshold.tokens;
    const exceeded = await noteThreshold(run.tenantId, period, after.tokens, threshold.tokens, run.at, crossed);
    return { period, totals: totalsOf(after), thresholdExceeded: exceeded };
  }

  return {
    recordRunCost,

    /**
     * Adds up to `limit` queued costs to their periods (recording the threshold event when one
     * crosses it), then drops them from the queue. A cost added but not yet dropped (a crash in
     * between) is not added again: recording is keyed by trace id. The worker's cost aggregator.
     */
    async foldQueued(limit = 200): Promise<number> {
      const pending = await costQueue.pending(limit);
      for (const cost of pending) {
        await recordRunCost(cost);
        await costQueue.remove(cost.traceId);
      }
      return pending.length;
    },

    periodUnit: unit,

    /** Whether `period` names a period of this unit (a day or a month). */
    isPeriod: (period: string): boolean => period.length === periodOf(new Date(0), unit).length,

    /** The period's totals and the threshold; the current period when none is given. */
    summary: (tenantId: string, period?: string): Promise<CostSummary> => summary(tenantId, period ?? periodOf(new Date(), unit)),

    /** The tenant's runs of a time range summed per agent or per day (see CostRunStore.groups). */
    groups: (tenantId: string, grouping: CostGrouping): Promise<CostGroup[]> => costRuns.groups(tenantId, grouping),

    /**
     * Sets (or with null turns off) the tenant's threshold. A period already over the new threshold
     * records its event now, once, as a run crossing it would.
     */
    async setThreshold(tenantId: string, thresholdTokens: number | null): Promise<CostSummary> {
      await costSettings.setThreshold(tenantId, thresholdTokens);
      return noteCurrentPeriod(tenantId);
    },

    /** Forgets the tenant's own threshold: the installation default (COST_THRESHOLD_TOKENS) applies again. */
    async clearThreshold(tenantId: string): Promise<CostSummary> {
      await costSettings.clearThreshold(tenantId);
      return noteCurrentPeriod(tenantId);
    },
  };
}

export type CostCommands = ReturnType<typeof createCostCommands>;

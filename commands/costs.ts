import { type CostPeriodUnit, type CostTotals, periodOf, type RunCost } from '../common/cost-periods';
import { eventIdFor, newEvent } from '../common/events';
import type { CostGroup, CostSummary } from '../common/schemas/costs';
import { startedEarly } from '../common/started-early';
import type { CostLedger, LedgerPosition } from '../stores/cost-ledger';
import type { CostQueue } from '../stores/cost-queue';
import type { CostGrouping, CostRunStore } from '../stores/cost-runs';
import type { CostSettings, Threshold, ThresholdChange } from '../stores/cost-settings';
import { roundAmount } from '../common/run-spend';
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

const totalsOf = ({ tokens, duration_ms, runs, input_tokens, output_tokens, amount }: CostTotals): CostTotals => ({
  tokens,
  duration_ms,
  runs,
  input_tokens,
  output_tokens,
  amount,
});

/** The units a threshold is set in: tokens (`threshold_tokens`) or money (`threshold_amount`). */
type ThresholdUnit = 'tokens' | 'amount';
const UNITS: ThresholdUnit[] = ['tokens', 'amount'];

/** Each unit's threshold in force. */
const limitOf = (threshold: Threshold, unit: ThresholdUnit): number | null => (unit === 'tokens' ? threshold.tokens : threshold.amount);

/**
 * The fact a threshold event is about: the tenant's period, and for money the unit too (the token
 * event's key predates money thresholds and stays as it was, so its derived id does not change).
 */
const thresholdFact = (tenantId: string, period: string, unit: ThresholdUnit) =>
  unit === 'tokens' ? `${tenantId}:${period}` : `${tenantId}:${period}:${unit}`;

/**
 * Per-tenant cost of completion runs per period, and the threshold rule: when a period's tokens (or
 * its money) reach the tenant's threshold in that unit, `cost.threshold_exceeded` is recorded once
 * per tenant, period and unit (its id is derived from them).
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
    unit: ThresholdUnit,
    total: number,
    threshold: number | null,
    at: Date,
    crossed: boolean,
  ): Promise<boolean> {
    if (threshold === null || total < threshold) return false;
    const factKey = thresholdFact(tenantId, period, unit);
    if (!crossed && (await eventLog.has(eventIdFor('cost.threshold_exceeded', factKey)))) return true;
    await eventLog.appendMany([
      newEvent('cost.threshold_exceeded', tenantId, factKey, { tenant_id: tenantId, period, amount: total, threshold, unit }, at),
    ]);
    return true;
  }

  /** The threshold rule in both units, side by side; true when either is reached. `before`: the totals before the run that reached `after`, if one did. */
  async function noteThresholds(
    tenantId: string,
    period: string,
    threshold: Threshold,
    after: CostTotals,
    at: Date,
    before?: CostTotals,
  ): Promise<boolean> {
    const reached = await Promise.all(
      UNITS.map((unit) => {
        const limit = limitOf(threshold, unit);
        const crossed = before !== undefined && limit !== null && before[unit] < limit;
        return noteThreshold(tenantId, period, unit, after[unit], limit, at, crossed);
      }),
    );
    return reached.some(Boolean);
  }

  async function summary(tenantId: string, period: string): Promise<CostSummary> {
    const [position, threshold] = await Promise.all([costLedger.newest(tenantId, period), costSettings.thresholdOf(tenantId)]);
    return {
      period,
      ...totalsOf(position),
      threshold_tokens: threshold.tokens,
      threshold_source: threshold.source,
      threshold_amount: threshold.amount,
      threshold_amount_source: threshold.amountSource,
      threshold_exceeded: UNITS.some((unit) => {
        const limit = limitOf(threshold, unit);
        return limit !== null && position[unit] >= limit;
      }),
    };
  }

  /** The current period's summary under the threshold now in force; records the crossing if the period is already over it. */
  async function noteCurrentPeriod(tenantId: string): Promise<CostSummary> {
    const current = await summary(tenantId, periodOf(new Date(), unit));
    const threshold: Threshold = {
      tokens: current.threshold_tokens,
      source: current.threshold_source,
      amount: current.threshold_amount,
      amountSource: current.threshold_amount_source,
    };
    await noteThresholds(tenantId, current.period, threshold, current, new Date());
    return current;
  }

  /**
   * Adds one completion run to its tenant's period. A trace id already recorded (a retry) adds
   * nothing. A process dying between the run's record and its ledger entry loses that run's cost:
   * the ledger under-counts then, it never counts a run twice.
   */
  async function recordRunCost(run: RunCost): Promise<{ period: string; totals: CostTotals; thresholdExceeded: boolean }> {
    const period = periodOf(run.at, unit);
    const rounded = {
      ...run,
      tokens: Math.max(0, Math.round(run.tokens)),
      durationMs: Math.max(0, Math.round(run.durationMs)),
      inputTokens: Math.max(0, Math.round(run.inputTokens ?? 0)),
      outputTokens: Math.max(0, Math.round(run.outputTokens ?? 0)),
      amount: Math.max(0, roundAmount(run.amount ?? 0)),
    };
    // The reads the ledger entry needs go alongside the run's record.
    const thresholdRead = startedEarly(costSettings.thresholdOf(run.tenantId));
    const headRead = startedEarly<LedgerPosition>(costLedger.newest(run.tenantId, period));
    const earlier = await costRuns.record(rounded, period);
    if (earlier) {
      const [position, threshold] = await Promise.all([costLedger.newest(run.tenantId, earlier.recordedIn), thresholdRead]);
      const exceeded = await noteThresholds(run.tenantId, earlier.recordedIn, threshold, position, run.at);
      return { period: earlier.recordedIn, totals: totalsOf(position), thresholdExceeded: exceeded };
    }
    const { before, after } = await costLedger.append(rounded, period, await headRead);
    const exceeded = await noteThresholds(run.tenantId, period, await thresholdRead, after, run.at, before);
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
     * Sets (or with null turns off) the tenant's threshold in the units given; the others stay as
     * they were. A period already over a new threshold records its event now, once, as a run
     * crossing it would.
     */
    async setThreshold(tenantId: string, change: ThresholdChange): Promise<CostSummary> {
      await costSettings.setThreshold(tenantId, change);
      return noteCurrentPeriod(tenantId);
    },

    /** Forgets the tenant's own thresholds: the installation defaults (COST_THRESHOLD_TOKENS, COST_THRESHOLD_AMOUNT) apply again. */
    async clearThreshold(tenantId: string): Promise<CostSummary> {
      await costSettings.clearThreshold(tenantId);
      return noteCurrentPeriod(tenantId);
    },
  };
}

export type CostCommands = ReturnType<typeof createCostCommands>;

/** How long a cost period is: a UTC calendar month (`YYYY-MM`, the default) or a UTC day (`YYYY-MM-DD`). */
export type CostPeriodUnit = 'month' | 'day';

/** The period `at` falls in. */
export function periodOf(at: Date, unit: CostPeriodUnit = 'month'): string {
  return at.toISOString().slice(0, unit === 'day' ? 10 : 7);
}

/** A run's cost as recorded: the run, its tokens and duration, and when it ended (which picks the period). */
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

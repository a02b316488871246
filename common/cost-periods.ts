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
  /** Input and output tokens and the money (0 when no call had a price); absent on costs queued before they were kept (read as 0). */
  inputTokens?: number;
  outputTokens?: number;
  amount?: number;
  /** When the run ended; picks the period. */
  at: Date;
  /** The agent that ran; null (or absent) for costs queued before runs recorded their agent. */
  agentId?: string | null;
}

export interface CostTotals {
  tokens: number;
  duration_ms: number;
  runs: number;
  input_tokens: number;
  output_tokens: number;
  /** Money of the priced runs, rounded to 6 decimal places; 0 when none had a price. */
  amount: number;
}

import type { TokenUsage } from './chat-model';
import type { OfferedModel } from './model-provider';

/**
 * What a run's model calls spent, beside the total tokens every run already records: its input and
 * output tokens, and the money of the calls whose model has a price. Pure: the model call prices
 * itself here, and the workflow sums its calls with it.
 */
export interface Spend {
  inputTokens: number;
  outputTokens: number;
  /** In the currency of the providers' prices; null when no call of the run had a price. */
  amount: number | null;
}

export const NOTHING_SPENT: Spend = { inputTokens: 0, outputTokens: 0, amount: null };

/** Amounts are kept to a millionth of the currency unit. */
const AMOUNT_SCALE = 1_000_000;

/** An amount rounded to 6 decimal places, as every recorded amount is (sums are rounded again, so float error never shows). */
export const roundAmount = (amount: number): number => Math.round(amount * AMOUNT_SCALE) / AMOUNT_SCALE;

/**
 * The money of one model call at its model's prices per million tokens; null when the model has no
 * price. A model priced on one side only counts the other side as free.
 */
export function callAmount(usage: Pick<TokenUsage, 'promptTokens' | 'completionTokens'>, model: OfferedModel | undefined): number | null {
  if (model?.inputPricePerMillion === undefined && model?.outputPricePerMillion === undefined) return null;
  const input = usage.promptTokens * (model.inputPricePerMillion ?? 0);
  const output = usage.completionTokens * (model.outputPricePerMillion ?? 0);
  return (input + output) / 1_000_000;
}

/** Two amounts added, where null is "none": the sum is null only when neither has one. */
export function addAmounts(a: number | null, b: number | null | undefined): number | null {
  if (b === null || b === undefined) return a;
  return roundAmount((a ?? 0) + b);
}

/**
 * The run's spend after one more call. A call without an amount (its model has no price, or it was
 * recorded before calls priced themselves) adds its tokens and no money.
 */
export function addCall(
  spent: Spend,
  usage: Pick<TokenUsage, 'promptTokens' | 'completionTokens'>,
  amount: number | null | undefined,
): Spend {
  return {
    inputTokens: spent.inputTokens + usage.promptTokens,
    outputTokens: spent.outputTokens + usage.completionTokens,
    amount: addAmounts(spent.amount, amount),
  };
}

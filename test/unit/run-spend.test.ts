import { addAmounts, addCall, callAmount, NOTHING_SPENT, roundAmount } from '../../common/run-spend';

/** A model call's money at its model's prices, and a run's spend summed over its calls. */
describe('pricing model calls', () => {
  const usage = { promptTokens: 1_200, completionTokens: 300 };

  it('prices input and output tokens per million', () => {
    // 1200 × 2.5 / 1e6 + 300 × 10 / 1e6
    expect(callAmount(usage, { id: 'm', inputPricePerMillion: 2.5, outputPricePerMillion: 10 })).toBeCloseTo(0.006, 12);
  });

  it('has no amount for a model without a price, or one not offered', () => {
    expect(callAmount(usage, { id: 'm' })).toBeNull();
    expect(callAmount(usage, undefined)).toBeNull();
  });

  it('counts the unpriced side of a model priced on one side only as free, and a zero price as zero', () => {
    expect(callAmount(usage, { id: 'm', inputPricePerMillion: 1 })).toBeCloseTo(0.0012, 12);
    expect(callAmount(usage, { id: 'm', outputPricePerMillion: 1 })).toBeCloseTo(0.0003, 12);
    expect(callAmount(usage, { id: 'm', inputPricePerMillion: 0, outputPricePerMillion: 0 })).toBe(0);
  });

  it('rounds amounts to 6 decimal places, so sums show no float error', () => {
    expect(roundAmount(0.1 + 0.2)).toBe(0.3);
    expect(roundAmount(0.0000014)).toBe(0.000001);
    expect(roundAmount(12.3456789)).toBe(12.345679);
    expect(addAmounts(0.1, 0.2)).toBe(0.3);
  });

  it('sums a null amount as none: null only while no call had a price', () => {
    expect(addAmounts(null, null)).toBeNull();
    expect(addAmounts(null, undefined)).toBeNull();
    expect(addAmounts(null, 0)).toBe(0);
    expect(addAmounts(null, 0.5)).toBe(0.5);
    expect(addAmounts(0.5, null)).toBe(0.5);
  });

  it("adds each call's tokens to the split and its money, if any, to the run's", () => {
    const first = addCall(NOTHING_SPENT, { promptTokens: 30, completionTokens: 8 }, null);
    expect(first).toEqual({ inputTokens: 30, outputTokens: 8, amount: null });
    const second = addCall(first, { promptTokens: 50, completionTokens: 12 }, 0.00023);
    expect(second).toEqual({ inputTokens: 80, outputTokens: 20, amount: 0.00023 });
    // A call recorded before calls priced themselves has no amount: it adds tokens only.
    expect(addCall(second, { promptTokens: 1, completionTokens: 1 }, undefined)).toEqual({
      inputTokens: 81,
      outputTokens: 21,
      amount: 0.00023,
    });
    expect(NOTHING_SPENT).toEqual({ inputTokens: 0, outputTokens: 0, amount: null });
  });
});

import { CronExpressionError, cronExpressionProblem, parseCronExpression } from '../../common/cron-expression';

const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

describe('parseCronExpression', () => {
  it('reads values, ranges, lists and wildcards into the values each field matches', () => {
    expect(parseCronExpression('0 9 * * 1-5')).toEqual({
      minute: [0],
      hour: [9],
      dayOfMonth: range(1, 31),
      month: range(1, 12),
      dayOfWeek: [1, 2, 3, 4, 5],
    });
    expect(parseCronExpression('5,30,15 8-10,22 1,15 6 0')).toMatchObject({
      minute: [5, 15, 30],
      hour: [8, 9, 10, 22],
      dayOfMonth: [1, 15],
      month: [6],
      dayOfWeek: [0],
    });
  });

  it('reads steps on a wildcard, a range and a starting value', () => {
    expect(parseCronExpression('*/15 * * * *').minute).toEqual([0, 15, 30, 45]);
    expect(parseCronExpression('1-10/3 * * * *').minute).toEqual([1, 4, 7, 10]);
    expect(parseCronExpression('50/4 * * * *').minute).toEqual([50, 54, 58]);
    expect(parseCronExpression('0 0 1 */3 *').month).toEqual([1, 4, 7, 10]);
  });

  it('reads month and weekday names in any case, short or full', () => {
    const fields = parseCronExpression('0 0 * jan-Mar,DECEMBER MON-fri');
    expect(fields.month).toEqual([1, 2, 3, 12]);
    expect(fields.dayOfWeek).toEqual([1, 2, 3, 4, 5]);
    expect(parseCronExpression('0 0 * * Sunday,SAT').dayOfWeek).toEqual([0, 6]);
  });

  it('takes 7 as Sunday, like 0', () => {
    expect(parseCronExpression('0 0 * * 7').dayOfWeek).toEqual([0]);
    expect(parseCronExpression('0 0 * * 5-7').dayOfWeek).toEqual([0, 5, 6]);
    expect(parseCronExpression('0 0 * * 0-7').dayOfWeek).toEqual(range(0, 6));
  });

  it('ignores surrounding and repeated whitespace', () => {
    expect(parseCronExpression('  0\t9  * *   1 ')).toMatchObject({ minute: [0], hour: [9], dayOfWeek: [1] });
  });

  it.each([
    ['0 9 * *', /expected 5 fields.*got 4/],
    ['0 0 9 * * 1', /expected 5 fields.*got 6/],
    ['', /got 0/],
    ['@daily', /got 1/],
    ['60 * * * *', /^minute: 60 is outside 0-59$/],
    ['0 24 * * *', /^hour: 24 is outside 0-23$/],
    ['0 0 0 * *', /^day of month: 0 is outside 1-31$/],
    ['0 0 32 * *', /^day of month: 32 is outside 1-31$/],
    ['0 0 * 13 *', /^month: 13 is outside 1-12$/],
    ['0 0 * 0 *', /^month: 0 is outside 1-12$/],
    ['0 0 * * 8', /^day of week: 8 is outside 0-7$/],
    ['0 0 * * 5-1', /^day of week: range 5-1 runs backwards$/],
    ['0 0 * * FRI-MON', /^day of week: range FRI-MON runs backwards$/],
    ['*/0 * * * *', /^minute: step 0 is outside 1-60$/],
    ['*/61 * * * *', /^minute: step 61 is outside 1-60$/],
    ['*/x * * * *', /^minute: step "x" is not a number$/],
    ['1/2/3 * * * *', /^minute: "1\/2\/3" is not a value, range or step$/],
    ['1,,2 * * * *', /^minute: "" is not a value, range or step$/],
    ['1-2-3 * * * *', /^minute: "1-2-3" is not a range$/],
    ['-1 * * * *', /^minute: "-1" is not a range$/],
    ['5- * * * *', /^minute: "5-" is not a range$/],
    ['+5 * * * *', /^minute: "\+5" is not a number$/],
    ['1.5 * * * *', /^minute: "1.5" is not a number$/],
    ['0 0 * * MON#1', /^day of week: "MON#1" is not a number or a name like MON$/],
    ['0 0 L * *', /^day of month: "L" is not a number$/],
    ['0 0 ? * *', /^day of month: "\?" is not a number$/],
    ['0 0 * * TUES', /^day of week: "TUES" is not a number or a name like MON$/],
    ['0 0 * JAN MO', /^day of week: "MO" is not a number or a name like MON$/],
    ['0 MON * * *', /^hour: "MON" is not a number$/],
  ])('refuses %j, naming the field and the reason', (expression, reason) => {
    expect(() => parseCronExpression(expression)).toThrow(CronExpressionError);
    expect(cronExpressionProblem(expression)).toMatch(reason);
  });

  it('refuses a day that no chosen month has, since such a job would never run', () => {
    expect(cronExpressionProblem('0 0 31 2 *')).toBe('never fires: no chosen month has day 31');
    expect(cronExpressionProblem('0 0 30,31 2 *')).toBe('never fires: no chosen month has day 30');
    expect(cronExpressionProblem('0 0 31 4,6,9,11 *')).toMatch(/never fires/);
    // February 29 exists in leap years; day 31 of a list with one long month fires in that month.
    expect(cronExpressionProblem('0 0 29 2 *')).toBeNull();
    expect(cronExpressionProblem('0 0 31 2,3 *')).toBeNull();
  });

  it('reports no problem for a valid expression', () => {
    for (const expression of ['* * * * *', '0 9 * * 1-5', '30 2 1-7 * MON', '0 */6 * * *', '0 0 1 JAN *']) {
      expect(cronExpressionProblem(expression)).toBeNull();
    }
  });
});

/**
 * Checks a five-field cron expression (minute hour day-of-month month day-of-week) before it
 * reaches Temporal, so a mistake is answered with the field and the reason. The syntax is the part
 * of the classic crontab that Temporal's schedule parser reads the same way: `*`, values, ranges
 * `a-b`, steps (`*`, `a-b` or `a` followed by `/n`; `a/n` runs from a to the field's end), comma
 * lists, and English month and weekday names (`JAN`, `MON`, full names too, any case). Temporal's quirks are refused rather
 * than passed on: `#` starts a comment there (so `MON#1` silently means every Monday), `L`, `W`,
 * `?`, signs and `@daily`-style shorthands. Pure.
 */

export class CronExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CronExpressionError';
  }
}

/** The values each field matches, ascending and without repeats; Sunday is 0 (a 7 is folded into it). */
export interface CronFields {
  minute: number[];
  hour: number[];
  dayOfMonth: number[];
  month: number[];
  dayOfWeek: number[];
}

interface FieldRule {
  key: keyof CronFields;
  label: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** Value of names[0]: 1 for months (JAN = 1), 0 for weekdays (SUN = 0). */
  firstNameValue?: number;
}

const MONTH_NAMES = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
] as const;
const WEEKDAY_NAMES = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;

const RULES: readonly FieldRule[] = [
  { key: 'minute', label: 'minute', min: 0, max: 59 },
  { key: 'hour', label: 'hour', min: 0, max: 23 },
  { key: 'dayOfMonth', label: 'day of month', min: 1, max: 31 },
  { key: 'month', label: 'month', min: 1, max: 12, names: MONTH_NAMES, firstNameValue: 1 },
  { key: 'dayOfWeek', label: 'day of week', min: 0, max: 7, names: WEEKDAY_NAMES, firstNameValue: 0 },
];

/** Longest day of each month in any year (February 29 exists in leap years). */
const LONGEST_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function parseValue(text: string, rule: FieldRule): number {
  let value: number | undefined;
  if (/^\d{1,2}$/.test(text)) {
    value = Number(text);
  } else if (rule.names && /^[A-Za-z]{3,}$/.test(text)) {
    const upper = text.toUpperCase();
    // Three letters or the full name: "MON", "Monday"; not "MO" or "TUES".
    const index = rule.names.findIndex((name) => name === upper || name.slice(0, 3) === upper);
    if (index >= 0) value = index + rule.firstNameValue!;
  }
  if (value === undefined) {
    const allowed = rule.names ? `a number or a name like ${rule.names[1]!.slice(0, 3)}` : 'a number';
    throw new CronExpressionError(`${rule.label}: "${text}" is not ${allowed}`);
  }
  if (value < rule.min || value > rule.max) throw new CronExpressionError(`${rule.label}: ${value} is outside ${rule.min}-${rule.max}`);
  return value;
}

function parseItem(item: string, rule: FieldRule, into: Set<number>): void {
  const [base, stepText, extra] = item.split('/');
  if (extra !== undefined || base === undefined || base === '')
    throw new CronExpressionError(`${rule.label}: "${item}" is not a value, range or step`);
  let step = 1;
  if (stepText !== undefined) {
    if (!/^\d{1,3}$/.test(stepText)) throw new CronExpressionError(`${rule.label}: step "${stepText}" is not a number`);
    step = Number(stepText);
    const span = rule.max - rule.min + 1;
    if (step < 1 || step > span) throw new CronExpressionError(`${rule.label}: step ${step} is outside 1-${span}`);
  }
  let start: number;
  let end: number;
  if (base === '*') {
    [start, end] = [rule.min, rule.max];
  } else {
    const bounds = base.split('-');
    if (bounds.length > 2 || bounds.includes('')) throw new CronExpressionError(`${rule.label}: "${base}" is not a range`);
    start = parseValue(bounds[0]!, rule);
    // `a/n` runs from a to the field's end.
    end = bounds.length === 2 ? parseValue(bounds[1]!, rule) : stepText !== undefined ? rule.max : start;
    if (end < start) throw new CronExpressionError(`${rule.label}: range ${base} runs backwards`);
  }
  for (let v = start; v <= end; v += step) into.add(v);
}

function parseField(text: string, rule: FieldRule): number[] {
  const values = new Set<number>();
  for (const item of text.split(',')) parseItem(item, rule, values);
  if (rule.key === 'dayOfWeek' && values.delete(7)) values.add(0);
  return [...values].sort((a, b) => a - b);
}

/**
 * Parses an expression or throws CronExpressionError saying which field is wrong and why. Also
 * refuses an expression that can never fire (`0 0 31 2 *`): Temporal would accept it and never run it.
 */
export function parseCronExpression(expression: string): CronFields {
  const parts = expression
    .trim()
    .split(/\s+/)
    .filter((p) => p !== '');
  if (parts.length !== 5) {
    throw new CronExpressionError(`expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  }
  const fields = {} as CronFields;
  RULES.forEach((rule, i) => {
    fields[rule.key] = parseField(parts[i]!, rule);
  });
  const longestChosenMonth = Math.max(...fields.month.map((m) => LONGEST_MONTH[m - 1]!));
  if (fields.dayOfMonth[0]! > longestChosenMonth) {
    throw new CronExpressionError(`never fires: no chosen month has day ${fields.dayOfMonth[0]}`);
  }
  return fields;
}

/** The reason an expression is refused, or null when it is valid. */
export function cronExpressionProblem(expression: string): string | null {
  try {
    parseCronExpression(expression);
    return null;
  } catch (err) {
    if (err instanceof CronExpressionError) return err.message;
    throw err;
  }
}

import { firstUnstorableChar } from '../common/storable-text';

/** Deeper request values than this are refused: no shape the API takes comes near it. */
const MAX_INPUT_DEPTH = 64;

export type InputProblem = { path: string[]; reason: 'unstorable' | 'too_deep' };

/**
 * The first place in a parsed request value (JSON body, query, path, form fields) that the stores
 * could not hold: a key or string with a NUL or a lone surrogate, or nesting past MAX_INPUT_DEPTH.
 * Iterative, so a hostile nesting depth cannot exhaust the stack.
 */
export function findInputProblem(value: unknown): InputProblem | undefined {
  const pending: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (firstUnstorableChar(current) >= 0) return { path, reason: 'unstorable' };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= MAX_INPUT_DEPTH) return { path, reason: 'too_deep' };
    const entries = Array.isArray(current) ? current.map((v, i) => [String(i), v] as const) : Object.entries(current);
    for (const [key, child] of entries) {
      if (firstUnstorableChar(key) >= 0) return { path: [...path, key], reason: 'unstorable' };
      pending.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}

export const problemMessage = (reason: InputProblem['reason']) =>
  reason === 'unstorable'
    ? 'text must not contain NUL (U+0000) or unpaired surrogate characters'
    : `nested deeper than ${MAX_INPUT_DEPTH} levels`;

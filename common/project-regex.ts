import { RE2JS } from 're2js';

/** A trigger's `project_regex`: RE2 (linear time, whatever the pattern), bounded in length. */
export const PROJECT_REGEX_MAX_CHARS = 500;

/** Why the pattern cannot be used, or null when it compiles. */
export function projectRegexProblem(pattern: string): string | null {
  if (pattern.length > PROJECT_REGEX_MAX_CHARS) return `at most ${PROJECT_REGEX_MAX_CHARS} characters`;
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (err) {
    return `not a valid RE2 regular expression (${err instanceof Error ? err.message : String(err)}); backreferences and lookaround are not supported`;
  }
}

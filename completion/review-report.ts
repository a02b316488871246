import type { IssueCounts } from './review-rules';

/**
 * What the `llm` review processor asks of the model. The findings are counted from the answer
 * (countSeverities), so the instruction fixes how a finding line starts.
 */
export const REVIEW_INSTRUCTIONS = [
  'You are reviewing a code change given as a unified diff (in the message or an attached file).',
  'Review only what the change adds or modifies; use the surrounding context to understand it.',
  'List each finding on its own line that starts with exactly one severity tag, then `file:line`, the problem and a concrete fix:',
  '[critical] src/db.ts:42 User input is concatenated into SQL (injection). Use a parameterised query.',
  'Severities: [critical] for bugs, security vulnerabilities, data loss or crashes; [warning] for likely problems, missing error',
  'handling, risky or hard-to-maintain code; [info] for style, naming, documentation and small improvements.',
  'Use these tags only at the start of finding lines, nowhere else. Group nothing under headings that repeat a tag.',
  'If you find no problem, write "No issues found." and no tags.',
  'End with a short summary of the change and of the most important findings.',
].join('\n');

// A finding line: optional list marker, optional emphasis or code markup, then the tag.
const FINDING_LINE = /^\s*(?:>\s*)?(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__|\*|_|`)?\[(critical|warning|info)\]/i;

/**
 * Findings in a model's review, by severity: lines (list items too) that start with
 * `[critical]`, `[warning]` or `[info]`, in any case. Lines inside fenced code blocks are the
 * model quoting code, not findings.
 */
export function countSeverities(markdown: string): IssueCounts {
  const counts: IssueCounts = { critical: 0, warning: 0, info: 0 };
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const tag = FINDING_LINE.exec(line)?.[1];
    if (tag) counts[tag.toLowerCase() as keyof IssueCounts]++;
  }
  return counts;
}

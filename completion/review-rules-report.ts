/** The report of the `rules` review processor: Markdown, one list item per finding. */
import type { Finding, IssueCounts, ReviewMode } from './review-rule-table';

/** Findings listed in the report; the rest are counted (all of them are in `findings`). */
const REPORT_LIMIT = 200;

export function renderReport(
  findings: Finding[],
  counts: IssueCounts,
  filesReviewed: number,
  linesAdded: number,
  mode: ReviewMode,
): string {
  const lines = [
    '## Code review: static checks (no language model)',
    '',
    `Reviewed ${filesReviewed} file${filesReviewed === 1 ? '' : 's'} (${linesAdded} added line${linesAdded === 1 ? '' : 's'}) with ${mode === 'security' ? 'the security checks only' : 'all checks'}.`,
    '',
    `Issues found: **${counts.critical} critical**, **${counts.warning} warning**, **${counts.info} info**.`,
  ];
  if (findings.length === 0) {
    lines.push('', 'No issues found by the static checks.');
  } else {
    lines.push('', ...findings.slice(0, REPORT_LIMIT).map((f) => `- [${f.severity}] \`${f.file}:${f.line}\` ${f.message} (\`${f.rule}\`)`));
    if (findings.length > REPORT_LIMIT)
      lines.push('', `… and ${findings.length - REPORT_LIMIT} more findings, listed in the review artifact.`);
  }
  lines.push('', "_Only added lines are checked, one at a time: these checks do not judge the change's logic._");
  return lines.join('\n');
}

/**
 * The `rules` review processor: the diff read (review-diff.ts), each added line checked against the
 * rule table (review-rule-table.ts), the findings rendered (review-rules-report.ts). No model, no I/O.
 */
import { NotADiffError, readDiffFiles } from './review-diff';
import { checkLine, countFindings, type Finding, type IssueCounts, type ReviewMode, SEVERITY_ORDER } from './review-rule-table';
import { renderReport } from './review-rules-report';

export interface RuleReview {
  findings: Finding[];
  issues_found: IssueCounts;
  /** Markdown; each finding is a list item starting with `[critical]`, `[warning]` or `[info]`. */
  report: string;
  files_reviewed: number;
  lines_added: number;
}

/**
 * Reviews every unified diff in `diffText` with the static rules (`security` mode: the security
 * rules only). Throws NotADiffError when the text holds no hunk.
 */
export function reviewDiff(diffText: string, options: { mode: ReviewMode }): RuleReview {
  const files = readDiffFiles(diffText);
  if (!files.some((f) => f.hunks > 0)) throw new NotADiffError();
  const findings: Finding[] = [];
  const reviewed = new Set<string>();
  let linesAdded = 0;
  for (const file of files) {
    if (file.hunks === 0 || file.deleted) continue;
    reviewed.add(file.path);
    linesAdded += file.added.length;
    for (const added of file.added) findings.push(...checkLine(file.path, added.line, added.text, options.mode));
  }
  findings.sort(
    (a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) || a.file.localeCompare(b.file) || a.line - b.line,
  );
  const counts = countFindings(findings);
  return {
    findings,
    issues_found: counts,
    report: renderReport(findings, counts, reviewed.size, linesAdded, options.mode),
    files_reviewed: reviewed.size,
    lines_added: linesAdded,
  };
}

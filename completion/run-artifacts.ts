/**
 * What review and import runs produce besides their answer, and the payloads of the events that
 * announce them (`review.completed`, `import.completed`).
 */
import type { Cost } from '../common/schemas/completions';

export interface IssueCounts {
  critical: number;
  warning: number;
  info: number;
}

export interface ImportOutcome {
  source_format?: string;
  /** Import items (every one has a title). */
  items: Array<{ title: string } & Record<string, unknown>>;
  errors: Array<{ row?: number; message: string }>;
  count: number;
}

/** The first pull/merge-request (or any http) link in the question names what was reviewed. */
function pullRequestUrl(question: string): string | null {
  const urls = question.match(/https?:\/\/[^\s<>()"']+/g) ?? [];
  return urls.find((u) => /\/(pull|pulls|merge_requests|changes|\+)\/\d+/.test(u)) ?? urls[0] ?? null;
}

export const reviewArtifact = (issuesFound: IssueCounts, findings: unknown[]): Record<string, unknown> => ({
  type: 'review_report',
  issues_found: { critical: issuesFound.critical, warning: issuesFound.warning, info: issuesFound.info },
  findings,
});

export const reviewEventData = (artifact: Record<string, unknown>, question: string, reportUrl: string, cost: Cost) => ({
  pr_url: pullRequestUrl(question),
  report_url: reportUrl,
  issues_found: artifact.issues_found,
  cost,
});

export const importArtifact = (outcome: ImportOutcome, sources: string[]): Record<string, unknown> => ({
  type: 'import',
  source: sources.join(', '),
  format: outcome.source_format ?? 'json',
  count: outcome.count,
  items: outcome.items,
  errors: outcome.errors,
});

export const importEventData = (artifact: Record<string, unknown>) => ({
  source: artifact.source,
  count: artifact.count,
  errors: artifact.errors,
});

/** The answer of a structured import: what was imported and what was refused. */
export function describeImport(outcome: ImportOutcome): string {
  const lines = [
    `Imported **${outcome.count}** item${outcome.count === 1 ? '' : 's'}${outcome.source_format ? ` from ${outcome.source_format}` : ''}.`,
  ];
  if (outcome.items.length > 0) {
    lines.push('', ...outcome.items.slice(0, 50).map((item, i) => `${i + 1}. ${String(item.title ?? '')}`));
    if (outcome.items.length > 50) lines.push(`… and ${outcome.items.length - 50} more.`);
  }
  if (outcome.errors.length > 0) {
    lines.push(
      '',
      `${outcome.errors.length} row${outcome.errors.length === 1 ? '' : 's'} not imported:`,
      ...outcome.errors.map((e) => `- ${e.row !== undefined ? `row ${e.row}: ` : ''}${e.message}`),
    );
  }
  return lines.join('\n');
}

import { invalid } from '../common/errors';
import { NotImportableError, parseImport } from './import-items';
import { composeOfflineAnswer } from './offline-answer';
import { NotADiffError } from './review-diff';
import { reviewDiff } from './review-rules';
import { EXTRACTIVE_PASSAGES } from './route-catalog';
import { describeImport, importArtifact, reviewArtifact } from './run-artifacts';
import type { AttachmentText, Passage, RunRoute } from './run-input';

/** What a processor answered: the answer, the passages it cites, and its artifacts. */
export interface ProcessorAnswer {
  answer: string;
  reference: Passage[];
  artifacts: Array<Record<string, unknown>>;
}

/** The text a processor works on: the question, then each attachment. */
const inputText = (question: string, attachments: AttachmentText[]) => [question, ...attachments.map((a) => a.text)].join('\n\n');

function review(mode: string, text: string): ProcessorAnswer {
  try {
    const reviewed = reviewDiff(text, { mode: mode === 'security' ? 'security' : 'default' });
    return { answer: reviewed.report, reference: [], artifacts: [reviewArtifact(reviewed.issues_found, reviewed.findings)] };
  } catch (err) {
    if (err instanceof NotADiffError) throw invalid(`review: ${err.message}`);
    throw err;
  }
}

function importItems(mode: string, question: string, attachments: AttachmentText[]): ProcessorAnswer {
  // Attached files are what is imported (the question then only asks for it); else the question.
  const sources =
    attachments.length > 0 ? attachments.map((a) => ({ name: a.name, text: a.text })) : [{ name: 'question', text: question }];
  const parsed = sources.map((source) => {
    try {
      return parseImport(source.text, { mode: mode === 'bugs' ? 'bugs' : 'requirements' });
    } catch (err) {
      if (err instanceof NotImportableError) throw invalid(`import: ${source.name}: ${err.message}`);
      throw err;
    }
  });
  const merged = {
    source_format: [...new Set(parsed.map((p) => p.source_format))].join(', '),
    items: parsed.flatMap((p) => p.items),
    errors: parsed.flatMap((p, i) =>
      p.errors.map((e) => (sources.length > 1 ? { ...e, message: `${sources[i]!.name}: ${e.message}` } : e)),
    ),
    count: parsed.reduce((sum, p) => sum + p.count, 0),
  };
  return {
    answer: describeImport(merged),
    reference: [],
    artifacts: [
      importArtifact(
        merged,
        sources.map((s) => s.name),
      ),
    ],
  };
}

/**
 * The answer of a processor that needs no model: rule-based review, structured import, or quoted
 * passages. Input it cannot work on (no diff, nothing importable) is an AppError 10001.
 */
export function answerWithoutModel({
  route,
  question,
  passages,
  attachments,
}: {
  route: RunRoute;
  question: string;
  passages: Passage[];
  attachments: AttachmentText[];
}): ProcessorAnswer {
  if (route.scenario === 'review') return review(route.mode, inputText(question, attachments));
  if (route.scenario === 'import') return importItems(route.mode, question, attachments);
  const composed = composeOfflineAnswer(question, passages, { maxPassages: EXTRACTIVE_PASSAGES[route.mode] ?? 3 });
  return { answer: composed.answer, reference: composed.reference, artifacts: [] };
}

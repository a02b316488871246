/**
 * Technical manuals: headings (numbered `3.2.1 Configure`, `4 Maintenance`, underlined lines, heading
 * blocks) give the sectionPath. A procedure — numbered steps (`1.`, `2)`, `Step 3:`, list items) with the
 * line that introduces it (`To replace the filter:`) and the notes and warnings that follow a step — is
 * its own chunk (role `procedure`, metadata `steps`), split between steps only when it exceeds the budget.
 * Other text is chunked naive-style.
 *
 * Single-level numbers with a dot (`1. Open the cover`) are steps, never headings; headings are numbered
 * without a trailing dot (`4 Maintenance`) or with several levels (`4.2 Filters`).
 */
import type { ChunkDraft, DocumentParser, ParserOptions } from '../document-model';
import { endsSentence, isTextLine, numberedHeading } from './shared/heading-text';
import { naiveChunks, unitChunks } from './shared/naive-chunks';
import { NumberingSequence } from './shared/numbering';
import { outline, type HeadingDetector } from './shared/outline';
import { linesPassage, passagesOf } from './shared/passages';
import { sourceItems, type SourceItem } from './shared/source-items';

/** `1. Open`, `2) Close`, `Step 3: Press`, `步骤4`, `5、` (but not `10.5 kg`). */
const STEP = /^(?:(\d{1,2})[.)]\s|Step\s+(\d{1,2})\b\s*[:.)-]?|步骤\s*(\d{1,2})\s*[:：.、]?|(\d{1,2})、)\s*\S/i;
/** Notes, warnings and cautions stay with the step they follow. */
const NOTE =
  /^(?:note|notes|warning|caution|important|tip|danger|attention|注意|警告|提示|小心|危险)\s*[:：!]|^(?:NOTE|WARNING|CAUTION|DANGER|IMPORTANT)\b|^⚠/i;

export const manualParser: DocumentParser = {
  id: 'manual',
  description:
    'Technical manuals: numbered heading hierarchy as the section path; procedures (numbered steps with their notes and warnings) kept together in one chunk when they fit; other text naive.',
  parse(doc, options) {
    return outline(sourceItems(doc), manualHeadings()).flatMap((section) =>
      segmentProcedures(section.body).flatMap((segment) =>
        segment.kind === 'text' ? naiveChunks(segment.items, section.path, options) : procedureChunks(segment, section.path, options),
      ),
    );
  },
};

function manualHeadings(): HeadingDetector {
  const numbering = new NumberingSequence();
  return (item, { items, index, atBoundary }) => {
    const text = item.kind === 'heading' || item.kind === 'line' ? item.text : undefined;
    if (text === undefined || (item.kind === 'line' && (!atBoundary || item.listItem))) return undefined;
    const numbered = numberedHeading(items, index, text);
    if (numbered && (numbered.number.parts.length > 1 || !numbered.number.dotted)) {
      const { number, title, remainder } = numbered;
      if (title && !remainder && /^\p{Lu}/u.test(title) && numbering.accept(number.parts)) {
        return { rank: number.parts.length, title: `${number.label} ${title}` };
      }
    }
    if (item.kind === 'heading') return { rank: item.level, title: item.text };
    return isTextLine(item) && item.underline ? { rank: item.underline, title: item.text } : undefined;
  };
}

/** One step with the notes and continuation paragraphs that belong to it. */
type Step = SourceItem[];
interface Procedure {
  kind: 'procedure';
  leadIn: SourceItem[];
  steps: Step[];
}
type Segment = { kind: 'text'; items: SourceItem[] } | Procedure;

/**
 * Blocks are paragraphs, except that a line opening a step starts a new block even mid-paragraph (plain
 * text often has all steps in one paragraph).
 */
function blocksOf(items: readonly SourceItem[]): SourceItem[][] {
  const blocks: SourceItem[][] = [];
  items.forEach((item, index) => {
    const previous = items[index - 1];
    const continues =
      isTextLine(item) &&
      isTextLine(previous) &&
      previous.paragraph === item.paragraph &&
      !(STEP.test(item.text) && endsSentence(previous.text));
    if (continues) blocks[blocks.length - 1]!.push(item);
    else blocks.push([item]);
  });
  return blocks;
}

function stepNumber(block: readonly SourceItem[]): number | 'item' | undefined {
  const first = block[0];
  if (!isTextLine(first)) return undefined;
  const match = STEP.exec(first.text);
  if (match) return Number(match[1] ?? match[2] ?? match[3] ?? match[4]);
  return first.listItem ? 'item' : undefined;
}

function isNote(block: readonly SourceItem[]): boolean {
  const first = block[0];
  return isTextLine(first) && NOTE.test(first.text);
}

function segmentProcedures(items: readonly SourceItem[]): Segment[] {
  const segments: Segment[] = [];
  let procedure: Procedure | undefined;
  let lastNumber: number | 'item' = 'item';
  /** Paragraphs after a step that join it only if the numbering goes on after them. */
  let pending: SourceItem[][] = [];

  const text = (): SourceItem[] => {
    const last = segments[segments.length - 1];
    if (last?.kind === 'text') return last.items;
    const created: SourceItem[] = [];
    segments.push({ kind: 'text', items: created });
    return created;
  };
  const closeProcedure = (): void => {
    procedure = undefined;
    for (const block of pending) text().push(...block);
    pending = [];
  };

  for (const block of blocksOf(items)) {
    const number = stepNumber(block);
    const continuesNumbering = number !== undefined && (number === 'item' || lastNumber === 'item' || number === lastNumber + 1);
    if (procedure && number !== undefined && continuesNumbering) {
      procedure.steps[procedure.steps.length - 1]!.push(...pending.flat());
      pending = [];
      procedure.steps.push([...block]);
      lastNumber = number;
    } else if (number !== undefined && (number === 'item' || number === 1)) {
      closeProcedure();
      procedure = { kind: 'procedure', leadIn: takeLeadIn(segments), steps: [[...block]] };
      segments.push(procedure);
      lastNumber = number;
    } else if (procedure && isNote(block) && pending.length === 0) {
      procedure.steps[procedure.steps.length - 1]!.push(...block);
    } else if (procedure) {
      pending.push(block);
    } else {
      text().push(...block);
    }
  }
  closeProcedure();
  return segments;
}

/** The paragraph just before the first step, when it introduces the steps (`To replace the filter:`). */
function takeLeadIn(segments: Segment[]): SourceItem[] {
  const last = segments[segments.length - 1];
  if (last?.kind !== 'text') return [];
  const lastLine = last.items[last.items.length - 1];
  if (!isTextLine(lastLine) || !/[:：]$/.test(lastLine.text)) return [];
  const start = last.items.findIndex((item) => isTextLine(item) && item.paragraph === lastLine.paragraph);
  const leadIn = last.items.splice(start);
  if (last.items.length === 0) segments.pop();
  return leadIn;
}

function procedureChunks(procedure: Procedure, path: readonly string[], options: ParserOptions): ChunkDraft[] {
  // One unit per step (lead-in first), so a long procedure breaks between steps and never inside one.
  const stepTexts = [procedure.leadIn, ...procedure.steps]
    .filter((items) => items.length > 0)
    .map((items) =>
      passagesOf(items)
        .map((passage) => passage.text)
        .join('\n'),
    );
  const page = procedure.steps[0]?.[0]?.page;
  return unitChunks([linesPassage(stepTexts, page)], path, options, {
    role: 'procedure',
    metadata: { steps: procedure.steps.length },
  });
}

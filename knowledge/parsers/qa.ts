/**
 * Question-and-answer documents (FAQs, exported help desks): each pair is one chunk (role `qa`, metadata
 * `question`), its content the question then the answer. Pairs come from `Q:`/`A:` and `Question:`/
 * `Answer:` lines (and 问：/答：), from headings ending in `?` followed by answer paragraphs, from paragraphs
 * whose first line is a question (when the document has no explicit `Q:` lines), and from two-column
 * tables. Other headings give the sectionPath; text outside any pair is chunked naive-style. An answer
 * longer than the budget is split, and every piece repeats the question (`part`/`parts`); a question
 * longer than half the budget is shortened in the content (never in metadata) to leave room for answer.
 */
import type { ChunkDraft, DocumentParser, ParserOptions } from '../document-model';
import { countTokens, truncateToTokens } from '../../common/tokens';
import { unitDrafts } from './shared/drafts';
import { isTextLine } from './shared/heading-text';
import { naiveChunks } from './shared/naive-chunks';
import { outline } from './shared/outline';
import { packPassages } from './shared/packing';
import { passagesOf } from './shared/passages';
import { sourceItems, type SourceItem, type TextLine } from './shared/source-items';
import { hasHeaderRow } from './shared/table-rows';

const QUESTION_LABEL = /^(?:Q\d*|Question\s*\d*|问题?\s*\d*|提问)\s*[:：]\s*/i;
const ANSWER_LABEL = /^(?:A\d*|Ans(?:wer)?\s*\d*|答案?|回答)\s*[:：]\s*/i;
const ENDS_WITH_QUESTION_MARK = /[?？]\s*$/;

interface Pair {
  question: string;
  answer: SourceItem[];
}

type Segment = { kind: 'text'; items: SourceItem[] } | { kind: 'pair'; pair: Pair };

export const qaParser: DocumentParser = {
  id: 'qa',
  description:
    'Question-and-answer documents: one chunk per pair (Q:/A: lines, question headings, question paragraphs, two-column tables) with the question in metadata; other headings give the section path.',
  parse(doc, options) {
    const items = sourceItems(doc);
    const labelled = items.some((item) => isTextLine(item) && QUESTION_LABEL.test(item.text));
    const sections = outline(items, (item) =>
      item.kind === 'heading' && !ENDS_WITH_QUESTION_MARK.test(item.text) ? { rank: item.level, title: item.text } : undefined,
    );
    return sections.flatMap((section) =>
      segmentPairs(section.body, labelled).flatMap((segment) =>
        segment.kind === 'text' ? naiveChunks(segment.items, section.path, options) : pairChunks(segment.pair, section.path, options),
      ),
    );
  },
};

/** Splits a section's items into pairs and the text between them, in reading order. */
function segmentPairs(items: readonly SourceItem[], labelled: boolean): Segment[] {
  const segments: Segment[] = [];
  let pair: (Pair & { answering: boolean }) | undefined;
  let loose: SourceItem[] = [];

  const open = (question: string, answering: boolean): void => {
    close();
    pair = { question, answer: [], answering };
  };
  const close = (): void => {
    if (loose.length > 0) segments.push({ kind: 'text', items: loose });
    loose = [];
    if (pair) segments.push({ kind: 'pair', pair: { question: oneLine(pair.question), answer: pair.answer } });
    pair = undefined;
  };

  const addLine = (line: TextLine): void => {
    const question = QUESTION_LABEL.exec(line.text);
    const answer = ANSWER_LABEL.exec(line.text);
    if (question) {
      open(line.text.slice(question[0].length), false);
    } else if (answer && pair && !pair.answering) {
      pair.answering = true;
      const rest = line.text.slice(answer[0].length);
      if (rest) pair.answer.push({ ...line, text: rest });
    } else if (!labelled && line.first && !line.listItem && ENDS_WITH_QUESTION_MARK.test(line.text)) {
      // Without explicit labels, a paragraph whose first line asks something opens a pair.
      open(line.text, true);
    } else if (!pair) {
      loose.push(line);
    } else if (pair.answering) {
      pair.answer.push(line);
    } else {
      pair.question += `\n${line.text}`;
    }
  };

  for (const item of items) {
    if (item.kind === 'heading') {
      open(item.text, true);
    } else if (item.kind === 'table' && isTwoColumn(item.rows)) {
      close();
      const rows = hasHeaderRow(item.rows) ? item.rows.slice(1) : item.rows;
      for (const row of rows.filter((cells) => cells[0]?.trim())) {
        segments.push({ kind: 'pair', pair: { question: oneLine(row[0]!), answer: [answerLine(row[1] ?? '', item.page)] } });
      }
    } else if (!isTextLine(item)) {
      (pair ? pair.answer : loose).push(item);
    } else {
      addLine(item);
    }
  }
  close();
  return segments;
}

/** A question wrapped over lines reads as one line, in the chunk and in its metadata. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function isTwoColumn(rows: readonly string[][]): boolean {
  return rows.length > 0 && rows.every((row) => row.filter((cell) => cell.trim()).length <= 2) && rows.some((row) => row.length === 2);
}

function answerLine(text: string, page?: number): TextLine {
  return { kind: 'line', text: text.trim(), indent: 0, paragraph: -1, listItem: false, first: true, last: true, page };
}

function pairChunks(pair: Pair, path: string[], options: ParserOptions): ChunkDraft[] {
  // The question heads every piece; one longer than half the budget is shortened there (metadata keeps it whole).
  const heading = truncateToTokens(pair.question, Math.floor(options.chunkTokens / 2));
  const prefix = `${heading === pair.question ? heading : `${heading.trimEnd()}…`}\n`;
  const answerBudget = Math.max(1, options.chunkTokens - countTokens(prefix) - 1);
  const pieces = packPassages(passagesOf(pair.answer), { chunkTokens: answerBudget, overlapTokens: 0 });
  const packed = pieces.length > 0 ? pieces : [{ text: '', pages: [] }];
  const withQuestion = packed.map((piece) => ({ ...piece, text: `${prefix}${piece.text}`.trim() }));
  return unitDrafts(withQuestion, path, { role: 'qa', metadata: { question: pair.question } });
}

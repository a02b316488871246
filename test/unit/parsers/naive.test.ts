import type { Block, ChunkDraft, ExtractedDocument } from '../../../knowledge/document-model';
import { naiveParser } from '../../../knowledge/parsers/naive';
import { splitSentences } from '../../../knowledge/parsers/shared/sentences';
import { countTokens } from '../../../common/tokens';
import { expectWellFormed, fixtureText, flat, plainParagraphs, sentenceRun, sentencesOf, words } from './fixture-documents';

/**
 * GPL-3 as an HTML or DOCX extractor delivers it: real heading blocks (title, Preamble, TERMS AND
 * CONDITIONS, the numbered terms) and unwrapped paragraphs. Also returns each section's paragraphs.
 */
function gplWithHeadings(): { doc: ExtractedDocument; sections: Map<string, string[]> } {
  const blocks: Block[] = [];
  const sections = new Map<string, string[]>();
  const path: string[] = [];
  const heading = (level: number, text: string): void => {
    path.length = level - 1;
    path.push(text);
    blocks.push({ kind: 'heading', level, text });
  };
  for (const raw of plainParagraphs(fixtureText('GPL-3'))) {
    const text = raw.replace(/\s*\n\s*/g, ' ').trim();
    if (text.startsWith('GNU GENERAL PUBLIC LICENSE')) heading(1, 'GNU General Public License');
    else if (['Preamble', 'TERMS AND CONDITIONS', 'END OF TERMS AND CONDITIONS'].includes(text)) heading(2, text);
    else if (/^\d+\. [A-Z][^.]*\.$/.test(text)) heading(3, text);
    else {
      blocks.push({ kind: 'paragraph', text });
      const key = path.join(' > ');
      sections.set(key, [...(sections.get(key) ?? []), text]);
    }
  }
  return { doc: { blocks }, sections };
}

/** GPL-3's longest sentence is 141 tokens: every sentence fits, so every cut must fall between sentences. */
const options = { chunkTokens: 160, overlapTokens: 48 };

describe('naive parser', () => {
  const { doc, sections } = gplWithHeadings();
  const chunks = naiveParser.parse(doc, options);

  it('keeps every chunk within the token budget, with exact token counts', () => {
    expectWellFormed(chunks, options);
    expect(chunks.length).toBeGreaterThan(50);
  });

  it('puts headings in the sectionPath, never in chunks of their own, and no chunk spans two sections', () => {
    const sourceCode = chunks.find((chunk) => chunk.content.startsWith('The "source code" for a work means'));
    expect(sourceCode?.sectionPath).toEqual(['GNU General Public License', 'TERMS AND CONDITIONS', '1. Source Code.']);
    expect(chunks.some((chunk) => /^\d+\. [A-Z][^.]*\.$/.test(chunk.content))).toBe(false);
    for (const chunk of chunks) {
      const section = sections.get(chunk.sectionPath.join(' > '));
      expect(section).toBeDefined();
      expect(flat(section!.join(' '))).toContain(flat(chunk.content));
    }
  });

  it('keeps a paragraph that fits in one chunk whole', () => {
    for (const paragraphs of sections.values()) {
      for (const paragraph of paragraphs.filter((text) => countTokens(text) <= options.chunkTokens)) {
        expect(chunks.some((chunk) => flat(chunk.content).includes(flat(paragraph)))).toBe(true);
      }
    }
  });

  it('cuts only between sentences, and overlaps neighbours by whole trailing sentences within overlapTokens', () => {
    const longest = Math.max(...[...sections.values()].flatMap((paragraphs) => sentencesOf(paragraphs).map((s) => countTokens(s))));
    expect(longest).toBeLessThanOrEqual(options.chunkTokens);
    let overlapping = 0;
    let neighbours = 0;
    for (let index = 0; index < chunks.length; index++) {
      const chunk = chunks[index]!;
      const sentences = sentencesOf(sections.get(chunk.sectionPath.join(' > '))!);
      const run = sentenceRun(chunk.content, sentences);
      expect({ chunk: chunk.content.slice(0, 60), whole: run !== undefined }).toEqual({ chunk: chunk.content.slice(0, 60), whole: true });

      const next = chunks[index + 1];
      if (!next || next.sectionPath.join() !== chunk.sectionPath.join()) continue;
      const nextRun = sentenceRun(next.content, sentences)!;
      neighbours++;
      // The next chunk starts inside this one (overlap) or right after it (no text skipped).
      expect(nextRun.start).toBeGreaterThan(run!.start);
      expect(nextRun.start).toBeLessThanOrEqual(run!.end);
      const repeated = sentences.slice(nextRun.start, run!.end);
      if (repeated.length > 0) {
        overlapping++;
        expect(countTokens(repeated.join(' '))).toBeLessThanOrEqual(options.overlapTokens);
        // (Compared without spaces: some sentences follow each other without one, `does.> Copyright`.)
        expect(chunk.content.replace(/\s/g, '').endsWith(repeated.join('').replace(/\s/g, ''))).toBe(true);
      }
    }
    expect(neighbours).toBeGreaterThan(20);
    // Overlap is left out only where the last sentence alone is over the overlap budget.
    expect(overlapping / neighbours).toBeGreaterThan(0.5);
  });

  it('cuts a sentence longer than the budget by tokens, losing nothing', () => {
    const disclaimer = plainParagraphs(fixtureText('GPL-3')).find((text) => text.includes('THERE IS NO WARRANTY FOR THE PROGRAM'))!;
    const budget = { chunkTokens: 24, overlapTokens: 8 };
    const pieces = naiveParser.parse({ blocks: [{ kind: 'paragraph', text: disclaimer }] }, budget);
    expectWellFormed(pieces, budget);
    expect(pieces.length).toBeGreaterThan(4);
    // Token-cut pieces are not whole sentences, so none is repeated as overlap.
    expect(pieces.flatMap((piece) => words(piece.content))).toEqual(words(disclaimer));
  });

  it('splits CJK text into sentences at 。！？ and packs whole sentences', () => {
    const paragraph =
      '现有电热水壶通常依靠蒸汽开关在水沸腾时断电。当壶内没有水时，蒸汽开关无法动作，只能依靠温控器在加热盘过热后断电。此时加热盘已经严重过热，容易损坏壶体！' +
      '能否在不增加水位传感器的情况下防止干烧？本发明给出了肯定的答案。有水时加热盘的热量被水吸收，温度上升缓慢；无水时温度迅速上升。控制器据此判断是否缺水。';
    expect(splitSentences(paragraph).slice(0, 4)).toEqual([
      '现有电热水壶通常依靠蒸汽开关在水沸腾时断电。',
      '当壶内没有水时，蒸汽开关无法动作，只能依靠温控器在加热盘过热后断电。',
      '此时加热盘已经严重过热，容易损坏壶体！',
      '能否在不增加水位传感器的情况下防止干烧？',
    ]);
    const budget = { chunkTokens: 60, overlapTokens: 30 };
    const cjk = naiveParser.parse(
      {
        blocks: [
          { kind: 'heading', level: 2, text: '背景技术' },
          { kind: 'paragraph', text: paragraph },
        ],
      },
      budget,
    );
    expectWellFormed(cjk, budget);
    expect(cjk.length).toBeGreaterThan(2);
    for (const chunk of cjk) {
      expect(chunk.sectionPath).toEqual(['背景技术']);
      expect(sentenceRun(chunk.content, sentencesOf([paragraph]))).toBeDefined();
      expect(chunk.content).toMatch(/[。！？]$/);
    }
  });

  it('renders tables as rows of cells and keeps the page of PDF paragraphs', () => {
    const pdf: ExtractedDocument = {
      blocks: [
        { kind: 'paragraph', text: 'Quarterly revenue by region is shown below.', page: 4 },
        {
          kind: 'table',
          rows: [
            ['Region', 'Q1', 'Q2'],
            ['North', '1.2', '1.4'],
            ['South', '0.9', '1.1'],
          ],
          page: 4,
        },
        { kind: 'paragraph', text: 'Both regions grew in the second quarter.', page: 5 },
      ],
    };
    const [chunk, ...rest] = naiveParser.parse(pdf, options);
    expect(rest).toHaveLength(0);
    expect(chunk!.content).toBe(
      'Quarterly revenue by region is shown below.\n\nRegion | Q1 | Q2\nNorth | 1.2 | 1.4\nSouth | 0.9 | 1.1\n\nBoth regions grew in the second quarter.',
    );
    expect(chunk!.metadata).toEqual({ page: 4, last_page: 5 });
  });

  it('gives the same chunks for the same input', () => {
    const again: ChunkDraft[] = naiveParser.parse(gplWithHeadings().doc, options);
    expect(again).toEqual(chunks);
  });
});

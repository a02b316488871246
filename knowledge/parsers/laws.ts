/**
 * Statutes, regulations, contracts and licences. Parts, chapters, sections and articles (`PART II`,
 * `Chapter 2`, `Section 3`, `Article 12`, `Art. 5`, `§ 7`, `第一章`, `第三条`, outline numbers such as
 * `1.`, `1.1.`, `2.3.1`, display lines such as `TERMS AND CONDITIONS`, and heading blocks) form a
 * hierarchy. The text directly under a heading is one unit, quoted with its heading line.
 *
 * Choice: one article per chunk, never merged with its neighbours, so that every chunk answers to exactly
 * one citation. An article longer than chunkTokens is split between paragraphs and then sentences, with no
 * overlap (the pieces concatenate back to the article); every piece keeps the article's sectionPath and
 * carries `part`/`parts`. Headings with nothing of their own before their first sub-heading are not chunks;
 * they live on in the sectionPath. Text before the first heading is chunked naive-style.
 */
import type { DocumentParser } from '../document-model';
import { headingTitle, isDisplayLine, isTextLine, labelledHeading, numberedHeading, splitTitle } from './shared/heading-text';
import { naiveChunks, unitChunks } from './shared/naive-chunks';
import { NumberingSequence } from './shared/numbering';
import { hasSubsections, outline, type HeadingDetector, type HeadingMatch } from './shared/outline';
import { passagesOf } from './shared/passages';
import { sourceItems, type SourceItem } from './shared/source-items';
import { matchStructuralLabel, type LabelKind } from './shared/structural-labels';

/** Display lines head whole divisions (`TERMS AND CONDITIONS`); outline numbers rank from the article down. */
const RANK: Record<LabelKind | 'display' | 'enumerated', number> = {
  display: 0,
  part: 10,
  chapter: 20,
  section: 30,
  enumerated: 35,
  article: 40,
};
const OUTLINE_LEVEL_STEP = 5;

/** Heading blocks and underlined lines no pattern names rank by level between the named levels (h1 above parts). */
function levelRank(level: number): number {
  return level * 10 - 5;
}

/** Chinese enumerated headings: `一、总则`. */
const CHINESE_ENUMERATED = /^[一二三四五六七八九十]+、/;

export const lawsParser: DocumentParser = {
  id: 'laws',
  description:
    'Laws, regulations, contracts and licences: parts, chapters, sections and articles as a hierarchy; one article per chunk, split by sentences only when it exceeds chunkTokens.',
  parse(doc, options) {
    const items = sourceItems(doc);
    const sections = outline(items, legalHeadings(items), { keepHeadingLines: true });
    return sections.flatMap((section, index) => {
      if (section.title === undefined) return naiveChunks(section.body, [], options);
      if (!section.hasOwnText && hasSubsections(sections, index)) return [];
      return unitChunks(passagesOf(section.body), section.path, options, { role: 'article' });
    });
  },
};

function legalHeadings(items: readonly SourceItem[]): HeadingDetector {
  // Where articles carry their own label, numbered lines inside them (`1. The tenant shall`) are paragraphs.
  const labelledArticles = items.some(
    (item) => (item.kind === 'line' || item.kind === 'heading') && matchStructuralLabel(item.text)?.kind === 'article',
  );
  const numbering = new NumberingSequence();

  const fromText = (text: string, items: readonly SourceItem[], index: number): HeadingMatch | undefined => {
    const labelled = labelledHeading(items, index, text);
    if (labelled) return { rank: RANK[labelled.kind], title: labelled.title, extraLines: labelled.extraLines };
    if (CHINESE_ENUMERATED.test(text)) return { rank: RANK.enumerated, title: splitTitle(text).title || text.slice(0, 20) };
    if (labelledArticles) return undefined;
    const numbered = numberedHeading(items, index, text);
    if (!numbered || !(numbered.number.dotted || numbered.number.parts.length > 1)) return undefined;
    const { number, title, remainder } = numbered;
    // Untitled numbers (`5.2. If You initiate litigation...`) count only at a paragraph start.
    const titled = title !== '' && /^[\p{Lu}\p{Lo}"“'(]/u.test(title);
    const line = items[index];
    const untitled = !title && remainder !== '' && isTextLine(line) && line.first;
    if (!(titled || untitled) || !numbering.accept(number.parts)) return undefined;
    return {
      rank: RANK.article + OUTLINE_LEVEL_STEP * (number.parts.length - 1),
      title: headingTitle(number.label + (number.dotted ? '.' : ''), title),
    };
  };

  return (item, { items, index, atBoundary }) => {
    if (item.kind === 'heading') return fromText(item.text, items, index) ?? { rank: levelRank(item.level), title: item.text };
    if (!isTextLine(item) || !atBoundary) return undefined;
    const match = fromText(item.text, items, index);
    if (match) return match;
    if (!isDisplayLine(item)) return undefined;
    return { rank: item.underline ? levelRank(item.underline) : RANK.display, title: item.text };
  };
}

/**
 * Patents (English and Chinese): the abstract (role `abstract`); each claim its own chunk (role `claim`,
 * sectionPath `[..., 'Claim n']`, metadata `claim`, `depends_on`, `independent`), split only when one
 * claim exceeds chunkTokens; the description's sections (Technical Field, Background, Summary, Brief
 * Description of the Drawings, Detailed Description, 技术领域, 背景技术, 发明内容, 附图说明, 具体实施方式)
 * chunked naive-style under their sectionPath.
 */
import type { ChunkDraft, DocumentParser, ParserOptions } from '../document-model';
import { claimDependencies } from './shared/claim-references';
import { isTextLine, namesPattern } from './shared/heading-text';
import { naiveChunks, unitChunks } from './shared/naive-chunks';
import { outline, type HeadingDetector, type HeadingMatch } from './shared/outline';
import { passagesOf } from './shared/passages';
import { sourceItems, type SourceItem } from './shared/source-items';

type PatentPart = 'abstract' | 'claims' | 'description' | 'description-section';

const PATENT_HEADINGS: ReadonlyArray<[PatentPart, RegExp]> = [
  ['abstract', namesPattern(['abstract', 'abstract of the disclosure', '摘要', '说明书摘要'])],
  [
    'claims',
    namesPattern([
      'claims',
      'what is claimed is',
      'we claim',
      'i claim',
      'the invention claimed is',
      'it is claimed',
      '权利要求书',
      '权利要求',
    ]),
  ],
  ['description', namesPattern(['description', 'specification', '说明书'])],
  [
    'description-section',
    namesPattern([
      'technical field',
      'field( of the (invention|disclosure))?',
      'cross[- ]reference to related applications?',
      'background( of the invention| art)?',
      'description of the related art',
      '(brief )?summary( of the invention)?',
      '(brief )?description of (the )?drawings',
      'detailed description( of the invention)?',
      '(detailed )?description of (the )?(preferred )?embodiments?',
      '技术领域',
      '背景技术',
      '发明内容',
      '实用新型内容',
      '附图说明',
      '具体实施方式',
    ]),
  ],
];
const RANK: Record<PatentPart, number> = { abstract: 1, claims: 1, description: 1, 'description-section': 2 };
const INLINE_ABSTRACT = /^(Abstract|ABSTRACT|摘要)\s*[:：]\s*(\S.*)$/;
/** `1. A method...`, `2) The method...`, `3、根据权利要求...`. */
const CLAIM_START = /^(\d{1,3})\s*[.)．、]\s*(?=\S)/;

export const patentParser: DocumentParser = {
  id: 'patent',
  description:
    'Patents: abstract, one chunk per claim with the claims it depends on, and description sections (technical field, background, summary, drawings, detailed description) chunked naive-style.',
  parse(doc, options) {
    const kinds = new Map<string, PatentPart>();
    const sections = outline(sourceItems(doc), patentHeadings(kinds));
    return sections.flatMap((section) => {
      const kind = section.title === undefined ? undefined : kinds.get(section.path[0]!);
      if (kind === 'abstract') return naiveChunks(section.body, section.path, options, { role: 'abstract' });
      if (kind === 'claims' && section.path.length === 1) return claimChunks(section.body, section.path, options);
      return naiveChunks(section.body, section.path, options);
    });
  },
};

/**
 * Recognises the patent's section headings and records what kind of part each title opens. Description
 * sections sit under a `Description` heading when there is one, at the top otherwise.
 */
function patentHeadings(kinds: Map<string, PatentPart>): HeadingDetector {
  let openPart: PatentPart | undefined;
  const recognise = (text: string): HeadingMatch | undefined => {
    const inline = INLINE_ABSTRACT.exec(text);
    if (inline) {
      kinds.set('Abstract', 'abstract');
      openPart = 'abstract';
      return { rank: RANK.abstract, title: 'Abstract', remainder: inline[2] };
    }
    const title = text.replace(/\s*[:：]$/, '').trim();
    const kind = PATENT_HEADINGS.find(([, pattern]) => pattern.test(title.replace(/\s+/g, ' ')))?.[0];
    if (!kind) return undefined;
    // `CLAIMS` followed by `What is claimed is:` is one heading and a sentence that opens the claims.
    if (kind === 'claims' && openPart === 'claims') return undefined;
    if (kind === 'description-section') {
      kinds.set(title, kind);
      return { rank: openPart === 'description' ? RANK['description-section'] : RANK.description, title };
    }
    kinds.set(title, kind);
    openPart = kind;
    return { rank: RANK[kind], title };
  };
  return (item, { atBoundary }) => {
    if (item.kind === 'heading') return recognise(item.text) ?? { rank: RANK['description-section'], title: item.text };
    // Only whole lines that name a part count (`BACKGROUND`, `What is claimed is:`), so running text never does.
    return isTextLine(item) && atBoundary ? recognise(item.text) : undefined;
  };
}

interface Claim {
  number: number;
  items: SourceItem[];
}

/**
 * Claims start at `n.` numbers that continue the count from 1, at a paragraph start or after a line that
 * closed a sentence; anything else (a claim's sub-paragraphs, `(a)` steps) continues the current claim.
 */
function splitClaims(items: readonly SourceItem[]): { preamble: SourceItem[]; claims: Claim[] } {
  const preamble: SourceItem[] = [];
  const claims: Claim[] = [];
  items.forEach((item, index) => {
    const number = isTextLine(item) ? CLAIM_START.exec(item.text)?.[1] : undefined;
    const previous = items[index - 1];
    const atStart = isTextLine(item) && (item.first || !isTextLine(previous) || /[.;:。；：]$/.test(previous.text));
    if (number !== undefined && atStart && Number(number) === claims.length + 1) {
      claims.push({ number: Number(number), items: [item] });
    } else if (claims.length > 0) {
      claims[claims.length - 1]!.items.push(item);
    } else {
      preamble.push(item);
    }
  });
  return { preamble, claims };
}

function claimChunks(items: readonly SourceItem[], path: string[], options: ParserOptions): ChunkDraft[] {
  const { preamble, claims } = splitClaims(items);
  return [
    ...naiveChunks(preamble, path, options),
    ...claims.flatMap((claim) => {
      const passages = passagesOf(claim.items);
      const dependsOn = claimDependencies(passages.map((passage) => passage.text).join(' '), claim.number);
      return unitChunks(passages, [...path, `Claim ${claim.number}`], options, {
        role: 'claim',
        metadata: { claim: claim.number, depends_on: dependsOn, independent: dependsOn.length === 0 },
      });
    }),
  ];
}

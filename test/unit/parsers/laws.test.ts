import type { ChunkDraft } from '../../../knowledge/document-model';
import { lawsParser } from '../../../knowledge/parsers/laws';
import { countTokens } from '../../../common/tokens';
import { expectWellFormed, fixtureText, plainTextDocument, words } from './fixture-documents';

const options = { chunkTokens: 512, overlapTokens: 64 };

function parseLicence(name: string, chunkTokens = options.chunkTokens): ChunkDraft[] {
  return lawsParser.parse(plainTextDocument(fixtureText(name)), { ...options, chunkTokens });
}

function chunksAt(chunks: readonly ChunkDraft[], path: readonly string[]): ChunkDraft[] {
  return chunks.filter((chunk) => chunk.sectionPath.join('\u0000') === path.join('\u0000'));
}

/**
 * The document's words rebuilt from the chunks: a heading that is only a sectionPath entry (a chapter
 * with nothing of its own) is read where its section is entered; article headings are in the content.
 */
function rebuiltWords(chunks: readonly ChunkDraft[]): string[] {
  const rebuilt: string[] = [];
  let previous: string[] = [];
  for (const chunk of chunks) {
    const path = chunk.sectionPath;
    const firstNew = path.findIndex((title, depth) => previous[depth] !== title);
    if (firstNew >= 0) for (const title of path.slice(firstNew, -1)) rebuilt.push(...words(title));
    rebuilt.push(...words(chunk.content));
    previous = path;
  }
  return rebuilt;
}

describe('laws parser on licence texts', () => {
  it.each(['MPL-2.0', 'GPL-3', 'Apache-2.0'])('%s: chunks hold the budget and concatenated lose no text', (name) => {
    const chunks = parseLicence(name);
    expectWellFormed(chunks, options);
    expect(rebuiltWords(chunks)).toEqual(words(fixtureText(name)));
  });

  it('MPL-2.0: numbered definitions sit under their section, each article with its heading line', () => {
    const chunks = parseLicence('MPL-2.0');
    const [contributor] = chunksAt(chunks, ['Mozilla Public License Version 2.0', '1. Definitions', '1.1. "Contributor"']);
    expect(contributor).toMatchObject({ role: 'article' });
    expect(contributor!.content).toBe(
      '1.1. "Contributor"\nmeans each individual or legal entity that creates, contributes to\nthe creation of, or owns Covered Software.',
    );
    expect(
      chunksAt(chunks, ['Mozilla Public License Version 2.0', '2. License Grants and Conditions', '2.3. Limitations on Grant Scope']),
    ).toHaveLength(1);
    // Untitled numbered paragraphs are articles too, labelled by their number.
    const termination = chunks.filter((chunk) => chunk.sectionPath[1] === '5. Termination').map((chunk) => chunk.sectionPath[2]);
    expect(termination).toEqual(['5.1.', '5.2.', '5.3.']);
    // The boxed sections (asterisk frames) are recognised after unboxing.
    const [warranty] = chunksAt(chunks, ['Mozilla Public License Version 2.0', '6. Disclaimer of Warranty']);
    expect(warranty!.content).toMatch(/^6\. Disclaimer of Warranty\n\nCovered Software is provided under this License on an "as is"/);
    expect(warranty!.content).not.toContain('*');
    expect(chunksAt(chunks, ['Mozilla Public License Version 2.0', 'Exhibit A - Source Code Form License Notice'])).toHaveLength(1);
  });

  it('no article is split when it fits, and only over-long ones are', () => {
    const needlesslySplit: string[] = [];
    for (const name of ['MPL-2.0', 'GPL-3', 'Apache-2.0']) {
      const byPath = new Map<string, ChunkDraft[]>();
      for (const chunk of parseLicence(name).filter((c) => c.role === 'article')) {
        const key = chunk.sectionPath.join(' > ');
        byPath.set(key, [...(byPath.get(key) ?? []), chunk]);
      }
      for (const [path, pieces] of byPath) {
        const whole = pieces.map((piece) => piece.content).join('\n\n');
        if (pieces.length > 1 && countTokens(whole) <= options.chunkTokens) needlesslySplit.push(`${name}: ${path}`);
        if (pieces.length === 1) expect(pieces[0]!.metadata?.part).toBeUndefined();
      }
      expect(byPath.size).toBeGreaterThanOrEqual(9);
    }
    expect(needlesslySplit).toEqual([]);
  });

  it('GPL-3: an over-long article is split by sentences and every piece keeps its full path', () => {
    const chunks = parseLicence('GPL-3');
    const path = ['TERMS AND CONDITIONS', '6. Conveying Non-Source Forms'];
    const pieces = chunksAt(chunks, path);
    expect(pieces.length).toBeGreaterThan(1);
    pieces.forEach((piece, index) => {
      expect(piece.role).toBe('article');
      expect(piece.metadata).toMatchObject({ part: index + 1, parts: pieces.length });
      // Pieces end where sentences (or list items) end.
      expect(piece.content).toMatch(/[.;:]$/);
    });
    expect(pieces[0]!.content.startsWith('6. Conveying Non-Source Forms.')).toBe(true);
    // The pieces hold the article's text once, in order (no overlap inside an article).
    const source = fixtureText('GPL-3');
    const article = source.slice(source.indexOf('  6. Conveying Non-Source Forms.'), source.indexOf('  7. Additional Terms.'));
    expect(pieces.flatMap((piece) => words(piece.content))).toEqual(words(article));
  });

  it('GPL-3: a wrapped line that starts with "7." is not a heading', () => {
    const chunks = parseLicence('GPL-3');
    const [section5] = chunksAt(chunks, ['TERMS AND CONDITIONS', '5. Conveying Modified Source Versions']);
    expect(section5!.content).toContain('added under section\n7.  This requirement modifies the requirement in section 4');
    expect(chunks.some((chunk) => chunk.sectionPath.some((title) => title.startsWith('7. This')))).toBe(false);
    expect(chunksAt(chunks, ['Preamble']).length).toBeGreaterThan(0);
    expect(chunksAt(chunks, ['END OF TERMS AND CONDITIONS'])).toHaveLength(1);
  });

  it('Apache-2.0: a heading that runs into its text still titles the article', () => {
    const chunks = parseLicence('Apache-2.0');
    const terms = 'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION';
    const [grant] = chunksAt(chunks, [terms, '2. Grant of Copyright License']);
    expect(grant!.content).toMatch(/^2\. Grant of Copyright License\. Subject to the terms and conditions of\nthis License/);
    expect(chunksAt(chunks, [terms, '1. Definitions']).map((chunk) => chunk.metadata)).toEqual([
      { part: 1, parts: 2 },
      { part: 2, parts: 2 },
    ]);
  });

  it('a small budget splits only the articles that exceed it', () => {
    const chunks = parseLicence('MPL-2.0', 64);
    expectWellFormed(chunks, { ...options, chunkTokens: 64 });
    const contributor = chunksAt(chunks, ['Mozilla Public License Version 2.0', '1. Definitions', '1.1. "Contributor"']);
    expect(contributor).toHaveLength(1);
    const youPieces = chunksAt(chunks, ['Mozilla Public License Version 2.0', '1. Definitions', '1.14. "You" (or "Your")']);
    expect(youPieces.length).toBeGreaterThan(1);
    expect(youPieces.every((piece, index) => piece.metadata?.part === index + 1)).toBe(true);
  });
});

describe('laws parser on statutes', () => {
  it('chapters and labelled articles (Article, Art., §) form the hierarchy; numbered paragraphs stay inside', () => {
    const chunks = lawsParser.parse(plainTextDocument(fixtureText('tenancy-regulation.txt')), options);
    expectWellFormed(chunks, options);
    expect(chunks.map((chunk) => chunk.sectionPath)).toEqual([
      [],
      ['Chapter 1 General Provisions', 'Article 1 Purpose'],
      ['Chapter 1 General Provisions', 'Article 2 Definitions'],
      ['Chapter 2 Obligations of the Landlord', 'Article 3 Condition of the Premises'],
      ['Chapter 2 Obligations of the Landlord', 'Article 4 Repairs'],
      ['Chapter 2 Obligations of the Landlord', 'Art. 5 Access to the Premises'],
      ['Chapter 3 Obligations of the Tenant', 'Article 6 Payment of Rent'],
      ['Chapter 3 Obligations of the Tenant', 'Article 7 Minor Repairs'],
      ['Chapter 3 Obligations of the Tenant', '§ 8 Notice'],
    ]);
    expect(chunks[4]!.content).toMatch(
      /^Article 4 Repairs\n1\. The landlord shall carry out repairs[\s\S]*deduct the reasonable cost from\nthe rent, after giving the landlord written notice of at least 14 days\.$/,
    );
  });

  it('Chinese chapters (第一章) and articles (第三条); a long article is split into parts that keep the path', () => {
    const chunkTokens = 60;
    const chunks = lawsParser.parse(plainTextDocument(fixtureText('zh-lease-regulation.txt')), { chunkTokens, overlapTokens: 0 });
    expectWellFormed(chunks, { chunkTokens, overlapTokens: 0 });
    expect(chunks.find((chunk) => chunk.content.startsWith('第三条'))!.sectionPath).toEqual(['第二章 出租人的义务', '第三条']);
    const article4 = chunks.filter((chunk) => chunk.sectionPath[1] === '第四条');
    expect(article4.map((chunk) => chunk.metadata)).toEqual([
      { part: 1, parts: 2 },
      { part: 2, parts: 2 },
    ]);
    expect(article4.every((chunk) => chunk.sectionPath[0] === '第二章 出租人的义务' && chunk.content.endsWith('。'))).toBe(true);
  });

  it('heading blocks (Markdown, DOCX) are read with the same patterns', () => {
    const chunks = lawsParser.parse(
      {
        blocks: [
          { kind: 'heading', level: 1, text: 'Data Processing Agreement' },
          { kind: 'heading', level: 2, text: 'Chapter 2 Security' },
          { kind: 'heading', level: 3, text: 'Article 9 Encryption' },
          { kind: 'paragraph', text: 'The processor shall encrypt personal data at rest and in transit.' },
          { kind: 'heading', level: 3, text: 'Article 10 Breach Notification' },
          { kind: 'paragraph', text: 'The processor shall notify the controller of a personal data breach within 24 hours.', page: 3 },
        ],
      },
      options,
    );
    expect(chunks.map((chunk) => [chunk.sectionPath, chunk.metadata])).toEqual([
      [['Data Processing Agreement', 'Chapter 2 Security', 'Article 9 Encryption'], undefined],
      [['Data Processing Agreement', 'Chapter 2 Security', 'Article 10 Breach Notification'], { page: 3 }],
    ]);
    expect(chunks[0]!.content).toBe('Article 9 Encryption\n\nThe processor shall encrypt personal data at rest and in transit.');
  });
});

import { bookParser } from '../../../knowledge/parsers/book';
import { expectWellFormed, fixtureText, plainTextDocument } from './fixture-documents';

const options = { chunkTokens: 160, overlapTokens: 40 };

describe('book parser', () => {
  const chunks = bookParser.parse(plainTextDocument(fixtureText('book-keepers-island.txt')), options);

  it('leaves out the table of contents and puts chapters under their parts', () => {
    expectWellFormed(chunks, options);
    expect(chunks.some((chunk) => chunk.content.includes('CONTENTS') || chunk.content.includes('CHAPTER II. Ninety-Two Steps'))).toBe(
      false,
    );
    expect([...new Set(chunks.map((chunk) => chunk.sectionPath.join(' > ')))]).toEqual([
      '',
      'PART ONE THE ISLAND > CHAPTER I The Relief Boat',
      'PART ONE THE ISLAND > CHAPTER II Ninety-Two Steps',
      'PART TWO THE MAINLAND > CHAPTER III Letters from Harwick',
    ]);
    expect(chunks[0]!.content).toBe("THE KEEPER'S ISLAND\n\nA Novel in Two Parts\n\nby Helen Marsh");
  });

  it('chunks a chapter naive-style: starting with its first paragraph, overlapping inside it', () => {
    const chapter1 = chunks.filter((chunk) => chunk.sectionPath[1] === 'CHAPTER I The Relief Boat');
    expect(chapter1.length).toBeGreaterThan(1);
    expect(chapter1[0]!.content).toMatch(/^The relief boat came on the first Tuesday/);
    const lastSentence = chapter1[0]!.content.split(/(?<=[.!?]["”]?)\s+/).pop()!;
    expect(chapter1[1]!.content.startsWith(lastSentence)).toBe(true);
    expect(chapter1[chapter1.length - 1]!.content).toMatch(/He never did\.$/);
    // Chapters do not share chunks or overlap.
    const chapter2 = chunks.find((chunk) => chunk.sectionPath[1] === 'CHAPTER II Ninety-Two Steps')!;
    expect(chapter2.content).toMatch(/^There were ninety-two steps/);
  });

  it('reads heading blocks: level 1 as chapters, deeper levels as sections', () => {
    const parsed = bookParser.parse(
      {
        blocks: [
          { kind: 'heading', level: 1, text: 'Contents' },
          { kind: 'list-item', text: 'Chapter 1: Sourdough Basics' },
          { kind: 'list-item', text: 'Chapter 2: Shaping' },
          { kind: 'list-item', text: 'Chapter 3: Baking' },
          { kind: 'heading', level: 1, text: 'Chapter 1: Sourdough Basics' },
          { kind: 'heading', level: 2, text: 'Feeding the starter' },
          { kind: 'paragraph', text: 'Feed the starter equal weights of flour and water every twelve hours.' },
        ],
      },
      options,
    );
    expect(parsed.map((chunk) => [chunk.sectionPath, chunk.content])).toEqual([
      [['Chapter 1 Sourdough Basics', 'Feeding the starter'], 'Feed the starter equal weights of flour and water every twelve hours.'],
    ]);
  });
});

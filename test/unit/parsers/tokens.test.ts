import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens, splitByTokens, truncateToTokens } from '../../../knowledge/tokens';
import { splitSentences } from '../../../knowledge/parsers/shared/sentences';

describe('token helpers', () => {
  it('counts cl100k_base tokens, treating special-token text as plain text', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('truncates at a word boundary to at most N tokens, as a prefix of the text', () => {
    const text = 'The landlord shall begin urgent repairs within 48 hours of being notified of a defect.';
    const head = truncateToTokens(text, 8);
    expect(text.startsWith(head)).toBe(true);
    expect(countTokens(head)).toBeLessThanOrEqual(8);
    expect(head).toMatch(/\s$/);
    expect(truncateToTokens(text, 1000)).toBe(text);
  });

  it('never cuts a multi-byte character in half', () => {
    const text = '出租人应当按照约定将房屋交付承租人，并保证房屋及其附属设施符合安全和居住要求。'.repeat(3);
    for (const max of [1, 2, 3, 5, 7]) {
      const pieces = splitByTokens(text, max);
      expect(pieces.join('')).toBe(text);
      expect(pieces.some((piece) => piece.includes('\uFFFD'))).toBe(false);
    }
  });

  it('splits a text into pieces within the budget that concatenate back to it', () => {
    const text = 'word '.repeat(300) + 'end';
    const pieces = splitByTokens(text, 50);
    expect(pieces.join('')).toBe(text);
    expect(pieces.every((piece) => countTokens(piece) <= 50)).toBe(true);
  });

  it('splits sentences without breaking at hard line wraps, keeping the text intact', () => {
    const text = 'Licensees may convey the work under this\nLicense. Art. 5 of the Act applies. 出租人应当维修。承租人应当付款！';
    const sentences = splitSentences(text);
    expect(sentences.join('')).toBe(text);
    expect(sentences).toEqual(['Licensees may convey the work under this\nLicense. ', 'Art. 5 of the Act applies. ', '出租人应当维修。', '承租人应当付款！']);
  });

  it('splits a long paragraph window by window exactly as the whole text would be split', () => {
    const licences = ['GPL-3', 'Apache-2.0', 'MPL-2.0'].map((name) => readFileSync(join('/usr/share/common-licenses', name), 'utf8'));
    // One paragraph of about 100 KB with a sentence far longer than a window inside.
    const text = `${licences.join(' ').replace(/\s+/g, ' ')} ${'and so on, '.repeat(1_000)}the end. Last one.`;
    const reference = [...new Intl.Segmenter(undefined, { granularity: 'sentence' }).segment(text)].map((s) => s.segment);
    const sentences = splitSentences(text);
    expect(sentences.join('')).toBe(text);
    expect(sentences).toEqual(reference);
    expect(sentences.some((s) => s.length > 10_000)).toBe(true);
  });
});

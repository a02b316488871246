import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode as exactEncode } from 'gpt-tokenizer/cjs/encoding/cl100k_base';
import { countTokens, encoderPieces, MAX_RUN_CHARS, splitByTokens, truncateToTokens } from '../../../common/tokens';
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
    expect(sentences).toEqual([
      'Licensees may convey the work under this\nLicense. ',
      'Art. 5 of the Act applies. ',
      '出租人应当维修。',
      '承租人应当付款！',
    ]);
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

  describe('on long runs without spaces', () => {
    const exactCount = (text: string) => exactEncode(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() }).length;
    const runs = ['a', '中', '!', ' ', 'ab1', '😀'].map((unit) => unit.repeat(Math.ceil(300_000 / unit.length)));

    it('counts natural text exactly as the whole text is counted', () => {
      const licences = ['GPL-3', 'Apache-2.0', 'MPL-2.0'].map((name) => readFileSync(join('/usr/share/common-licenses', name), 'utf8'));
      const text = licences.join('\n\n');
      expect(countTokens(text)).toBe(exactCount(text));
      const chinese = '出租人应当按照约定将房屋交付承租人， 并保证房屋及其附属设施符合安全和居住要求。\n'.repeat(500);
      expect(countTokens(chinese)).toBe(exactCount(chinese));
    });

    it('hands the encoder no stretch without a boundary longer than MAX_RUN_CHARS, so the work is linear', () => {
      for (const run of runs) {
        const pieces = [...encoderPieces(run)];
        expect(pieces.join('')).toBe(run);
        expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(MAX_RUN_CHARS);
        expect(pieces.some((piece) => /[\uD800-\uDBFF]$/.test(piece))).toBe(false);
      }
      const mixed = `${'word '.repeat(10_000)}${'x'.repeat(100_000)}\n${'more words '.repeat(10_000)}`;
      expect([...encoderPieces(mixed)].join('')).toBe(mixed);
    });

    it('counts a run close to its exact count, twice the run about twice the tokens', () => {
      for (const run of runs) {
        const short = run.slice(0, 6_000);
        expect(Math.abs(countTokens(short) - exactCount(short))).toBeLessThanOrEqual(Math.ceil(short.length / MAX_RUN_CHARS));
        const once = countTokens(run);
        expect(Math.abs(countTokens(run + run) - 2 * once)).toBeLessThanOrEqual(2);
      }
      expect(truncateToTokens('a'.repeat(300_000), 100)).toMatch(/^a+$/);
    });
  });
});

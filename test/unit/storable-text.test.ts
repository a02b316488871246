import { firstUnstorableChar, storableText } from '../../common/storable-text';

describe('storable text', () => {
  it('finds the first NUL or lone surrogate', () => {
    expect(firstUnstorableChar('plain text, ünïcödé, 😀')).toBe(-1);
    expect(firstUnstorableChar('ab\u0000c')).toBe(2);
    expect(firstUnstorableChar('a\uD83D')).toBe(1);
    expect(firstUnstorableChar('a\uDE00b')).toBe(1);
    expect(firstUnstorableChar('😀\uDE00')).toBe(2);
    expect(firstUnstorableChar('')).toBe(-1);
  });

  it('removes NUL and replaces lone surrogates, keeping paired ones', () => {
    expect(storableText('a\u0000b\u0000\u0000c')).toBe('abc');
    expect(storableText('x\uD83Dy\uDE00z😀')).toBe('x\uFFFDy\uFFFDz😀');
    expect(storableText('\uDE00\uD83D')).toBe('\uFFFD\uFFFD');
    const clean = 'nothing to clean';
    expect(storableText(clean)).toBe(clean);
    expect(firstUnstorableChar(storableText('\u0000\uD800\uDFFF\uDC00\u0000'))).toBe(-1);
  });

  it('cleans a long text in one pass', () => {
    const text = 'a\u0000'.repeat(500_000);
    expect(storableText(text)).toBe('a'.repeat(500_000));
  });
});

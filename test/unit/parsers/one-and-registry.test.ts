import { DEFAULT_PARSER_OPTIONS, getParser, listParsers, PARSERS } from '../../../knowledge/parsers';
import { oneParser } from '../../../knowledge/parsers/one';
import { countTokens } from '../../../common/tokens';
import { fixtureText, plainTextDocument, words } from './fixture-documents';

describe('one parser', () => {
  it('keeps a short document whole as a single chunk', () => {
    const text = fixtureText('manual-dehumidifier.txt');
    const [chunk, ...rest] = oneParser.parse(plainTextDocument(text), DEFAULT_PARSER_OPTIONS);
    expect(rest).toHaveLength(0);
    expect(words(chunk!.content)).toEqual(words(text));
    expect(chunk!.tokens).toBe(countTokens(chunk!.content));
    expect(chunk!.metadata).toBeUndefined();
  });

  it('cuts a long document at 8 x chunkTokens and says so', () => {
    const options = { chunkTokens: 64, overlapTokens: 0 };
    const text = fixtureText('GPL-3');
    const [chunk, ...rest] = oneParser.parse(plainTextDocument(text), options);
    expect(rest).toHaveLength(0);
    expect(chunk!.metadata).toEqual({ truncated: true });
    expect(chunk!.tokens).toBeLessThanOrEqual(8 * 64);
    expect(chunk!.tokens).toBeGreaterThan(8 * 64 - 20);
    expect(words(text).slice(0, words(chunk!.content).length)).toEqual(words(chunk!.content));
  });

  it('gives nothing for an empty document', () => {
    expect(oneParser.parse({ blocks: [] }, DEFAULT_PARSER_OPTIONS)).toEqual([]);
  });
});

describe('parser registry', () => {
  it('lists every parser with a description', () => {
    const listed = listParsers();
    expect(listed.map((parser) => parser.id)).toEqual(['naive', 'laws', 'paper', 'patent', 'qa', 'table', 'book', 'manual', 'one']);
    for (const { id, description } of listed) {
      expect(description.length).toBeGreaterThan(30);
      expect(getParser(id)).toBe(PARSERS[id]);
      expect(getParser(id)!.id).toBe(id);
    }
  });

  it('answers undefined for an unknown id, including inherited property names', () => {
    expect(getParser('ocr')).toBeUndefined();
    expect(getParser('toString')).toBeUndefined();
    expect(getParser('__proto__')).toBeUndefined();
  });

  it('has defaults whose overlap is below the chunk size', () => {
    expect(DEFAULT_PARSER_OPTIONS).toEqual({ chunkTokens: 512, overlapTokens: 64 });
  });
});

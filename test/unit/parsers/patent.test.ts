import { claimDependencies } from '../../../knowledge/parsers/shared/claim-references';
import { patentParser } from '../../../knowledge/parsers/patent';
import { expectWellFormed, fixtureText, plainTextDocument } from './fixture-documents';

const options = { chunkTokens: 256, overlapTokens: 32 };

describe('patent parser', () => {
  const chunks = patentParser.parse(plainTextDocument(fixtureText('patent-filter-monitor.txt')), options);
  const claims = chunks.filter((chunk) => chunk.role === 'claim');

  it('gives the abstract its role and the description sections their paths', () => {
    expectWellFormed(chunks, options);
    const abstract = chunks.filter((chunk) => chunk.role === 'abstract');
    expect(abstract).toHaveLength(1);
    expect(abstract[0]!.sectionPath).toEqual(['ABSTRACT']);
    expect(abstract[0]!.content).toMatch(/^A ventilation unit comprises a fan.*differential pressure sensors\.$/s);
    const description = chunks.filter((chunk) => !chunk.role && chunk.sectionPath.length > 0 && chunk.sectionPath[0] !== 'CLAIMS');
    expect([...new Set(description.map((chunk) => chunk.sectionPath.join(' > ')))]).toEqual([
      'CROSS-REFERENCE TO RELATED APPLICATIONS',
      'TECHNICAL FIELD',
      'BACKGROUND',
      'SUMMARY',
      'BRIEF DESCRIPTION OF THE DRAWINGS',
      'DETAILED DESCRIPTION',
    ]);
    expect(description.find((chunk) => chunk.content.includes('[0004]'))!.sectionPath).toEqual(['BACKGROUND']);
  });

  it('makes each claim its own chunk, with its number', () => {
    expect(claims.map((claim) => claim.sectionPath)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => ['CLAIMS', `Claim ${n}`]));
    claims.forEach((claim, index) => {
      expect(claim.content.startsWith(`${index + 1}. `)).toBe(true);
      // No other claim's opening inside it.
      expect(
        claim.content
          .split('\n')
          .slice(1)
          .some((line) => /^\d+\. (A|The) /.test(line)),
      ).toBe(false);
      expect(claim.metadata?.claim).toBe(index + 1);
    });
    // A claim with its elements on several lines stays whole.
    expect(claims[5]!.content).toMatch(
      /^6\. A method of monitoring[\s\S]*\(a\) running[\s\S]*\(c\) signalling[\s\S]*exceeds a threshold\.$/,
    );
  });

  it('reads the claims each claim depends on, and which are independent', () => {
    expect(claims.map((claim) => [claim.metadata?.depends_on, claim.metadata?.independent])).toEqual([
      [[], true],
      [[1], false], // according to claim 1
      [[1, 2], false], // according to claim 1 or 2
      [[2, 3], false], // as claimed in claims 2 or 3
      [[1, 2, 3, 4], false], // of any one of claims 1 to 4
      [[], true],
      [[6], false], // of claim 6
      [[6, 7], false], // according to claim 6 or claim 7
    ]);
  });

  it('splits a claim only when it alone exceeds the budget, keeping its path and metadata on every piece', () => {
    const small = { chunkTokens: 48, overlapTokens: 8 };
    const pieces = patentParser
      .parse(plainTextDocument(fixtureText('patent-filter-monitor.txt')), small)
      .filter((c) => c.sectionPath[1] === 'Claim 6');
    expectWellFormed(pieces, small);
    expect(pieces.length).toBeGreaterThan(1);
    pieces.forEach((piece, index) => {
      expect(piece.metadata).toEqual({ claim: 6, depends_on: [], independent: true, part: index + 1, parts: pieces.length });
    });
  });

  it('reads a Chinese patent: 摘要, 权利要求书 with 根据权利要求 references, and 说明书 sections', () => {
    const zh = patentParser.parse(plainTextDocument(fixtureText('patent-zh-kettle.txt')), options);
    expectWellFormed(zh, options);
    expect(zh.find((chunk) => chunk.role === 'abstract')!.sectionPath).toEqual(['摘要']);
    expect(zh.filter((chunk) => chunk.role === 'claim').map((chunk) => [chunk.sectionPath, chunk.metadata?.depends_on])).toEqual([
      [['权利要求书', 'Claim 1'], []],
      [['权利要求书', 'Claim 2'], [1]],
      [
        ['权利要求书', 'Claim 3'],
        [1, 2],
      ],
      [
        ['权利要求书', 'Claim 4'],
        [1, 2, 3],
      ],
    ]);
    expect(zh.filter((chunk) => !chunk.role && chunk.sectionPath.length > 0).map((chunk) => chunk.sectionPath)).toEqual([
      ['说明书', '技术领域'],
      ['说明书', '背景技术'],
      ['说明书', '发明内容'],
      ['说明书', '附图说明'],
      ['说明书', '具体实施方式'],
    ]);
  });

  it.each([
    ['The device as claimed in claims 2 or 3, wherein', 5, [2, 3]],
    ['The method of any one of claims 1-3 and 5, wherein', 7, [1, 2, 3, 5]],
    ['The method according to claim 1 to 3, wherein', 4, [1, 2, 3]],
    ['A system according to any preceding claim', 4, [1, 2, 3]],
    ['A kit for performing the method of claim 9', 4, []],
    ['如权利要求2或3所述的装置', 5, [2, 3]],
  ])('depends_on of %j (claim %i)', (text, claim, expected) => {
    expect(claimDependencies(text, claim)).toEqual(expected);
  });
});

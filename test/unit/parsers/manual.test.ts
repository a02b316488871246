import { manualParser } from '../../../knowledge/parsers/manual';
import { expectWellFormed, fixtureText, plainTextDocument } from './fixture-documents';

const options = { chunkTokens: 200, overlapTokens: 32 };

describe('manual parser', () => {
  const chunks = manualParser.parse(plainTextDocument(fixtureText('manual-dehumidifier.txt')), options);

  it('follows the numbered heading hierarchy', () => {
    expectWellFormed(chunks, options);
    expect([...new Set(chunks.map((chunk) => chunk.sectionPath.join(' > ')))]).toEqual([
      '',
      '1 Safety',
      '2 Installation > 2.1 Choosing a location',
      '2 Installation > 2.2 Connecting a drain hose',
      '3 Operation > 3.1 Setting the humidity',
      '3 Operation > 3.2 Drying laundry',
      '4 Maintenance > 4.1 Cleaning the air filter',
      '4 Maintenance > 4.2 Storing the appliance',
    ]);
    // A warning outside a procedure stays with the text around it.
    expect(chunks.find((chunk) => chunk.sectionPath[0] === '1 Safety')!.content).toContain('WARNING: Always unplug the appliance');
  });

  it('keeps a procedure in one chunk with its lead-in and the notes under its steps', () => {
    const [drainHose, ...others] = chunks.filter(
      (chunk) => chunk.role === 'procedure' && chunk.sectionPath[1] === '2.2 Connecting a drain hose',
    );
    expect(others).toHaveLength(0);
    expect(drainHose!.metadata).toEqual({ steps: 5 });
    expect(drainHose!.content).toBe(
      [
        'For continuous operation you can drain the water through a hose instead\nof emptying the tank. To connect the drain hose:',
        '1. Switch off the appliance and unplug it.',
        '2. Remove the rubber plug from the drain outlet on the back.',
        '3. Push a hose with an inner diameter of 12 mm onto the outlet.\nNote: The hose must run downhill along its whole length, or water will\ncollect in the tank.',
        '4. Lead the other end of the hose to a floor drain.',
        '5. Plug in and switch on the appliance.',
      ].join('\n'),
    );
    const filter = chunks.find((chunk) => chunk.role === 'procedure' && chunk.sectionPath[1] === '4.1 Cleaning the air filter')!;
    expect(filter.content).toContain('3. Rinse the filter under lukewarm water and let it dry completely.\nCAUTION: Do not use detergents');
    expect(filter.metadata).toEqual({ steps: 4 });
  });

  it('splits a procedure that exceeds the budget between steps, never inside one', () => {
    const small = { chunkTokens: 40, overlapTokens: 8 };
    const pieces = manualParser
      .parse(plainTextDocument(fixtureText('manual-dehumidifier.txt')), small)
      .filter((chunk) => chunk.role === 'procedure' && chunk.sectionPath[1] === '2.2 Connecting a drain hose');
    expectWellFormed(pieces, small);
    expect(pieces.length).toBeGreaterThan(2);
    const stepLines = pieces.flatMap((piece) => piece.content.split('\n')).filter((line) => /^\d\. /.test(line));
    expect(stepLines.map((line) => line[0])).toEqual(['1', '2', '3', '4', '5']);
    pieces.forEach((piece, index) => expect(piece.metadata).toEqual({ steps: 5, part: index + 1, parts: pieces.length }));
    const noteIn = pieces.find((piece) => piece.content.includes('Note: The hose must run downhill'))!;
    expect(noteIn.content).toContain('3. Push a hose with an inner diameter of 12 mm onto the outlet.');
  });

  it('reads list items as steps in a structured manual', () => {
    const parsed = manualParser.parse(
      {
        blocks: [
          { kind: 'heading', level: 2, text: 'Replacing the battery' },
          { kind: 'paragraph', text: 'Replace the battery when the display shows BATT:' },
          { kind: 'list-item', text: 'Open the cover on the back.' },
          { kind: 'list-item', text: 'Insert a CR2032 cell with the + side up.' },
          { kind: 'paragraph', text: 'Warning: Keep cells away from children.' },
          { kind: 'list-item', text: 'Close the cover until it clicks.' },
        ],
      },
      options,
    );
    expect(parsed.map((chunk) => [chunk.sectionPath, chunk.role, chunk.content])).toEqual([
      [
        ['Replacing the battery'],
        'procedure',
        'Replace the battery when the display shows BATT:\nOpen the cover on the back.\nInsert a CR2032 cell with the + side up.\nWarning: Keep cells away from children.\nClose the cover until it clicks.',
      ],
    ]);
  });
});

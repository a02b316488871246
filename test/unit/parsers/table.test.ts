import type { Block, ExtractedDocument } from '../../../knowledge/document-model';
import { tableParser } from '../../../knowledge/parsers/table';
import { expectWellFormed, fixtureText } from './fixture-documents';

/** The CSV as the CSV extractor delivers it: one table block named after the file (no quoted commas here). */
function csvDocument(name: string): ExtractedDocument {
  const rows = fixtureText(name)
    .trimEnd()
    .split('\n')
    .map((line) => line.split(','));
  return { blocks: [{ kind: 'table', name, rows }] };
}

const options = { chunkTokens: 128, overlapTokens: 16 };

describe('table parser', () => {
  it('makes every data row a "header: value" chunk with its row number and table name', () => {
    const chunks = tableParser.parse(csvDocument('product-catalogue.csv'), options);
    expectWellFormed(chunks, options);
    expect(chunks).toHaveLength(5);
    expect(chunks[0]).toEqual({
      content:
        'sku: HR-300; name: Home Router HR-300; category: Networking; price_eur: 129.00; stock: 412; description: Dual-band Wi-Fi 6 router with four gigabit ports',
      sectionPath: ['product-catalogue.csv'],
      tokens: expect.any(Number),
      role: 'row',
      metadata: { row: 1, table: 'product-catalogue.csv' },
    });
    // An empty cell is left out rather than written as "description: ".
    expect(chunks[3]!.content).toBe(
      'sku: DH-20-F; name: Replacement filter for DH-20; category: Spare parts; price_eur: 12.50; stock: 880',
    );
    expect(chunks.map((chunk) => chunk.metadata?.row)).toEqual([1, 2, 3, 4, 5]);
  });

  it('names columns by position when the first row is data, and chunks text around tables naive-style', () => {
    const blocks: Block[] = [
      { kind: 'heading', level: 1, text: 'Opening hours' },
      { kind: 'paragraph', text: 'The service desk is closed on public holidays.' },
      {
        kind: 'table',
        rows: [
          ['Monday', '08:00', '18:00'],
          ['Saturday', '09:00', '13:00'],
        ],
        page: 2,
      },
    ];
    const chunks = tableParser.parse({ blocks }, options);
    expect(chunks.map((chunk) => [chunk.sectionPath, chunk.role, chunk.content, chunk.metadata])).toEqual([
      [['Opening hours'], undefined, 'The service desk is closed on public holidays.', undefined],
      [['Opening hours'], 'row', 'column 1: Monday; column 2: 08:00; column 3: 18:00', { row: 1, page: 2 }],
      [['Opening hours'], 'row', 'column 1: Saturday; column 2: 09:00; column 3: 13:00', { row: 2, page: 2 }],
    ]);
  });

  it('splits a row longer than the budget into parts', () => {
    const notes = 'Customer reported intermittent drops of the 5 GHz network after the firmware update. '.repeat(6).trim();
    const small = { chunkTokens: 32, overlapTokens: 0 };
    const chunks = tableParser.parse(
      {
        blocks: [
          {
            kind: 'table',
            name: 'Tickets',
            rows: [
              ['id', 'notes'],
              ['T-1042', notes],
            ],
          },
        ],
      },
      small,
    );
    expectWellFormed(chunks, small);
    expect(chunks.length).toBeGreaterThan(1);
    chunks.forEach((chunk, index) => expect(chunk.metadata).toEqual({ row: 1, table: 'Tickets', part: index + 1, parts: chunks.length }));
  });
});

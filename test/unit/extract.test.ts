import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { type Block, type ExtractedDocument, ExtractionError } from '../../knowledge/document-model';
import { detectFormat, extractDocument, SUPPORTED_FORMATS } from '../../knowledge/extract';
import { layoutBlocks, type TextRun } from '../../knowledge/extract/pdf-layout';
import { declaringSize, docxBomb, docxWithText } from '../support/office-files';

const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/documents', name));

async function failure(attempt: Promise<unknown>): Promise<ExtractionError> {
  try {
    await attempt;
  } catch (error) {
    expect(error).toBeInstanceOf(ExtractionError);
    const extractionError = error as ExtractionError;
    // Messages go to the uploader: no library internals, paths or stack lines.
    expect(extractionError.message).not.toMatch(/node_modules|\n\s+at |Exception/);
    return extractionError;
  }
  throw new Error('expected the extraction to fail');
}

const ofKind = <K extends Block['kind']>(doc: ExtractedDocument, kind: K) =>
  doc.blocks.filter((block): block is Extract<Block, { kind: K }> => block.kind === kind);

/** A ZIP with only a central directory that declares the given entries (nothing to inflate). */
function zipDeclaring(entries: { name: string; size: number }[]): Buffer {
  const localHeader = Buffer.alloc(30);
  localHeader.write('PK\x03\x04', 'latin1');
  const directory = entries.map(({ name, size }) => {
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(Buffer.byteLength(name), 28);
    return Buffer.concat([header, Buffer.from(name)]);
  });
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(localHeader.length, 16);
  return Buffer.concat([localHeader, directoryBytes, end]);
}

/** The start of an OLE compound file whose directory names the given stream. */
function compoundFileWithStream(stream: string): Buffer {
  return Buffer.concat([
    Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
    Buffer.alloc(504),
    Buffer.from('Root Entry', 'utf16le'),
    Buffer.alloc(54),
    Buffer.from(stream, 'utf16le'),
  ]);
}

describe('supported formats', () => {
  it('lists every format with its extensions and MIME types', () => {
    expect(SUPPORTED_FORMATS.map((entry) => entry.format)).toEqual(['text', 'markdown', 'html', 'pdf', 'docx', 'csv', 'xlsx', 'json']);
    for (const entry of SUPPORTED_FORMATS) {
      expect(entry.extensions.length).toBeGreaterThan(0);
      expect(entry.mimeTypes.length).toBeGreaterThan(0);
    }
    expect(SUPPORTED_FORMATS.find((entry) => entry.format === 'docx')?.mimeTypes).toContain(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
  });
});

describe('detectFormat', () => {
  it('trusts magic bytes over a misleading extension or content type', () => {
    expect(detectFormat(fixture('report.pdf'), 'notes.txt', 'text/plain')).toBe('pdf');
    expect(detectFormat(fixture('handbook.docx'), 'sheet.xlsx')).toBe('docx');
    expect(
      detectFormat(fixture('orders.xlsx'), 'letter.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
    ).toBe('xlsx');
    expect(detectFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'photo.txt')).toBeUndefined();
    expect(detectFormat(Buffer.from('{\\rtf1\\ansi Hello}'), 'letter.txt')).toBeUndefined();
  });

  it('finds a PDF header preceded by junk, as readers accept it', () => {
    expect(detectFormat(Buffer.concat([Buffer.from('\n\n'), fixture('report.pdf')]), 'upload')).toBe('pdf');
  });

  it('sends a damaged ZIP to the extractor its name points to', () => {
    const truncated = fixture('handbook.docx').subarray(0, 2000);
    expect(detectFormat(truncated, 'handbook.docx')).toBe('docx');
  });

  it('treats an encrypted Office container as the Office format it is named as', () => {
    expect(detectFormat(fixture('encrypted.docx'), 'secret.docx')).toBe('docx');
    expect(detectFormat(fixture('encrypted.docx'), 'secret.xlsx')).toBe('xlsx');
    expect(detectFormat(fixture('encrypted.docx'), 'secret')).toBe('docx');
    expect(detectFormat(compoundFileWithStream('WordDocument'), 'old.docx')).toBeUndefined();
  });

  it('falls back to the extension, then the content type, then a look at the text', () => {
    expect(detectFormat(fixture('guide.md'), 'guide.md')).toBe('markdown');
    expect(detectFormat(fixture('inventory.csv'), 'inventory.csv', 'text/plain')).toBe('csv');
    expect(detectFormat(fixture('guide.md'), 'upload', 'text/markdown; charset=utf-8')).toBe('markdown');
    expect(detectFormat(fixture('faq.html'), 'upload')).toBe('html');
    expect(detectFormat(fixture('service.json'), 'upload')).toBe('json');
    expect(detectFormat(fixture('regulation.txt'), 'upload', 'application/octet-stream')).toBe('text');
    expect(detectFormat(fixture('random.bin'), 'random.bin')).toBeUndefined();
  });
});

describe('plain text', () => {
  it('splits paragraphs on blank lines and keeps the lines inside them', async () => {
    const doc = await extractDocument(fixture('regulation.txt'), 'regulation.txt');
    expect(doc.blocks).toEqual([
      { kind: 'paragraph', text: 'Regulation on Shared Workspaces' },
      { kind: 'paragraph', text: 'Article 1\nScope\nThis regulation applies to every shared\nworkspace operated by the company.' },
      { kind: 'paragraph', text: 'Article 2\nBooking\nDesks are booked at most 14 days ahead.\nBookings not confirmed by 10:00 lapse.' },
      { kind: 'paragraph', text: 'Article 3\nQuiet zones\nPhone calls are not allowed in quiet zones.' },
    ]);
  });

  it('normalises CRLF and drops a UTF-8 byte order mark', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Article 1\r\nFirst\r\n\r\nArticle 2\rSecond')]);
    const doc = await extractDocument(bytes, 'law.txt');
    expect(doc.blocks).toEqual([
      { kind: 'paragraph', text: 'Article 1\nFirst' },
      { kind: 'paragraph', text: 'Article 2\nSecond' },
    ]);
  });

  it('reads UTF-16 with a byte order mark', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße aus Köln', 'utf16le')]);
    expect((await extractDocument(bytes, 'greeting.txt')).blocks).toEqual([{ kind: 'paragraph', text: 'Grüße aus Köln' }]);
  });

  it('refuses bytes that are not text', async () => {
    expect((await failure(extractDocument(fixture('random.bin'), 'random.txt'))).reason).toBe('unsupported');
    const executable = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64), fixture('random.bin')]);
    expect((await failure(extractDocument(executable, 'program.txt'))).message).toMatch(/binary data/);
  });

  it('drops NUL bytes (the stores cannot hold U+0000) and reads the text around them', async () => {
    const doc = await extractDocument(Buffer.from('Article 1\0\0 applies.\n\nArticle 2\0'), 'nul.txt');
    expect(doc.blocks).toEqual([
      { kind: 'paragraph', text: 'Article 1 applies.' },
      { kind: 'paragraph', text: 'Article 2' },
    ]);
    // A log file cut off by a crash, padded with NULs where the rest was to go.
    const padded = Buffer.concat([Buffer.from('started\nstopped\n'), Buffer.alloc(100_000)]);
    expect((await extractDocument(padded, 'service.log')).blocks).toEqual([{ kind: 'paragraph', text: 'started\nstopped' }]);
  });

  it.each([
    ['GBK', 'gbk', '这是一份简体中文的测试文件。出租人应当按照约定将房屋交付承租人，并保证房屋及其附属设施符合安全和居住要求。'],
    ['Shift-JIS', 'shift_jis', 'これは日本語のテストファイルです。賃貸人は、約束に従って建物を賃借人に引き渡さなければなりません。'],
    ['Windows-1252', 'windows-1252', 'Café crème brûlée — naïve façade, “quotes” cost €5. Größe: Köln, Zürich, São Paulo.'],
  ])('detects and decodes %s text', async (_name, encoding, text) => {
    const bytes = iconv.encode(text, encoding);
    expect(bytes.equals(Buffer.from(text))).toBe(false);
    expect((await extractDocument(bytes, 'legacy.txt')).blocks).toEqual([{ kind: 'paragraph', text }]);
    expect(detectFormat(bytes, 'upload')).toBe('text');
  });

  it('reports a file without text as empty', async () => {
    expect((await failure(extractDocument(Buffer.from(' \n\n\t\r\n'), 'blank.txt'))).reason).toBe('empty');
    expect((await failure(extractDocument(Buffer.alloc(0), 'nothing.pdf'))).reason).toBe('empty');
  });
});

describe('Markdown', () => {
  it('keeps headings with levels, lists, tables and code, with markup stripped', async () => {
    const doc = await extractDocument(fixture('guide.md'), 'guide.md');
    expect(doc.title).toBe('Deployment Guide');
    expect(ofKind(doc, 'heading').map(({ level, text }) => [level, text])).toEqual([
      [1, 'Deploying the Service'],
      [2, 'Prerequisites'],
      [2, 'Configuration'],
      [3, 'Rolling back'],
    ]);
    expect(doc.blocks[1]).toEqual({ kind: 'paragraph', text: 'The service ships as a single container image; see the registry for tags.' });
    expect(ofKind(doc, 'list-item').map((item) => item.text)).toEqual([
      'Node.js 20 or later',
      'A running Temporal cluster',
      'with the custom search attributes registered',
      'Access to MONGODB_URI',
      'Stop the new workers.',
      'Start the previous image.',
    ]);
    expect(ofKind(doc, 'table')[0]?.rows).toEqual([
      ['Variable', 'Default', 'Meaning'],
      ['API_PORT', '9380', 'HTTP port of the API'],
      ['LOG_LEVEL', 'info', 'One of debug, info, warn'],
    ]);
    expect(ofKind(doc, 'code')).toEqual([{ kind: 'code', text: 'npm run build\nnpm start' }]);
    expect(doc.blocks[doc.blocks.length - 1]).toEqual({ kind: 'paragraph', text: 'Rollbacks never touch the database schema.' });
    expect(JSON.stringify(doc)).not.toMatch(/author|Platform Team/);
  });

  it('takes the first H1 as the title without front matter, and reads embedded HTML tables', async () => {
    const source = '# Release Notes\n\nSee below.\n\n<table><tr><th>Version</th></tr><tr><td>1.2</td></tr></table>\n';
    const doc = await extractDocument(Buffer.from(source), 'notes.md');
    expect(doc.title).toBe('Release Notes');
    expect(ofKind(doc, 'table')[0]?.rows).toEqual([['Version'], ['1.2']]);
  });
});

describe('HTML', () => {
  it('keeps headings, lists and tables and drops scripts, styles and navigation', async () => {
    const doc = await extractDocument(fixture('faq.html'), 'faq.html');
    expect(doc.title).toBe('Customer FAQ & Help');
    expect(ofKind(doc, 'heading').map(({ level, text }) => [level, text])).toEqual([
      [1, 'Frequently Asked Questions'],
      [2, 'Shipping'],
      [2, 'Prices'],
      [3, 'Example request'],
    ]);
    expect(doc.blocks).toContainEqual({ kind: 'paragraph', text: 'We ship to most countries in Europe.' });
    expect(ofKind(doc, 'list-item').map((item) => item.text)).toEqual([
      'Standard delivery takes 3–5 working days.',
      'Express delivery arrives the next day.',
    ]);
    expect(ofKind(doc, 'table')[0]?.rows).toEqual([
      ['Plan', 'Monthly price', 'Users'],
      ['Starter', '€9', '1'],
      ['Team', '€29', 'up to 10 | pooled'],
    ]);
    expect(ofKind(doc, 'code')[0]?.text).toBe('{"plan": "team", "users": 4}');
    expect(JSON.stringify(doc)).not.toMatch(/tracking-code|should never be indexed|font-family|Sign in/);
  });

  it('falls back to the first H1 for the title and puts the header row first', async () => {
    const html =
      '<h1>Price list</h1><table><tbody><tr><td>Tea</td><td>3</td></tr></tbody><thead><tr><th>Item</th><th>Price</th></tr></thead></table>';
    const doc = await extractDocument(Buffer.from(html), 'prices.html');
    expect(doc.title).toBe('Price list');
    expect(ofKind(doc, 'table')[0]?.rows).toEqual([
      ['Item', 'Price'],
      ['Tea', '3'],
    ]);
  });

  it('reports a page with only scripts as empty', async () => {
    const html = '<html><head><script>var a = 1;</script></head><body><nav>Home</nav></body></html>';
    expect((await failure(extractDocument(Buffer.from(html), 'blank.html'))).reason).toBe('empty');
  });
});

describe('PDF', () => {
  it('reads text per page with headings from font sizes and the document title', async () => {
    const doc = await extractDocument(fixture('report.pdf'), 'report.pdf');
    expect(doc.pageCount).toBe(3);
    expect(doc.title).toBe('Quarterly Field Report');
    expect(ofKind(doc, 'heading').map(({ level, text, page }) => [level, text, page])).toEqual([
      [1, 'Quarterly Field Report', 1],
      [2, 'Summary', 1],
      [2, 'Methods', 2],
      [2, 'Results', 3],
    ]);
    expect(ofKind(doc, 'paragraph').map(({ text, page }) => [page, text])).toEqual([
      [
        1,
        'The survey team visited twelve sites along the northern coast and recorded water temperature, salinity and turbidity at each of them.',
      ],
      [1, 'A second paragraph notes that two sites were inaccessible.'],
      [2, 'Samples were taken at dawn with calibrated probes and stored at four degrees until analysis in the central laboratory.'],
      [3, 'Mean salinity rose by 0.4 units compared with the previous quarter.'],
    ]);
  });

  it('drops running headers and page numbers, and reads bullets as list items', () => {
    const line = (text: string, y: number, size = 10): TextRun => ({
      text,
      x: 72,
      y,
      width: text.length * size * 0.5,
      size,
      endsLine: true,
    });
    const page = (number: number, body: TextRun[]) => ({
      page: number,
      runs: [line(`Annual Report ${2024}`, 800, 9), ...body, line(String(number), 40, 9)],
    });
    const blocks = layoutBlocks([
      page(1, [line('Overview', 760, 16), line('Costs fell sharply in every', 740), line('region.', 728)]),
      page(2, [line('• Staff costs', 760), line('• Energy costs, which were re-', 748), line('duced by half', 736)]),
      page(3, [line('The end.', 760)]),
    ]);
    expect(blocks).toEqual([
      // The first page keeps its header line: there it is usually the document's title.
      { kind: 'paragraph', text: 'Annual Report 2024', page: 1 },
      { kind: 'heading', level: 1, text: 'Overview', page: 1 },
      { kind: 'paragraph', text: 'Costs fell sharply in every region.', page: 1 },
      { kind: 'list-item', text: 'Staff costs', page: 2 },
      { kind: 'list-item', text: 'Energy costs, which were reduced by half', page: 2 },
      { kind: 'paragraph', text: 'The end.', page: 3 },
    ]);
  });

  it('names password-protected, damaged and scanned PDFs', async () => {
    expect((await failure(extractDocument(fixture('encrypted.pdf'), 'encrypted.pdf'))).reason).toBe('encrypted');
    expect((await failure(extractDocument(fixture('corrupt.pdf'), 'corrupt.pdf'))).reason).toBe('corrupt');
    expect((await failure(extractDocument(fixture('random.bin'), 'random.pdf'))).reason).toBe('corrupt');
    const scanned = await failure(extractDocument(fixture('scanned.pdf'), 'scanned.pdf'));
    expect(scanned.reason).toBe('empty');
    expect(scanned.message).toMatch(/no text layer/);
  });
});

describe('DOCX', () => {
  it('keeps headings, list items and tables', async () => {
    const doc = await extractDocument(fixture('handbook.docx'), 'handbook.docx');
    expect(doc.title).toBe('Onboarding Handbook');
    expect(ofKind(doc, 'heading').map(({ level, text }) => [level, text])).toEqual([
      [1, 'Onboarding Handbook'],
      [2, 'First Day'],
      [2, 'Contacts'],
      [3, 'Security Policy'],
    ]);
    expect(ofKind(doc, 'list-item').map((item) => item.text)).toEqual([
      'Collect your badge at reception.',
      'Set up your laptop with the IT desk.',
      'Meet your onboarding buddy.',
    ]);
    expect(ofKind(doc, 'table')[0]?.rows).toEqual([
      ['Team', 'Contact', 'Room'],
      ['IT desk', 'it@example.com', 'B-101'],
      ['People team', 'people@example.com', 'C-204'],
    ]);
    expect(doc.blocks).toContainEqual({ kind: 'paragraph', text: 'Lock your screen whenever you leave your desk.' });
  });

  it('names password-protected, damaged, legacy and non-Word files', async () => {
    expect((await failure(extractDocument(fixture('encrypted.docx'), 'encrypted.docx'))).reason).toBe('encrypted');
    const truncated = fixture('handbook.docx').subarray(0, 2000);
    expect((await failure(extractDocument(truncated, 'handbook.docx'))).reason).toBe('corrupt');
    expect((await failure(extractDocument(fixture('random.bin'), 'random.docx'))).reason).toBe('corrupt');
    const legacy = await failure(extractDocument(compoundFileWithStream('WordDocument'), 'old.doc'));
    expect(legacy.reason).toBe('unsupported');
    expect(legacy.message).toMatch(/Word 97-2003/);
  });

  it('refuses an archive that declares an absurd unpacked size', async () => {
    const bomb = zipDeclaring([
      { name: '[Content_Types].xml', size: 1000 },
      { name: 'word/document.xml', size: 0xfffffff0 },
    ]);
    expect(detectFormat(bomb, 'bomb.docx')).toBe('docx');
    const error = await failure(extractDocument(bomb, 'bomb.docx'));
    expect(error.reason).toBe('too_large');
    expect(error.message).toMatch(/zip bomb/);
  });

  it('refuses a zip bomb by its compression ratio, by its total size, and when it lies about its size', async () => {
    const bomb = await docxBomb(20 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(200 * 1024);
    expect(detectFormat(bomb, 'upload')).toBe('docx');
    const byRatio = await failure(extractDocument(bomb, 'bomb.docx'));
    expect(byRatio).toMatchObject({ reason: 'too_large', message: expect.stringMatching(/compressed more than 100:1/) });

    const generous = { zipLimits: { maxUncompressedBytes: 10 * 1024 * 1024, maxCompressionRatio: 100_000 } };
    expect(await failure(extractDocument(bomb, 'bomb.docx', undefined, generous))).toMatchObject({
      reason: 'too_large',
      message: expect.stringMatching(/more than 10 MiB/),
    });

    const liar = declaringSize(bomb, 'word/document.xml', 500_000);
    const lying = await failure(extractDocument(liar, 'bomb.docx'));
    expect(lying).toMatchObject({ reason: 'too_large', message: expect.stringMatching(/more than its ZIP directory declares/) });
  });

  it('reads a document of one long run without spaces', async () => {
    const doc = await extractDocument(await docxWithText('x'.repeat(300_000)), 'run.docx');
    expect(doc.blocks).toEqual([{ kind: 'paragraph', text: 'x'.repeat(300_000) }]);
  });
});

describe('CSV', () => {
  it('detects the delimiter and keeps quoted fields whole, header first', async () => {
    const doc = await extractDocument(fixture('inventory.csv'), 'inventory.csv');
    expect(doc.blocks).toEqual([
      {
        kind: 'table',
        rows: [
          ['Item', 'Warehouse', 'Quantity', 'Note'],
          ['Bolts M6', 'Berlin', '1200', 'Box of 100; galvanised'],
          ['Nuts M6', 'Berlin', '950', ''],
          ['Washers', 'Hamburg', '3000', 'Two lines:\nsecond line'],
          ['Brackets', 'Munich', '45', 'Reorder soon'],
        ],
      },
    ]);
  });

  it.each([
    ['comma', 'a,b\n"1,5",2\n'],
    ['tab', 'a\tb\n1,5\t2\n'],
    ['pipe', 'a|b\n1,5|2\n'],
  ])('reads %s-separated values', async (_name, source) => {
    const doc = await extractDocument(Buffer.from(source), 'data.csv');
    expect(ofKind(doc, 'table')[0]?.rows).toEqual([
      ['a', 'b'],
      ['1,5', '2'],
    ]);
  });

  it('reads a Windows-1252 export from Excel', async () => {
    const bytes = Buffer.from([...Buffer.from('Name;City\nJos'), 0xe9, ...Buffer.from(';K'), 0xf6, ...Buffer.from('ln\n')]);
    const doc = await extractDocument(bytes, 'export.csv');
    expect(ofKind(doc, 'table')[0]?.rows).toEqual([
      ['Name', 'City'],
      ['José', 'Köln'],
    ]);
  });

  it('tolerates ragged rows and stray quotes', async () => {
    const doc = await extractDocument(Buffer.from('name,size\nplain "quoted" word,3,extra\nshort\n'), 'ragged.csv');
    expect(ofKind(doc, 'table')[0]?.rows).toEqual([['name', 'size'], ['plain "quoted" word', '3', 'extra'], ['short']]);
  });
});

describe('XLSX', () => {
  it('makes one named table per non-empty sheet with display values', async () => {
    const doc = await extractDocument(fixture('orders.xlsx'), 'orders.xlsx');
    expect(doc.pageCount).toBe(3);
    expect(doc.blocks).toEqual([
      {
        kind: 'table',
        name: 'Orders',
        page: 1,
        rows: [
          ['Order', 'Customer', 'Quantity', 'Unit price', 'Total', 'Shipped'],
          ['1001', 'Acme Ltd', '3', '12.5', '37.5', '2024-03-01'],
          ['1002', 'Globex', '10', '4.2', '42', '2024-03-05'],
          ['1003', 'Initech GmbH', '1', '99', '99', ''],
        ],
      },
      {
        kind: 'table',
        name: 'Products',
        page: 2,
        rows: [
          ['SKU', 'Name', 'In stock'],
          ['W-1', 'Widget', 'TRUE'],
          ['G-2', 'Gadget', 'FALSE'],
        ],
      },
    ]);
  });

  it('names password-protected and damaged workbooks', async () => {
    expect((await failure(extractDocument(fixture('encrypted.docx'), 'encrypted.xlsx'))).reason).toBe('encrypted');
    const truncated = fixture('orders.xlsx').subarray(0, 3000);
    expect((await failure(extractDocument(truncated, 'orders.xlsx'))).reason).toBe('corrupt');
  });
});

describe('JSON', () => {
  it('turns nested objects into headings by key path and records into a table', async () => {
    const doc = await extractDocument(fixture('service.json'), 'service.json');
    expect(doc.blocks).toEqual([
      { kind: 'paragraph', text: 'service: orders-api' },
      { kind: 'paragraph', text: 'version: 3' },
      { kind: 'heading', level: 1, text: 'owner' },
      { kind: 'paragraph', text: 'team: Checkout' },
      { kind: 'heading', level: 2, text: 'owner.contact' },
      { kind: 'paragraph', text: 'email: checkout@example.com' },
      { kind: 'paragraph', text: 'oncall: true' },
      { kind: 'paragraph', text: 'regions: eu-west-1, us-east-1' },
      { kind: 'heading', level: 1, text: 'endpoints' },
      {
        kind: 'table',
        name: 'endpoints',
        rows: [
          ['method', 'path', 'auth', 'rateLimit'],
          ['GET', '/orders', 'token', ''],
          ['POST', '/orders', 'token', '100'],
        ],
      },
    ]);
  });

  it('reads a top-level array of records and JSON Lines as tables', async () => {
    const array = await extractDocument(Buffer.from('[{"id":1,"name":"Ada"},{"id":2,"email":"b@example.com"}]'), 'people.json');
    expect(array.blocks).toEqual([
      {
        kind: 'table',
        rows: [
          ['id', 'name', 'email'],
          ['1', 'Ada', ''],
          ['2', '', 'b@example.com'],
        ],
      },
    ]);
    const lines = await extractDocument(Buffer.from('{"id":1}\n{"id":2}\n'), 'events.jsonl');
    expect(lines.blocks).toEqual([{ kind: 'table', rows: [['id'], ['1'], ['2']] }]);
  });

  it('reports invalid JSON as corrupt and an empty object as empty', async () => {
    expect((await failure(extractDocument(Buffer.from('{"open": '), 'broken.json'))).reason).toBe('corrupt');
    expect((await failure(extractDocument(Buffer.from('{}'), 'nothing.json'))).reason).toBe('empty');
  });
});

describe('unsupported files', () => {
  it('says what was detected', async () => {
    const random = await failure(extractDocument(fixture('random.bin'), 'random.bin'));
    expect(random.reason).toBe('unsupported');
    expect(random.message).toMatch(/unrecognised binary data/);
    const image = await failure(extractDocument(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'scan.png'));
    expect(image.message).toMatch(/PNG image/);
    const archive = await failure(extractDocument(zipDeclaring([{ name: 'notes/readme.txt', size: 10 }]), 'notes.zip'));
    expect(archive.message).toMatch(/ZIP archive/);
    const legacyExcel = await failure(extractDocument(compoundFileWithStream('Workbook'), 'old.xls'));
    expect(legacyExcel.message).toMatch(/Excel 97-2003/);
  });
});

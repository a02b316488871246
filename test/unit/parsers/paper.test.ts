import { paperParser } from '../../../knowledge/parsers/paper';
import { expectWellFormed, fixtureText, flat, plainTextDocument } from './fixture-documents';

const TITLE = 'Hybrid Lexical and Dense Retrieval for Technical Support Knowledge Bases';
const REFERENCE_ENTRY = /^\[\d+\] /;

describe('paper parser', () => {
  const options = { chunkTokens: 200, overlapTokens: 40 };
  const text = fixtureText('paper-hybrid-retrieval.txt');
  const chunks = paperParser.parse(plainTextDocument(text), options);

  it('gives the title, front matter and abstract their own chunks and roles', () => {
    expectWellFormed(chunks, options);
    expect(chunks[0]).toMatchObject({ sectionPath: [TITLE], role: 'front-matter' });
    expect(chunks[0]!.content).toContain('Maria Keller, Tomás Ribeiro and Li Wen');
    const abstracts = chunks.filter((chunk) => chunk.role === 'abstract');
    expect(abstracts).toHaveLength(1);
    expect(abstracts[0]!.sectionPath).toEqual([TITLE, 'Abstract']);
    expect(abstracts[0]!.content).toMatch(/^Support engineers search knowledge bases/);
    expect(abstracts[0]!.content).toContain('Keywords: information retrieval');
  });

  it('chunks numbered sections and subsections under their path', () => {
    const paths = [...new Set(chunks.map((chunk) => chunk.sectionPath.slice(1).join(' > ')))];
    expect(paths).toEqual([
      '',
      'Abstract',
      '1 Introduction',
      '2 Related Work > 2.1 Lexical and Dense Retrieval',
      '2 Related Work > 2.2 Fusion Methods',
      '3 Method > 3.1 Chunking',
      '3 Method > 3.2 Retrieval and Fusion',
      '4 Experiments > 4.1 Data',
      '4 Experiments > 4.2 Results',
      '5 Conclusion',
      'Acknowledgments',
      'References',
    ]);
    // A line that starts with a number inside a sentence ("1 / (k + rank(d))") is not a heading.
    const fusion = chunks.find((chunk) => chunk.sectionPath.includes('3.2 Retrieval and Fusion'))!;
    expect(fusion.content).toContain('1 / (k + rank(d)), with k = 60 as recommended in [5].');
    expect(chunks.filter((chunk) => chunk.sectionPath.includes('1 Introduction')).length).toBeGreaterThan(1);
  });

  it('keeps references apart: whole entries only, never with body text', () => {
    const references = chunks.filter((chunk) => chunk.role === 'reference');
    expect(references.length).toBeGreaterThan(1);
    const entries = references.flatMap((chunk) => chunk.content.split('\n'));
    expect(entries.map((entry) => entry.slice(0, 4))).toEqual(['[1] ', '[2] ', '[3] ', '[4] ', '[5] ', '[6] ']);
    expect(entries[1]).toBe(
      '[2] V. Karpukhin, B. Oguz, S. Min, P. Lewis, L. Wu, S. Edunov, D. Chen and W. Yih. Dense passage retrieval for open-domain question answering. In Proceedings of EMNLP, pages 6769-6781, 2020.',
    );
    for (const chunk of references) expect(chunk.sectionPath).toEqual([TITLE, 'References']);
    // Body chunks hold no reference entry, and reference chunks hold nothing but entries.
    for (const chunk of chunks.filter((c) => c.role !== 'reference')) {
      expect(chunk.content.split('\n').some((line) => REFERENCE_ENTRY.test(line))).toBe(false);
    }
    expect(references.some((chunk) => chunk.content.includes('We thank the support engineers'))).toBe(false);
    // The last body chunk before the references ends the acknowledgments.
    const lastBody = chunks[chunks.indexOf(references[0]!) - 1]!;
    expect(flat(lastBody.content)).toMatch(/anonymous reviewers for their comments\.$/);
  });

  it('reads IEEE-style roman sections with lettered subsections and an upper-case references heading', () => {
    const ieee = [
      'Detecting Clogged Air Filters from Fan Power',
      'A. Novak and J. Petersen',
      'Abstract—We show that the electrical power of a ventilation fan at a fixed speed reveals how clogged its filter is.',
      'I. INTRODUCTION',
      'Filters in ventilation units are usually changed on a fixed schedule. A sensor-free estimate of clogging would let units ask for a change only when it is needed.',
      'II. METHOD',
      'A. Measurement',
      'Once a day the controller runs the fan at 1,800 rpm for one minute and records the mean power.',
      'B. Decision Rule',
      'A filter change is requested when the power has dropped by more than 25 % since the last change.',
      'III. CONCLUSION',
      'Fan power is a cheap and reliable indicator of filter state.',
      'REFERENCES',
      '[1] ASHRAE. Standard 52.2: Method of testing general ventilation air-cleaning devices. 2017.',
      '[2] J. Petersen. Fan laws for small ventilation units. Building Services Journal, 12(3):44-51, 2019.',
    ].join('\n\n');
    const parsed = paperParser.parse(plainTextDocument(ieee), options);
    expect(parsed.map((chunk) => [chunk.sectionPath.slice(1).join(' > '), chunk.role ?? 'body'])).toEqual([
      ['', 'front-matter'],
      ['Abstract', 'abstract'],
      ['I. INTRODUCTION', 'body'],
      ['II. METHOD > A. Measurement', 'body'],
      ['II. METHOD > B. Decision Rule', 'body'],
      ['III. CONCLUSION', 'body'],
      ['REFERENCES', 'reference'],
    ]);
    expect(parsed[1]!.content).toMatch(/^We show that the electrical power/);
    expect(parsed[6]!.content.split('\n')).toHaveLength(2);
  });

  it('takes the title from the first heading block of a structured document', () => {
    const parsed = paperParser.parse(
      {
        blocks: [
          { kind: 'heading', level: 1, text: 'Fan Power as a Filter Sensor' },
          { kind: 'heading', level: 2, text: 'Abstract' },
          { kind: 'paragraph', text: 'Fan power at fixed speed tracks filter clogging.' },
          { kind: 'heading', level: 2, text: '1 Introduction' },
          { kind: 'paragraph', text: 'Filters are changed on a schedule.' },
          { kind: 'heading', level: 2, text: 'References' },
          { kind: 'list-item', text: 'ASHRAE. Standard 52.2. 2017.' },
          { kind: 'list-item', text: 'J. Petersen. Fan laws for small ventilation units. 2019.' },
        ],
      },
      options,
    );
    expect(parsed.map((chunk) => [chunk.sectionPath, chunk.role, chunk.content])).toEqual([
      [['Fan Power as a Filter Sensor', 'Abstract'], 'abstract', 'Fan power at fixed speed tracks filter clogging.'],
      [['Fan Power as a Filter Sensor', '1 Introduction'], undefined, 'Filters are changed on a schedule.'],
      [
        ['Fan Power as a Filter Sensor', 'References'],
        'reference',
        'ASHRAE. Standard 52.2. 2017.\nJ. Petersen. Fan laws for small ventilation units. 2019.',
      ],
    ]);
  });
});

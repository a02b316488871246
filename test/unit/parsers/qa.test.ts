import type { ExtractedDocument } from '../../../knowledge/document-model';
import { qaParser } from '../../../knowledge/parsers/qa';
import { expectWellFormed, fixtureText, plainTextDocument } from './fixture-documents';

const options = { chunkTokens: 256, overlapTokens: 32 };

describe('qa parser', () => {
  it('makes one chunk per Q:/A: (and Question:/Answer:) pair, with multi-line questions and answers', () => {
    const chunks = qaParser.parse(plainTextDocument(fixtureText('faq-home-router.txt')), options);
    expectWellFormed(chunks, options);
    const pairs = chunks.filter((chunk) => chunk.role === 'qa');
    expect(pairs.map((chunk) => chunk.metadata?.question)).toEqual([
      'How do I reset the router to factory settings?',
      'Why is my 5 GHz network not visible on older devices?',
      'Can I use the router with a DSL line?',
      'How often does the router install updates, and can I postpone them?',
      'What does a red status light mean?',
    ]);
    expect(pairs[0]!.content).toBe(
      'How do I reset the router to factory settings?\nWith the router switched on, press and hold the RESET button on the\nback for ten seconds, until the status light flashes amber. The router\nrestarts with the network name and password printed on its label.\nAll your settings, including port forwarding rules, are erased.',
    );
    // An answer of two paragraphs stays in its pair.
    expect(pairs[3]!.content).toMatch(
      /^How often does the router install updates, and can I postpone them\?\nUpdates are checked[\s\S]*\n\nYou can postpone an update[\s\S]*Security updates cannot be postponed\.$/,
    );
    // The introduction is not a pair.
    expect(chunks[0]).toMatchObject({ sectionPath: [] });
    expect(chunks[0]!.role).toBeUndefined();
    expect(chunks[0]!.content).toMatch(/^Home Router HR-300: Frequently Asked Questions/);
  });

  it('reads question headings with their answer paragraphs, under the other headings as sectionPath', () => {
    const helpCentre: ExtractedDocument = {
      blocks: [
        { kind: 'heading', level: 1, text: 'Billing' },
        { kind: 'heading', level: 2, text: 'When is my card charged?' },
        { kind: 'paragraph', text: 'Your card is charged on the first day of each billing period.' },
        { kind: 'paragraph', text: 'If the charge fails, we retry three times over the following week.' },
        { kind: 'heading', level: 2, text: 'Can I get an invoice for my company?' },
        { kind: 'paragraph', text: 'Yes. Add your company name and VAT number under Account > Billing details before the next charge.' },
        { kind: 'heading', level: 1, text: 'Accounts' },
        { kind: 'heading', level: 2, text: 'How do I delete my account?' },
        { kind: 'list-item', text: 'Open Account > Privacy.' },
        { kind: 'list-item', text: 'Choose Delete account and confirm with your password.' },
      ],
    };
    const chunks = qaParser.parse(helpCentre, options);
    expect(chunks.map((chunk) => [chunk.sectionPath, chunk.role, chunk.metadata?.question])).toEqual([
      [['Billing'], 'qa', 'When is my card charged?'],
      [['Billing'], 'qa', 'Can I get an invoice for my company?'],
      [['Accounts'], 'qa', 'How do I delete my account?'],
    ]);
    expect(chunks[0]!.content).toBe(
      'When is my card charged?\nYour card is charged on the first day of each billing period.\n\nIf the charge fails, we retry three times over the following week.',
    );
    expect(chunks[2]!.content).toBe(
      'How do I delete my account?\nOpen Account > Privacy.\nChoose Delete account and confirm with your password.',
    );
  });

  it('reads two-column tables as pairs, skipping a header row', () => {
    const spreadsheet: ExtractedDocument = {
      blocks: [
        {
          kind: 'table',
          name: 'Shipping FAQ',
          rows: [
            ['Question', 'Answer'],
            ['Do you ship to Switzerland?', 'Yes, with customs duties paid by the recipient.'],
            ['How long does delivery take?', 'Two to four working days within the EU.'],
          ],
        },
      ],
    };
    const chunks = qaParser.parse(spreadsheet, options);
    expect(chunks.map((chunk) => [chunk.content, chunk.metadata])).toEqual([
      ['Do you ship to Switzerland?\nYes, with customs duties paid by the recipient.', { question: 'Do you ship to Switzerland?' }],
      ['How long does delivery take?\nTwo to four working days within the EU.', { question: 'How long does delivery take?' }],
    ]);
  });

  it('reads paragraphs that open with a question when there are no Q:/A: labels', () => {
    const text = [
      'Is the kettle safe to boil dry?',
      'No harm is done: the controller cuts the power within three seconds when the\nbase heats up too fast, and the buzzer sounds.',
      'Can I descale it with vinegar?\nYes. Fill it with one part vinegar and two parts water, leave it for an\nhour, then rinse it twice.',
    ].join('\n\n');
    const chunks = qaParser.parse(plainTextDocument(text), options);
    expect(chunks.map((chunk) => chunk.content)).toEqual([
      'Is the kettle safe to boil dry?\nNo harm is done: the controller cuts the power within three seconds when the\nbase heats up too fast, and the buzzer sounds.',
      'Can I descale it with vinegar?\nYes. Fill it with one part vinegar and two parts water, leave it for an\nhour, then rinse it twice.',
    ]);
  });

  it('splits a long answer, repeating the question on every piece', () => {
    const small = { chunkTokens: 40, overlapTokens: 0 };
    const chunks = qaParser.parse(plainTextDocument(fixtureText('faq-home-router.txt')), small);
    expectWellFormed(chunks, small);
    const reset = chunks.filter((chunk) => chunk.metadata?.question === 'How do I reset the router to factory settings?');
    expect(reset.length).toBeGreaterThan(1);
    reset.forEach((chunk, index) => {
      expect(chunk.content.startsWith('How do I reset the router to factory settings?\n')).toBe(true);
      expect(chunk.metadata).toMatchObject({ part: index + 1, parts: reset.length });
    });
  });
});

import {
  composeOfflineAnswer,
  MAX_QUOTE_CHARS,
  NO_MATCH_TEXT,
  queryTerms,
  quoteFor,
  type QuotablePassage,
} from '../../completion/offline-answer';

const passage = (n: number, content: string, docName = `doc-${n}.pdf`, similarity = 0.9 - n / 10): QuotablePassage => ({
  chunk_id: `chk_${n}`,
  doc_id: `doc_${n}`,
  doc_name: docName,
  kb_id: 'kb_handbook',
  content,
  similarity,
});

const LEAVE_POLICY = [
  '# 4. Time off',
  'The company observes twelve public holidays each calendar year; the list is published in December.',
  'Full-time employees accrue 25 days of paid annual leave per year, credited monthly at 2.08 days.',
  'Part-time employees accrue leave pro rata to their contracted hours.',
  'Leave requests are submitted in the HR portal at least two weeks in advance and approved by the line manager.',
  'Unused annual leave may be carried over into the next year, but carried-over days expire on 31 March.',
  "Sick leave is handled separately and is described in section 5; a doctor's note is required after three consecutive days.",
  'Parental leave follows the statutory minimum, topped up to full pay for the first eight weeks.',
  'Sabbaticals of up to three months can be requested after five years of service.',
].join('\n');

const EXPENSES =
  'Travel expenses are reimbursed within 30 days when submitted with receipts. Economy class is the default for flights under six hours.';

describe('composeOfflineAnswer', () => {
  const question = 'How many days of paid annual leave do employees get, and when do unused days expire?';

  it('says at the top that no language model was used and that this is an extract', () => {
    const { answer } = composeOfflineAnswer(question, [passage(1, LEAVE_POLICY, 'Employee Handbook.pdf')], { maxPassages: 3 });
    const firstLine = answer.split('\n')[0]!;
    expect(firstLine).toContain('No language model was used');
    expect(firstLine).toContain('extract of the knowledge bases');
  });

  it("quotes the sentences that hold the question's terms and cites them in reference order", () => {
    const passages = [passage(1, LEAVE_POLICY, 'Employee Handbook.pdf', 0.82), passage(2, EXPENSES, 'Travel Policy.docx', 0.41)];
    const { answer, reference } = composeOfflineAnswer(question, passages, { maxPassages: 3 });

    expect(reference.map((r) => [r.index, r.chunk_id, r.doc_name, r.similarity])).toEqual([
      [1, 'chk_1', 'Employee Handbook.pdf', 0.82],
      [2, 'chk_2', 'Travel Policy.docx', 0.41],
    ]);
    expect(reference[0]).toMatchObject({ doc_id: 'doc_1', kb_id: 'kb_handbook', content: LEAVE_POLICY });

    const cite1 = answer.indexOf('[1]');
    const cite2 = answer.indexOf('[2]');
    expect(cite1).toBeGreaterThan(0);
    expect(cite2).toBeGreaterThan(cite1);
    const firstQuote = answer.slice(cite1, cite2);
    expect(firstQuote).toContain('Employee Handbook.pdf');
    expect(firstQuote).toContain('25 days of paid annual leave');
    expect(firstQuote).toContain('carried-over days expire on 31 March');
    // The long passage is cut to what matters: the sabbatical sentence has none of the question's terms.
    expect(firstQuote).not.toContain('Sabbaticals');
    expect(firstQuote).toContain('…');
    expect(answer.slice(cite2)).toContain('Travel expenses are reimbursed');
  });

  it('quotes at most maxPassages passages, each at most about 600 characters', () => {
    const long = Array.from(
      { length: 40 },
      (_, i) => `Clause ${i + 1}: annual leave rules apply to group ${i + 1} of employees in region ${i}.`,
    ).join(' ');
    const passages = [1, 2, 3, 4, 5].map((n) => passage(n, long));
    const { answer, reference } = composeOfflineAnswer(question, passages, { maxPassages: 2 });
    expect(reference).toHaveLength(2);
    expect(answer).toContain('[2]');
    expect(answer).not.toContain('[3]');
    const quotes = answer.split('\n').filter((l) => l.startsWith('> ') && !l.includes('No language model'));
    expect(quotes).toHaveLength(2);
    for (const q of quotes) expect(q.length).toBeLessThanOrEqual(MAX_QUOTE_CHARS + 10);
  });

  it('skips empty and repeated passages', () => {
    const { reference } = composeOfflineAnswer(
      question,
      [passage(1, '   '), passage(2, EXPENSES), passage(2, EXPENSES), passage(3, LEAVE_POLICY)],
      { maxPassages: 5 },
    );
    expect(reference.map((r) => [r.index, r.chunk_id])).toEqual([
      [1, 'chk_2'],
      [2, 'chk_3'],
    ]);
  });

  it('says plainly that nothing matches when there is no passage', () => {
    const { answer, reference } = composeOfflineAnswer(question, [], { maxPassages: 3 });
    expect(reference).toEqual([]);
    expect(answer).toContain('No language model was used');
    expect(answer).toContain(NO_MATCH_TEXT);
    expect(answer).not.toMatch(/\[1\]/);
  });

  it('keeps passage text from turning into Markdown structure', () => {
    const { answer } = composeOfflineAnswer('heading', [passage(1, '# Heading text\nbody', 'notes*draft*.md')], { maxPassages: 1 });
    expect(answer).toContain('> \\# Heading text body');
    expect(answer).toContain('notes\\*draft\\*.md');
  });
});

describe('quoteFor', () => {
  it('returns a short passage whole, with whitespace collapsed', () => {
    expect(quoteFor('Refunds are issued\n  within 14 days.', ['refund'])).toBe('Refunds are issued within 14 days.');
  });

  it('cuts one very long sentence around the first term', () => {
    const sentence = `${'lorem ipsum '.repeat(80)}the warranty covers parts and labour ${'dolor sit amet '.repeat(60)}`;
    const quote = quoteFor(sentence, queryTerms('What does the warranty cover?'));
    expect(quote.length).toBeLessThanOrEqual(MAX_QUOTE_CHARS);
    expect(quote).toContain('warranty covers parts and labour');
    expect(quote.startsWith('…')).toBe(true);
    expect(quote.endsWith('…')).toBe(true);
  });

  it('matches Chinese questions by character pairs', () => {
    const content = `${'公司介绍与历史沿革。'.repeat(40)}员工每年享有二十五天带薪年假。${'办公地点位于上海。'.repeat(40)}`;
    expect(quoteFor(content, queryTerms('员工有多少天年假？'))).toContain('员工每年享有二十五天带薪年假');
  });
});

describe('queryTerms', () => {
  it('drops stopwords and keeps content words once', () => {
    expect(queryTerms('What is the refund policy for the refund of damaged goods?')).toEqual(['refund', 'policy', 'damaged', 'goods']);
  });
});

import {
  IMPORT_INSTRUCTIONS,
  NotImportableError,
  normalisePriority,
  normaliseSeverity,
  parseImport,
  parseModelImport,
} from '../../completion/import-items';

/** A requirements export as spreadsheets write it: quoted commas, doubled quotes, a row without a title, a ragged row. */
const REQUIREMENTS_CSV = [
  'Summary,Description,Priority,Labels,Owner',
  '"Export reports to PDF","Users can export any report as PDF, with charts and the ""Generated on"" footer",P1 - High,"reporting, export",ana',
  ',"A row whose title cell is empty",Low,,bob',
  'Single sign-on,"SAML 2.0 and OIDC, for enterprise tenants",Must,auth,carl',
  'Audit log,Every admin action is recorded,medium,,dan,stray,cells',
  '   ,   ,   ,   ,   ',
  'Data retention settings,,could,,',
].join('\n');

describe('parseImport: CSV', () => {
  it('reads a CSV under a question, validating each row', () => {
    const result = parseImport(`Please import these requirements from our spreadsheet:\n\n${REQUIREMENTS_CSV}`, { mode: 'requirements' });
    expect(result.source_format).toBe('csv');
    expect(result.items).toEqual([
      {
        title: 'Export reports to PDF',
        description: 'Users can export any report as PDF, with charts and the "Generated on" footer',
        priority: 'high',
        labels: ['reporting', 'export'],
        extra: { Owner: 'ana' },
      },
      {
        title: 'Single sign-on',
        description: 'SAML 2.0 and OIDC, for enterprise tenants',
        priority: 'high',
        labels: ['auth'],
        extra: { Owner: 'carl' },
      },
      { title: 'Data retention settings', priority: 'low' },
    ]);
    expect(result.errors).toEqual([
      { row: 2, message: expect.stringContaining('no title') },
      { row: 4, message: expect.stringContaining('7 fields but the header has 5') },
    ]);
    expect(result.count).toBe(3);
  });

  it('reads semicolon-separated exports and the `a | b` tables attachments become', () => {
    const european = parseImport('Titel;Title;Priorität\nAlt;Rechnungen als PDF;hoch\nAlt;Mahnwesen;niedrig', { mode: 'requirements' });
    expect(european.items.map((i) => i.title)).toEqual(['Rechnungen als PDF', 'Mahnwesen']);

    const attachment = [
      'Import the attached bug list',
      '',
      'Title | Severity | Steps to reproduce | Component',
      'Crash on save | Sev 1 | open the editor; press Ctrl+S | editor',
      ' | minor | nothing to see | ui',
      'Typo in footer | cosmetic | scroll to the bottom | ui',
    ].join('\n');
    const bugs = parseImport(attachment, { mode: 'bugs' });
    expect(bugs.items).toEqual([
      { title: 'Crash on save', severity: 'critical', steps_to_reproduce: 'open the editor; press Ctrl+S', component: 'editor' },
      { title: 'Typo in footer', severity: 'trivial', steps_to_reproduce: 'scroll to the bottom', component: 'ui' },
    ]);
    expect(bugs.errors).toEqual([{ row: 2, message: expect.stringContaining('no title') }]);
  });

  it('reads a Markdown table', () => {
    const table =
      '| Name | Priority | Acceptance criteria |\n|---|:---:|---|\n| Password reset | urgent | link expires after 1 h |\n| 2FA | normal | |';
    const result = parseImport(table, { mode: 'requirements' });
    expect(result.items).toEqual([
      { title: 'Password reset', priority: 'critical', acceptance_criteria: 'link expires after 1 h' },
      { title: '2FA', priority: 'medium' },
    ]);
  });

  it('keeps fields of the other kind of item in extra', () => {
    const csv = 'title,severity,acceptance criteria\nSearch is slow,major,p95 under 300 ms';
    expect(parseImport(csv, { mode: 'requirements' }).items[0]).toEqual({
      title: 'Search is slow',
      acceptance_criteria: 'p95 under 300 ms',
      extra: { severity: 'major' },
    });
    expect(parseImport(csv, { mode: 'bugs' }).items[0]).toEqual({
      title: 'Search is slow',
      severity: 'major',
      extra: { 'acceptance criteria': 'p95 under 300 ms' },
    });
  });

  it('refuses a table without a title column, naming its header', () => {
    expect(() => parseImport('id,owner,status\n1,ana,open\n2,bob,closed', { mode: 'requirements' })).toThrow(
      new NotImportableError("the table's header (id, owner, status) has no title column: name one title, summary or name"),
    );
  });
});

describe('parseImport: JSON', () => {
  it('reads an array of objects with aliased keys, strings as titles, and reports the rest', () => {
    const json = JSON.stringify([
      { id: 'REQ-12', name: 'Dark mode', details: 'a theme toggle in the settings', importance: 'could', tags: ['ui', 'settings'] },
      { description: 'an item without a title' },
      42,
      'Keyboard shortcuts',
      { title: 'x'.repeat(501) },
    ]);
    const result = parseImport(json, { mode: 'requirements' });
    expect(result.source_format).toBe('json');
    expect(result.items).toEqual([
      {
        title: 'Dark mode',
        description: 'a theme toggle in the settings',
        priority: 'low',
        external_id: 'REQ-12',
        labels: ['ui', 'settings'],
      },
      { title: 'Keyboard shortcuts' },
    ]);
    expect(result.errors.map((e) => [e.row, e.message])).toEqual([
      [2, expect.stringContaining('no title')],
      [3, 'not an object with a title'],
      [5, 'the title is longer than 500 characters'],
    ]);
    expect(result.count).toBe(2);
  });

  it('reads {"items": [...]} in a fenced block after prose', () => {
    const text =
      'Here is the export:\n\n```json\n{"items": [{"title": "Crash when offline", "severity": "S2", "expected": "a retry banner", "actual": "white screen"}]}\n```';
    const result = parseImport(text, { mode: 'bugs' });
    expect(result.items).toEqual([{ title: 'Crash when offline', severity: 'major', expected: 'a retry banner', actual: 'white screen' }]);
  });

  it('refuses a JSON block that does not parse', () => {
    expect(() => parseImport('```json\n[{"title": "a",}]\n```', { mode: 'requirements' })).toThrow(/not valid JSON/);
  });
});

describe('parseImport: Markdown list', () => {
  it('reads bullets and numbers, titles with an optional description, and nested details', () => {
    const text = [
      'Bugs from the stand-up:',
      '',
      '- [blocker] Login fails on Safari: the SSO redirect loops',
      '  - also seen on iOS 17',
      '- **Slow dashboard**: takes 12 s with 1,000 widgets',
      '- [ ] (minor) Tooltip cut off on narrow screens',
      '- ',
      '- - -',
      '3. Export button does nothing',
    ].join('\n');
    const result = parseImport(text, { mode: 'bugs' });
    expect(result.source_format).toBe('markdown');
    expect(result.items).toEqual([
      { title: 'Login fails on Safari', description: 'the SSO redirect loops\nalso seen on iOS 17', severity: 'critical' },
      { title: 'Slow dashboard', description: 'takes 12 s with 1,000 widgets' },
      { title: 'Tooltip cut off on narrow screens', severity: 'minor' },
      { title: 'Export button does nothing' },
    ]);
    expect(result.errors).toEqual([{ row: 4, message: expect.stringContaining('no title') }]);
    expect(result.count).toBe(4);
  });

  it('keeps a bracketed word that names no level in the title', () => {
    const result = parseImport('- [API] Rate limits per tenant\n- (P1) Usage export', { mode: 'requirements' });
    expect(result.items).toEqual([{ title: '[API] Rate limits per tenant' }, { title: 'Usage export', priority: 'high' }]);
  });

  it('refuses text with nothing to import', () => {
    expect(() => parseImport('Can you import the requirements we talked about yesterday?', { mode: 'requirements' })).toThrow(
      NotImportableError,
    );
  });
});

describe('levels', () => {
  it('normalises common severity and priority spellings and keeps unknown ones', () => {
    expect(['Blocker', 'S1', 'sev 2', 'Major', 'normal', 'Low', 'cosmetic', 'P4', 'whenever'].map(normaliseSeverity)).toEqual([
      'critical',
      'critical',
      'major',
      'major',
      'minor',
      'minor',
      'trivial',
      'trivial',
      'whenever',
    ]);
    expect(['Highest', 'P1 - High', 'Must have', 'Should', 'Nice to have', '3', 'someday'].map(normalisePriority)).toEqual([
      'critical',
      'high',
      'high',
      'medium',
      'low',
      'medium',
      'someday',
    ]);
  });
});

describe('parseModelImport', () => {
  it('reads the JSON array of a fenced block and infers a bug import from its fields', () => {
    const answer =
      'I found two bugs:\n\n```json\n[\n  {"title": "Crash on save", "severity": "blocker", "steps_to_reproduce": ["open a file", "press Ctrl+S"]},\n  {"title": ""}\n]\n```\nBoth come from the attached log.';
    const result = parseModelImport(answer);
    expect(result).toEqual({
      source_format: 'json',
      items: [{ title: 'Crash on save', severity: 'critical', steps_to_reproduce: 'open a file\npress Ctrl+S' }],
      errors: [{ row: 2, message: expect.stringContaining('no title') }],
      count: 1,
    });
  });

  it('reads a bare array in the text, in the mode asked', () => {
    const result = parseModelImport('The [1] item: [{"title": "Bulk edit", "priority": "must", "severity": "high"}]', {
      mode: 'requirements',
    });
    expect(result.items).toEqual([{ title: 'Bulk edit', priority: 'high', extra: { severity: 'high' } }]);
  });

  it('takes an empty array for an answer that found nothing', () => {
    expect(parseModelImport('No requirement in the message.\n```json\n[]\n```')).toEqual({
      source_format: 'json',
      items: [],
      errors: [],
      count: 0,
    });
  });

  it('reports an answer without JSON instead of failing', () => {
    expect(parseModelImport('I could not find any requirement in the message.')).toEqual({
      source_format: 'json',
      items: [],
      errors: [{ message: 'the model answer holds no JSON array of items' }],
      count: 0,
    });
  });

  it('asks the model for what it reads', () => {
    expect(IMPORT_INSTRUCTIONS).toContain('JSON array');
    expect(IMPORT_INSTRUCTIONS).toContain('"title"');
    expect(IMPORT_INSTRUCTIONS).toContain('"severity"');
  });
});

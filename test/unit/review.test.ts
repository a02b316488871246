import {
  InvalidReviewOutputError,
  parseReviewOutput,
  REVIEW_INSTRUCTIONS,
  REVIEW_RESPONSE_FORMAT,
  streamedReport,
} from '../../completion/review-report';
import { NotADiffError, readDiffFiles } from '../../completion/review-diff';
import { type Finding, SECURITY_RULE_IDS } from '../../completion/review-rule-table';
import { reviewDiff } from '../../completion/review-rules';

// Secret-looking literals are assembled at run time so that secret scanners do not flag this file.
const AWS_KEY_ID = ['AKIA', 'Z3MHDQ7RB2XWN4PL'].join('');
const STRIPE_LIVE = (rest: string) => ['sk', 'live', rest].join('_');
const GITHUB_PAT = ['ghp', '1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8'].join('_');

/** A change as `git diff` prints it: a config file, a route handler, a new Python script, docs, a deleted file. */
const GIT_DIFF = `diff --git a/src/config.ts b/src/config.ts
index 3b18e51..a9c2f04 100644
--- a/src/config.ts
+++ b/src/config.ts
@@ -1,8 +1,12 @@
 import { z } from 'zod';
 
 export const config = {
   port: Number(process.env.PORT ?? 3000),
-  dbPassword: process.env.DB_PASSWORD,
+  dbPassword: "s3cr3t-Pa55",
+  awsAccessKeyId: '${AWS_KEY_ID}',
+  // TODO: move the feature flags to the database
+  flags: { newCheckout: true },
+  databaseUrl: process.env.DATABASE_URL,
   logLevel: process.env.LOG_LEVEL ?? 'info',
 };
 
diff --git a/src/routes/users.ts b/src/routes/users.ts
index 77ac0d2..0be41f9 100644
--- a/src/routes/users.ts
+++ b/src/routes/users.ts
@@ -10,7 +10,11 @@ export async function getUser(req: Request, res: Response) {
   const id = req.params.id;
-  const user = await db.query('SELECT * FROM users WHERE id = $1', [id]);
+  const user = await db.query("SELECT * FROM users WHERE id = '" + req.params.id + "'");
+  console.log('user loaded', user);
   if (!user) return res.status(404).end();
+  const filters = eval(req.query.filters as string);
+  const valid = /^[a-z]+$/.exec(user.name);
   res.json(user);
 }
 
@@ -40,3 +44,4 @@ export async function listUsers(req: Request, res: Response) {
   const page = Number(req.query.page ?? 1);
   const rows = await db.query(\`SELECT id, name FROM users ORDER BY name LIMIT 20 OFFSET \${(page - 1) * 20}\`);
+  debugger;
   res.json(rows);
diff --git a/scripts/backfill.py b/scripts/backfill.py
new file mode 100644
index 0000000..5d2c1aa
--- /dev/null
+++ b/scripts/backfill.py
@@ -0,0 +1,9 @@
+import os
+import pdb
+
+def backfill(cursor, table):
+    cursor.execute(f"DELETE FROM {table} WHERE migrated = false")
+    print("deleted rows")
+    # FIXME: batch this
+    os.system("psql -c 'VACUUM " + table + "'")
+    return True
diff --git a/README.md b/README.md
index 1111111..2222222 100644
--- a/README.md
+++ b/README.md
@@ -1,3 +1,7 @@
 # Service
+
+Setup
+=======
+Run \`npm start\`; never call eval( on user input.
 
 More docs soon.
diff --git a/src/old.ts b/src/old.ts
deleted file mode 100644
index 9999999..0000000
--- a/src/old.ts
+++ /dev/null
@@ -1,2 +0,0 @@
-console.log('old');
-export {};
`;

const at = (findings: Finding[]) => findings.map((f) => `${f.severity} ${f.file}:${f.line} ${f.rule}`).sort();

/** A one-file diff adding `lines` to `path`. */
const added = (path: string, lines: string[]) =>
  `--- a/${path}\n+++ b/${path}\n@@ -1,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;

describe('readDiffFiles', () => {
  it('tracks new-file line numbers across hunks and files, and marks deleted files', () => {
    const files = readDiffFiles(GIT_DIFF);
    expect(files.map((f) => [f.path, f.hunks, f.deleted])).toEqual([
      ['src/config.ts', 1, false],
      ['src/routes/users.ts', 2, false],
      ['scripts/backfill.py', 1, false],
      ['README.md', 1, false],
      ['src/old.ts', 1, true],
    ]);
    const users = files[1]!;
    expect(users.added.map((a) => a.line)).toEqual([11, 12, 14, 15, 46]);
    expect(users.added[4]!.text).toBe('  debugger;');
    expect(files[2]!.added.map((a) => a.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('does not take a removed SQL comment line for a file header, and reads CRLF diffs', () => {
    const diff = [
      'diff --git a/db/schema.sql b/db/schema.sql',
      '--- a/db/schema.sql',
      '+++ b/db/schema.sql',
      '@@ -3,3 +3,3 @@',
      ' CREATE TABLE t (id int);',
      '--- old comment',
      '+-- new comment: TODO drop column',
      ' CREATE INDEX t_id ON t (id);',
    ].join('\r\n');
    const [file] = readDiffFiles(diff);
    expect(file!.path).toBe('db/schema.sql');
    expect(file!.added).toEqual([{ line: 4, text: '-- new comment: TODO drop column' }]);
  });

  it('reads on through a hand-trimmed hunk whose counts are short, and stops at the closing fence', () => {
    const pasted = [
      'Please review:',
      '```diff',
      '--- a/app.py',
      '+++ b/app.py',
      '@@ -1,2 +1,2 @@',
      ' import os',
      '-x = 1',
      '+x = 2',
      '+y = eval(data)',
      '\\ No newline at end of file',
      '```',
      '- and please check the naming',
    ].join('\n');
    const [file] = readDiffFiles(pasted);
    expect(file!.added).toEqual([
      { line: 2, text: 'x = 2' },
      { line: 3, text: 'y = eval(data)' },
    ]);
    expect(at(reviewDiff(pasted, { mode: 'default' }).findings)).toEqual(['critical app.py:3 code.eval']);
  });

  it('finds a diff inside prose and a Markdown fence', () => {
    const question = `Please review this change to the payment client:\n\n\`\`\`diff\n${added('src/pay.js', [`const key = "${STRIPE_LIVE('4eC39HqLyjWDarjtT1zdp7dc')}";`])}\`\`\`\n\nThanks!`;
    const review = reviewDiff(question, { mode: 'default' });
    expect(at(review.findings)).toEqual(['critical src/pay.js:1 secret.token']);
    expect(review.files_reviewed).toBe(1);
  });
});

describe('reviewDiff', () => {
  it('reports what a reviewer would flag in a multi-file change, on the added lines only', () => {
    const review = reviewDiff(GIT_DIFF, { mode: 'default' });
    expect(at(review.findings)).toEqual([
      'critical scripts/backfill.py:8 code.shell',
      'critical src/config.ts:5 secret.password',
      'critical src/config.ts:6 secret.aws-access-key',
      'critical src/routes/users.ts:11 sql.string-built',
      'critical src/routes/users.ts:14 code.eval',
      'info scripts/backfill.py:7 comment.todo',
      'info src/config.ts:7 comment.todo',
      'warning scripts/backfill.py:2 debug.breakpoint',
      'warning scripts/backfill.py:5 sql.string-built',
      'warning scripts/backfill.py:6 debug.print',
      'warning src/routes/users.ts:12 debug.console',
      'warning src/routes/users.ts:46 debug.debugger',
    ]);
    expect(review.issues_found).toEqual({ critical: 5, warning: 5, info: 2 });
    // The deleted file is not reviewed; the context line with a template literal and RegExp#exec are not flagged.
    expect(review.files_reviewed).toBe(4);
    expect(review.lines_added).toBe(23);
    expect(review.findings.every((f) => f.file !== 'src/old.ts')).toBe(true);
  });

  it('writes a report that lists findings by severity without repeating secrets', () => {
    const { report, issues_found } = reviewDiff(GIT_DIFF, { mode: 'default' });
    expect(report).toContain('no language model');
    expect(report).toContain('Reviewed 4 files');
    expect(report).toContain('- [critical] `src/routes/users.ts:14`');
    expect(report).not.toContain(AWS_KEY_ID);
    expect(report).not.toContain('s3cr3t-Pa55');
    expect(report.indexOf('[critical]')).toBeLessThan(report.indexOf('[warning]'));
    expect(report.indexOf('[warning]')).toBeLessThan(report.indexOf('[info]'));
    expect((report.match(/^- \[critical\]/gm) ?? []).length).toBe(issues_found.critical);
  });

  it('keeps only the security checks in security mode', () => {
    const review = reviewDiff(GIT_DIFF, { mode: 'security' });
    expect(review.findings.length).toBeGreaterThan(0);
    expect(review.findings.every((f) => SECURITY_RULE_IDS.includes(f.rule))).toBe(true);
    expect(review.findings.map((f) => f.rule)).not.toContain('debug.console');
    expect(review.issues_found).toEqual({ critical: 5, warning: 1, info: 0 });
    expect(review.report).toContain('security checks only');
  });

  it('finds secrets in their common forms and leaves references and placeholders alone', () => {
    const flagged = reviewDiff(
      added('deploy/app.env', ['DB_PASSWORD=Tr0ub4dor&3', `STRIPE_KEY=${STRIPE_LIVE('51HqLyjWDarjtT1zdp7dcQ2')}`]) +
        added('src/keys.py', [
          `GITHUB_TOKEN = "${GITHUB_PAT}"`,
          'api_key = "9f86d081884c7d659a2feaa0c55ad015"',
          'DSN = "postgres://app:hunter22@db.internal:5432/app"',
          `-----BEGIN RSA ${'PRIVATE'} KEY-----`,
        ]),
      { mode: 'security' },
    );
    expect(at(flagged.findings)).toEqual([
      'critical deploy/app.env:1 secret.password',
      'critical deploy/app.env:2 secret.token',
      'critical src/keys.py:1 secret.token',
      'critical src/keys.py:2 secret.token',
      'critical src/keys.py:3 secret.password',
      'critical src/keys.py:4 secret.private-key',
    ]);

    const clean = reviewDiff(
      added('src/settings.ts', [
        'const password = process.env.DB_PASSWORD;',
        'const passwordLabel = "Enter your password";',
        'const tokenUrl = "https://auth.example.com/oauth/token1234567890";',
        "const secret = '${SECRET_FROM_VAULT}';",
        'const sample = "AKIAIOSFODNN7EXAMPLE";',
        'if (input.password === "") return;',
      ]) + added('config/app.yml', ['password: ${DB_PASSWORD}', 'api_key: <your-key-here>']),
      { mode: 'security' },
    );
    expect(clean.findings).toEqual([]);
    expect(clean.report).toContain('No issues found by the static checks.');
  });

  it('tells SQL built from request input from other spliced SQL and from prose', () => {
    const review = reviewDiff(
      added('src/repo.ts', [
        'const q = `SELECT * FROM orders WHERE customer_id = ${req.query.customer}`;',
        'const q2 = "DELETE FROM sessions WHERE user_id = " + userId;',
        'const msg = "Please select one item from the list" + suffix;',
        'const ok = await db.query("SELECT * FROM orders WHERE id = ?", [id]);',
      ]),
      { mode: 'default' },
    );
    expect(review.findings.map((f) => [f.line, f.severity, f.rule])).toEqual([
      [1, 'critical', 'sql.string-built'],
      [2, 'warning', 'sql.string-built'],
    ]);
    expect(review.findings[0]!.message).toContain('req.query.customer');
  });

  it('flags merge-conflict markers, long lines and debug leftovers outside comments', () => {
    const review = reviewDiff(
      added('src/app.js', [
        '<<<<<<< HEAD',
        'const mode = "a";',
        '=======',
        'const mode = "b";',
        '>>>>>>> feature/login',
        `const banner = "${'x'.repeat(170)}";`,
        '// console.log("kept for reference")',
      ]),
      { mode: 'default' },
    );
    expect(at(review.findings)).toEqual([
      'critical src/app.js:1 merge.conflict-marker',
      'critical src/app.js:3 merge.conflict-marker',
      'critical src/app.js:5 merge.conflict-marker',
      'info src/app.js:6 style.long-line',
    ]);
  });

  it('refuses text that holds no diff', () => {
    expect(() => reviewDiff('Can you review my pull request? It adds a login page.', { mode: 'default' })).toThrow(NotADiffError);
    expect(() => reviewDiff('--- a/x\n+++ b/x\n', { mode: 'default' })).toThrow(/no unified diff found/);
    // A file header without its other half: the diff parser cannot read it.
    expect(() => reviewDiff('--- a/x\nno second header\n@@ -1 +1 @@\n+y = eval(data)\n', { mode: 'default' })).toThrow(
      /unified diff could not be read/,
    );
  });
});

describe("the model review's structured output", () => {
  const valid = {
    report: '## Review\n- [critical] db.js:12 SQL built from input. [warning] and [info] tags in prose count for nothing.',
    findings: [
      { severity: 'critical', file: 'db.js', line: 12, message: 'SQL built from input' },
      { severity: 'info', file: 'README.md', line: null, message: 'typo' },
    ],
  };

  it('accepts what the schema describes, and nothing else', () => {
    expect(parseReviewOutput(JSON.stringify(valid))).toEqual(valid);
    expect(() => parseReviewOutput('## Review\n- [critical] prose')).toThrow(InvalidReviewOutputError);
    expect(() => parseReviewOutput(JSON.stringify({ ...valid, findings: [{ ...valid.findings[0], severity: 'blocker' }] }))).toThrow(
      /review\.findings\.0\.severity/,
    );
    expect(() => parseReviewOutput(JSON.stringify({ report: 'x' }))).toThrow(/review\.findings/);
    expect(() => parseReviewOutput(JSON.stringify({ ...valid, extra: 1 }))).toThrow(InvalidReviewOutputError);
  });

  it('sends a strict JSON Schema with the same fields, report first', () => {
    expect(Object.keys(REVIEW_RESPONSE_FORMAT.schema.properties)).toEqual(['report', 'findings']);
    expect(REVIEW_RESPONSE_FORMAT.schema.required).toEqual(['report', 'findings']);
    expect(REVIEW_RESPONSE_FORMAT.schema.properties.findings.items.required).toEqual(Object.keys(valid.findings[0]!));
    expect(REVIEW_INSTRUCTIONS).toContain('`findings`');
  });

  it('shows the report of a review still being streamed', () => {
    const json = JSON.stringify(valid);
    expect(streamedReport(json.slice(0, 5))).toBe('');
    expect(streamedReport(json.slice(0, 27))).toBe('## Review\n- [cr');
    for (const cut of [40, 60, 90]) expect(valid.report.startsWith(streamedReport(json.slice(0, cut)))).toBe(true);
    expect(streamedReport(json)).toBe(valid.report);
  });
});

/**
 * The `rules` review processor's rule table: static checks on one added line of a diff at a time.
 * No model, no I/O.
 */
export type Severity = 'critical' | 'warning' | 'info';
export type ReviewMode = 'default' | 'security';

export interface Finding {
  severity: Severity;
  file: string;
  /** Line number in the new version of the file. */
  line: number;
  rule: string;
  message: string;
}

export interface IssueCounts {
  critical: number;
  warning: number;
  info: number;
}

interface LineContext {
  path: string;
  ext: string;
  /** The line, trimmed, starts with a comment marker. */
  comment: boolean;
}

interface Hit {
  message: string;
  severity?: Severity;
}

interface Rule {
  id: string;
  severity: Severity;
  security: boolean;
  /** Files the rule looks at (default: every file). */
  appliesTo?: (ctx: LineContext) => boolean;
  check(text: string, ctx: LineContext): Hit | null;
}

const DOC_EXT = new Set(['md', 'mdx', 'markdown', 'rst', 'txt', 'adoc']);
const DATA_EXT = new Set(['json', 'csv', 'tsv', 'svg', 'lock', 'map', 'snap', 'xml', 'html', 'ipynb']);
const JS_EXT = new Set(['js', 'jsx', 'mjs', 'cjs', 'ts', 'tsx', 'mts', 'cts', 'vue', 'svelte']);
const CONFIG_EXT = new Set(['env', 'yml', 'yaml', 'ini', 'properties', 'conf', 'cfg', 'toml']);

const isDoc = (ctx: LineContext) => DOC_EXT.has(ctx.ext);
const isCode = (ctx: LineContext) =>
  !DOC_EXT.has(ctx.ext) && !DATA_EXT.has(ctx.ext) && !CONFIG_EXT.has(ctx.ext) && !/\.min\.[a-z]+$/.test(ctx.path);
const isJs = (ctx: LineContext) => JS_EXT.has(ctx.ext);
const isPython = (ctx: LineContext) => ctx.ext === 'py';
const isConfig = (ctx: LineContext) => CONFIG_EXT.has(ctx.ext) || /(^|\/)\.env(\.[\w-]+)?$/.test(ctx.path);

const extensionOf = (path: string) => {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (name.startsWith('.env')) return 'env';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1) : '';
};

const COMMENT_START = /^(\/\/|\/\*|\*|#(?!include|define|if|endif|else|pragma|!)|--|<!--|;)/;

/** Shows a secret's kind without repeating it: the first four characters, then its length. */
const masked = (secret: string) => `\`${secret.slice(0, 4)}…\` (${secret.length} characters)`;

// Values that are clearly not real secrets: placeholders, references to the environment or templates.
const PLACEHOLDER =
  /^(?:\*+|x{3,}|\.{3}|<[^>]*>|\$\{?[\w.:-]*\}?|%\(?\w*\)?s?|\{\{.*\}\}|your[\w-]*|example[\w-]*|placeholder|redacted|dummy|test|testing|secret|password|passw0rd|changeit|none|null|undefined|todo)$/i;
const looksLikeReference = (value: string) => PLACEHOLDER.test(value) || /^(process\.env|os\.environ|env\(|getenv|\$)/.test(value);

/** Identifiers that name a secret's metadata rather than hold it (`tokenUrl`, `secret_name`, `api_key_header`). */
const METADATA_NAME =
  /(name|names|url|uri|path|file|type|id|header|field|prefix|env|var|label|kind|length|ttl|expiry|expires|endpoint|count|policy|regex|pattern)$/i;

const KNOWN_TOKENS: Array<{ pattern: RegExp; kind: string; severity: Severity }> = [
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{36}\b/, kind: 'GitHub token', severity: 'critical' },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}\b/, kind: 'GitHub fine-grained token', severity: 'critical' },
  { pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/, kind: 'GitLab token', severity: 'critical' },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/, kind: 'Slack token', severity: 'critical' },
  { pattern: /\b[sr]k_live_[A-Za-z0-9]{16,}\b/, kind: 'Stripe live key', severity: 'critical' },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/, kind: 'Google API key', severity: 'critical' },
  { pattern: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{32,}\b/, kind: 'OpenAI/Anthropic API key', severity: 'critical' },
  { pattern: /\bBearer [A-Za-z0-9\-._~+/]{24,}=*/, kind: 'bearer token', severity: 'critical' },
  { pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, kind: 'JSON Web Token', severity: 'warning' },
];

const SQL_STATEMENT =
  /\b(?:SELECT\s+[\w*.,\s`"()]+?\s+FROM\s|INSERT\s+INTO\s|UPDATE\s+[\w.`"[\]]+\s+SET\s|DELETE\s+FROM\s|WHERE\s+[\w.`"[\]]+\s*(?:=|<|>|!=|<>|LIKE\b|IN\b))/i;
const SQL_CLAUSE = /\b(?:where|join|order\s+by|group\s+by|limit|values|set)\b/gi;

/**
 * The line holds SQL: a statement in capitals, or in lower case with a second clause (so that
 * "select one from the list" in a message is not taken for a query).
 */
function holdsSql(text: string): boolean {
  const m = SQL_STATEMENT.exec(text);
  if (!m) return false;
  const keyword = /^\w+/.exec(m[0])![0];
  return keyword === keyword.toUpperCase() || (text.match(SQL_CLAUSE) ?? []).length >= 2;
}

/** How a line splices a value into a string: returns the spliced expression, or null. */
function splicedValue(text: string): string | null {
  const patterns = [
    /\$\{([^}]+)\}/, // JS template literal
    /\bf["'][^"']*\{([^}]+)\}/, // Python f-string
    /["']\s*\.format\s*\(([^)]*)\)/, // str.format
    /["']\s*%\s*\(?([\w.[\]'"]+)/, // "... %s" % value
    /["'`]\s*\+\s*([A-Za-z_$][\w$.[\]()'"]*)/, // "..." + value
    /([A-Za-z_$][\w$.[\]()]*)\s*\+\s*["'`]/, // value + "..."
    /"[^"]*(?:\$([A-Za-z_]\w*)|#\{([^}]+)\})[^"]*"/, // PHP "$var", Ruby "#{var}"
  ];
  for (const p of patterns) {
    const m = p.exec(text);
    if (m) return (m[1] ?? m[2] ?? '').trim() || 'a value';
  }
  return null;
}

const UNTRUSTED =
  /\b(req|request|params|query|body|input|args|argv|form|cookies|headers|user_?input|userInput|\$_(GET|POST|REQUEST|COOKIE))\b/i;

const RULES: Rule[] = [
  {
    id: 'secret.private-key',
    severity: 'critical',
    security: true,
    check: (text) =>
      /-----BEGIN (?:(?:RSA|DSA|EC|OPENSSH|PGP|ENCRYPTED) )?PRIVATE KEY(?: BLOCK)?-----/.test(text)
        ? { message: 'A private key is committed: remove it from the change (and rotate it), load it from a secret store.' }
        : null,
  },
  {
    id: 'secret.aws-access-key',
    severity: 'critical',
    security: true,
    check: (text) => {
      const m = /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/.exec(text);
      // AWS documentation's sample keys end in EXAMPLE.
      if (!m || m[0].endsWith('EXAMPLE')) return null;
      return { message: `Hard-coded AWS access key id ${masked(m[0])}: remove it, rotate it, and use an IAM role or the environment.` };
    },
  },
  {
    id: 'secret.token',
    severity: 'critical',
    security: true,
    check: (text) => {
      for (const known of KNOWN_TOKENS) {
        const m = known.pattern.exec(text);
        if (m)
          return {
            severity: known.severity,
            message: `Hard-coded ${known.kind} ${masked(m[0])}: remove it, rotate it, and read it from the environment or a secret store.`,
          };
      }
      const m =
        /\b([A-Za-z0-9_.-]*(?:api[_-]?key|apikey|secret|token|access[_-]?key|auth[_-]?key|client[_-]?secret)[A-Za-z0-9_]*)["']?\s*(?::=|=>|=|:)\s*(["'`])([A-Za-z0-9_\-+/=.]{16,})\2/i.exec(
          text,
        );
      if (!m) return null;
      const name = m[1]!;
      const value = m[3]!;
      if (METADATA_NAME.test(name) || looksLikeReference(value) || !/[A-Za-z]/.test(value) || !/\d/.test(value)) return null;
      return { message: `Hard-coded credential in \`${name}\` ${masked(value)}: read it from the environment or a secret store.` };
    },
  },
  {
    id: 'secret.password',
    severity: 'critical',
    security: true,
    check: (text, ctx) => {
      const quoted = /\b([A-Za-z0-9_.-]*(?:password|passwd|pwd)[A-Za-z0-9_]*)["']?\s*(?::=|=>|=|:)\s*(["'`])((?:(?!\2).){4,}?)\2/i.exec(
        text,
      );
      const bare = isConfig(ctx)
        ? /^\s*(?:export\s+)?([A-Za-z0-9_.-]*(?:password|passwd|pwd)[A-Za-z0-9_]*)\s*[:=]\s*([^\s#'"]{4,})\s*(?:#.*)?$/i.exec(text)
        : null;
      const name = quoted?.[1] ?? bare?.[1];
      const value = quoted?.[3] ?? bare?.[2];
      // A value with spaces is prose (a label, a hint), not a password.
      if (name && value && !METADATA_NAME.test(name) && !looksLikeReference(value) && !/\s/.test(value)) {
        return { message: `Hard-coded password in \`${name}\`: read it from the environment or a secret store.` };
      }
      const url = /\b[a-z][a-z0-9+.-]*:\/\/([^\s:/@'"`]+):([^\s/@'"`]+)@[\w.-]+/i.exec(text);
      if (url && !looksLikeReference(url[2]!) && !/^(?:pass(?:word)?|pwd|\*+)$/i.test(url[2]!)) {
        return {
          message: `Hard-coded credentials in a connection URL (user \`${url[1]}\`): take the URL or its password from the environment.`,
        };
      }
      return null;
    },
  },
  {
    id: 'code.eval',
    severity: 'critical',
    security: true,
    appliesTo: isCode,
    check: (text, ctx) => {
      if (ctx.comment) return null;
      if (/(?<![\w.$])eval\s*\(/.test(text))
        return { message: '`eval()` runs arbitrary code: parse the data instead (JSON.parse, ast.literal_eval) or dispatch explicitly.' };
      if (isJs(ctx) && /\bnew\s+Function\s*\(/.test(text))
        return { severity: 'warning', message: '`new Function()` compiles code from a string at run time, like eval.' };
      if (isPython(ctx) && /(?<![\w.])exec\s*\(/.test(text)) return { message: '`exec()` runs arbitrary Python code built at run time.' };
      return null;
    },
  },
  {
    id: 'code.shell',
    severity: 'warning',
    security: true,
    appliesTo: isCode,
    check: (text, ctx) => {
      if (ctx.comment) return null;
      const shell =
        (isPython(ctx) && /\bos\.(?:system|popen)\s*\(|\bshell\s*=\s*True\b/.test(text)) ||
        (isJs(ctx) && /(?:(?<![\w.$])|\b(?:child_process|childProcess|cp)\.)(?:exec|execSync)\s*\(/.test(text)) ||
        /\b(?:shell_exec|passthru|system)\s*\(\s*["$]/.test(text);
      if (!shell) return null;
      const spliced = splicedValue(text);
      return spliced
        ? {
            severity: 'critical',
            message: `Shell command built from \`${spliced}\`: command injection; pass an argument list (execFile / subprocess.run([...])) instead.`,
          }
        : { message: 'Runs a command through a shell: prefer an argument list without a shell (execFile / subprocess.run([...])).' };
    },
  },
  {
    id: 'sql.string-built',
    severity: 'warning',
    security: true,
    appliesTo: isCode,
    check: (text, ctx) => {
      if (ctx.comment || ctx.ext === 'sql' || !holdsSql(text)) return null;
      const spliced = splicedValue(text);
      if (!spliced) return null;
      const untrusted = UNTRUSTED.test(spliced);
      return {
        severity: untrusted ? 'critical' : 'warning',
        message: `SQL built from strings with \`${spliced.slice(0, 60)}\`${untrusted ? ' (request input)' : ''}: SQL injection risk; use a parameterised query (placeholders such as ? or $1).`,
      };
    },
  },
  {
    id: 'merge.conflict-marker',
    severity: 'critical',
    security: false,
    check: (text, ctx) =>
      /^(?:<{7}|>{7})(?: |$)/.test(text) || (text === '=======' && !isDoc(ctx))
        ? { message: 'Merge-conflict marker left in the file: resolve the conflict.' }
        : null,
  },
  {
    id: 'debug.console',
    severity: 'warning',
    security: false,
    appliesTo: (ctx) => isJs(ctx),
    check: (text, ctx) =>
      !ctx.comment && /\bconsole\.(?:log|debug|trace|dir|table)\s*\(/.test(text)
        ? { message: 'Debug output (`console.log` and the like) left in: remove it or use the logger.' }
        : null,
  },
  {
    id: 'debug.debugger',
    severity: 'warning',
    security: false,
    appliesTo: (ctx) => isJs(ctx),
    check: (text, ctx) => (!ctx.comment && /(?<![\w.$])debugger\s*;?\s*$/.test(text) ? { message: '`debugger` statement left in.' } : null),
  },
  {
    id: 'debug.print',
    severity: 'warning',
    security: false,
    appliesTo: (ctx) => isPython(ctx),
    check: (text, ctx) => (!ctx.comment && /(?<![\w.])print\s*\(/.test(text) ? { message: '`print()` left in: use logging.' } : null),
  },
  {
    id: 'debug.breakpoint',
    severity: 'warning',
    security: false,
    appliesTo: isCode,
    check: (text, ctx) =>
      !ctx.comment &&
      /\bimport\s+i?pdb\b|\bi?pdb\.set_trace\s*\(|(?<![\w.])breakpoint\s*\(\s*\)|\bbinding\.(?:pry|irb)\b|^\s*byebug\b|\bvar_dump\s*\(/.test(
        text,
      )
        ? { message: 'Debugger hook left in (pdb / breakpoint / pry / var_dump): remove it.' }
        : null,
  },
  {
    id: 'comment.todo',
    severity: 'info',
    security: false,
    check: (text) => {
      const m = /\b(TODO|FIXME)\b|(?:\/\/|#|\/\*|\*|--)\s*(XXX|HACK)\b/.exec(text);
      return m ? { message: `${m[1] ?? m[2]} added: ${text.trim().slice(0, 100)}` } : null;
    },
  },
  {
    id: 'style.long-line',
    severity: 'info',
    security: false,
    appliesTo: isCode,
    check: (text) =>
      text.length > 160 ? { message: `Line is ${text.length} characters long (over 160): hard to read and review.` } : null,
  },
];

const SECURITY_RULES = RULES.filter((r) => r.security);
export const SECURITY_RULE_IDS = SECURITY_RULES.map((r) => r.id);

export const SEVERITY_ORDER: Severity[] = ['critical', 'warning', 'info'];

export function countFindings(findings: ReadonlyArray<{ severity: Severity }>): IssueCounts {
  const counts: IssueCounts = { critical: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** The findings of the rules of `mode` on one added line of the file at `path`. */
export function checkLine(path: string, line: number, text: string, mode: ReviewMode): Finding[] {
  const ctx: LineContext = { path, ext: extensionOf(path), comment: COMMENT_START.test(text.trim()) };
  const findings: Finding[] = [];
  for (const rule of mode === 'security' ? SECURITY_RULES : RULES) {
    if (rule.appliesTo && !rule.appliesTo(ctx)) continue;
    const hit = rule.check(text, ctx);
    if (hit) findings.push({ severity: hit.severity ?? rule.severity, file: path, line, rule: rule.id, message: hit.message });
  }
  return findings;
}

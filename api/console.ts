import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Middleware } from 'koa';
import { AppError, ErrorCodes } from '../common/errors';
import type { AppContext, AppState } from './context';

/**
 * The operator console (console/, built by `npm run build` into dist/console) at /console.
 *
 * Only files found in the built folder are served: a request's path is looked up among their names
 * and never joined onto the disk path, so no `..`, encoded or not, reaches the file system. Hashed
 * assets (`/console/assets/*`) are cached for a year as immutable; index.html is revalidated on
 * every load (`no-cache`, with an ETag). Any other path under /console is a deep link of the
 * single-page app and answers index.html, except what names a file (under assets/, a file
 * extension, a part starting with a dot: `..` included), which is 404 when it is not built. Every
 * answer carries a strict Content-Security-Policy: scripts, styles and connections from this
 * origin only, no framing, no plugins, no <base>.
 */

const PREFIX = '/console';
const INDEX = 'index.html';

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.json', '.txt']);
/** A deep link never ends in one of these: such a path that names no built file is a missing file (404), not a page. */
const FILE_LIKE = /\.(?:js|mjs|css|map|svg|png|jpe?g|gif|ico|webp|woff2?|ttf|json|txt|webmanifest|html)$/i;

const gzipAsync = promisify(gzip);

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A path that names a file rather than a page: under assets/, with a file's extension, or with a part starting with a dot. */
const isFileLike = (name: string) =>
  name.startsWith('assets/') || FILE_LIKE.test(name) || name.split('/').some((part) => part.startsWith('.'));

interface BuiltFile {
  path: string;
  type: string;
  /** Hashed by the build (under assets/): never changes under its name. */
  hashed: boolean;
  body?: { raw: Buffer; gzip?: Buffer; etag: string };
}

interface Build {
  /** index.html's modification time when the folder was read: a newer build is read again. */
  indexMtimeMs: number;
  files: Map<string, BuiltFile>;
}

/** The checkout's (or the production tree's) dist/console: the folder above the code holding package.json. */
function defaultConsoleDir(from = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return join(from, '..', 'console');
    dir = parent;
  }
  return join(dir, 'dist', 'console');
}

async function listFiles(root: string, dir = root): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) return listFiles(root, full);
      return Promise.resolve(entry.isFile() ? [full] : []);
    }),
  );
  return nested.flat();
}

const extensionOf = (name: string) => /\.[^./]+$/.exec(name)?.[0].toLowerCase() ?? '';

async function readBuild(dir: string, indexMtimeMs: number): Promise<Build> {
  const files = new Map<string, BuiltFile>();
  for (const full of await listFiles(dir)) {
    const name = relative(dir, full).split(sep).join('/');
    const type = TYPES[extensionOf(name)];
    // Only what the build writes and the console needs; anything else in the folder stays unserved.
    if (!type || name.startsWith('.') || name.includes('/.')) continue;
    files.set(name, { path: full, type, hashed: name.startsWith('assets/') });
  }
  return { indexMtimeMs, files };
}

async function bodyOf(file: BuiltFile): Promise<NonNullable<BuiltFile['body']>> {
  if (file.body) return file.body;
  const raw = await readFile(file.path);
  const etag = `"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`;
  // Compressed once per file, off the event loop (zlib's thread pool).
  const compressed = COMPRESSIBLE.has(extensionOf(file.path)) && raw.length > 1024 ? await gzipAsync(raw) : undefined;
  file.body = { raw, gzip: compressed, etag };
  return file.body;
}

async function send(ctx: AppContext, file: BuiltFile, cacheControl: string): Promise<void> {
  const body = await bodyOf(file);
  ctx.set('Cache-Control', cacheControl);
  ctx.set('Vary', 'Accept-Encoding');
  ctx.type = file.type;
  ctx.etag = body.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (body.gzip && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = body.gzip;
  } else {
    ctx.body = body.raw;
  }
}

export function consoleAssets(dir: string = defaultConsoleDir()): Middleware<AppState> {
  let build: Build | undefined;

  /** The built files, read again when index.html changed (a new build); undefined when there is no build. */
  async function currentBuild(): Promise<Build | undefined> {
    const index = await stat(join(dir, INDEX)).catch(() => undefined);
    if (!index?.isFile()) return undefined;
    if (build?.indexMtimeMs !== index.mtimeMs) build = await readBuild(dir, index.mtimeMs);
    return build;
  }

  async function serve(ctx: AppContext): Promise<void> {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) ctx.set(name, value);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new AppError(ErrorCodes.NOT_FOUND, `${ctx.method} is not supported on ${ctx.path}; use GET, HEAD`);
    }
    const current = await currentBuild();
    if (!current) {
      throw new AppError(
        ErrorCodes.INTERNAL,
        'the console is not built: run "npm run build" (it builds the console into dist/console), then reload',
        { reason: 'console_not_built' },
        503,
      );
    }
    const name = ctx.path.slice(PREFIX.length + 1);
    const file = current.files.get(name);
    if (file && name !== INDEX) {
      await send(ctx, file, file.hashed ? IMMUTABLE : 'public, max-age=3600');
      return;
    }
    if (!file && isFileLike(name)) throw new AppError(ErrorCodes.NOT_FOUND, `no console file ${ctx.path}`);
    await send(ctx, current.files.get(INDEX)!, 'no-cache');
  }

  // Every API call passes here: it goes on at once, without a promise of this middleware's own.
  return (ctx, next) => (ctx.path === PREFIX || ctx.path.startsWith(`${PREFIX}/`) ? serve(ctx) : next());
}

import { request } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CONSOLE_CSP } from '../../api/console';
import { startTestApi, type TestApi } from '../support/api';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** An HTTP request with the path sent exactly as given (fetch would resolve `..` and re-encode it first). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const INDEX =
  '<!doctype html><html lang="en"><head><script type="module" src="/console/assets/index-Ab12Cd34.js"></script></head><body></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

/** A folder shaped like Vite's output (dist/console), plus files that must never be served. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-build-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'index-Ef56Gh78.css'), 'body{margin:0}');
  writeFileSync(join(dir, '.env'), 'SECRET=1');
  writeFileSync(join(dir, 'assets', '.hidden.js'), 'HIDDEN-CONTENT');
  return dir;
}

describe('the operator console at /console', () => {
  let api: TestApi;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    api = await startTestApi({}, { consoleDir: dir });
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const expectSecurityHeaders = (res: Raw) => {
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  };

  it('sends a strict Content-Security-Policy: own origin only, no inline scripts, no framing, no <base>, no plugins', () => {
    const directives = new Map(CONSOLE_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives.get('default-src')).toBe("'self'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('base-uri')).toBe("'none'");
    expect(directives.get('object-src')).toBe("'none'");
    expect(CONSOLE_CSP).not.toContain('unsafe-');
  });

  it.each(['/console', '/console/', '/console/index.html', '/console/settings/api-keys', '/console/agents/agt_1/sessions'])(
    'answers index.html at %s, revalidated on every load',
    async (path) => {
      const res = await raw(api.url, 'GET', path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body.toString()).toBe(INDEX);
      expectSecurityHeaders(res);
    },
  );

  it('answers 304 to a reload whose ETag still matches', async () => {
    const first = await raw(api.url, 'GET', '/console/');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await raw(api.url, 'GET', '/console/api-keys', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('caches hashed assets for a year as immutable, gzipped when the browser takes it', async () => {
    const plain = await raw(api.url, 'GET', '/console/assets/index-Ab12Cd34.js');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body.toString()).toBe(SCRIPT);
    expectSecurityHeaders(plain);

    const gzipped = await raw(api.url, 'GET', '/console/assets/index-Ab12Cd34.js', { 'Accept-Encoding': 'gzip, deflate' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toContain('Accept-Encoding');
    expect(gunzipSync(gzipped.body).toString()).toBe(SCRIPT);

    const css = await raw(api.url, 'GET', '/console/assets/index-Ef56Gh78.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const icon = await raw(api.url, 'GET', '/console/favicon.svg');
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('public, max-age=3600');
  });

  it.each([
    '/console/assets/index-Zz99Zz99.js',
    '/console/assets/missing',
    '/console/old.css',
    '/console/assets/.hidden.js',
    '/console/.env',
  ])('answers 404 for a file it does not serve: %s', async (path) => {
    const res = await raw(api.url, 'GET', path);
    expect(res.status).toBe(404);
    const body = JSON.parse(res.body.toString()) as { code: number; message: string };
    expect(body.code).toBe(10004);
    expect(res.body.toString()).not.toContain('SECRET');
    expect(res.body.toString()).not.toContain('HIDDEN-CONTENT');
  });

  it.each([
    '/console/../package.json',
    '/console/assets/../../../package.json',
    '/console/%2e%2e/%2e%2e/package.json',
    '/console/assets/..%2f..%2f..%2fpackage.json',
    '/console/..%5c..%5cpackage.json',
    '/console//etc/passwd',
    '/console/assets//etc/passwd',
  ])('never reaches a file outside the build: %s', async (path) => {
    const res = await raw(api.url, 'GET', path);
    const text = res.body.toString();
    expect(text).not.toContain('combo-agent-service');
    expect(text).not.toContain('root:');
    // What answers is an error, or the console's own page for what can only be a deep link.
    if (res.status === 200) expect(text).toBe(INDEX);
    else expect(res.status).toBe(404);
    if (/\.\.|%2e/i.test(path)) expect(res.status).toBe(404);
  });

  it('answers HEAD like GET without a body, and refuses other methods with Allow', async () => {
    const head = await raw(api.url, 'HEAD', '/console/settings');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const post = await raw(api.url, 'POST', '/console/settings');
    expect(post.status).toBe(404);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(post.body.toString())).toMatchObject({ code: 10004 });
  });

  it('leaves other paths to the API', async () => {
    const other = await raw(api.url, 'GET', '/consoles');
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body.toString())).toMatchObject({ code: 10004, message: 'no endpoint GET /consoles' });
    expect(other.headers['content-security-policy']).toBeUndefined();
    expect((await raw(api.url, 'GET', '/v1/health')).status).toBe(200);
  });

  it('serves a new build without a restart', async () => {
    const next = INDEX.replace('Ab12Cd34', 'Nn00Nn00');
    writeFileSync(join(dir, 'index.html'), next);
    writeFileSync(join(dir, 'assets', 'index-Nn00Nn00.js'), 'console.log(2)');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'index.html'), later, later);
    expect((await raw(api.url, 'GET', '/console/')).body.toString()).toBe(next);
    expect((await raw(api.url, 'GET', '/console/assets/index-Nn00Nn00.js')).status).toBe(200);
  });
});

describe('the operator console before it is built', () => {
  it('answers 503 saying to run the build', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'console-none-'));
    const api = await startTestApi({}, { consoleDir: empty });
    try {
      const res = await raw(api.url, 'GET', '/console/');
      expect(res.status).toBe(503);
      const body = JSON.parse(res.body.toString()) as { code: number; message: string; data: { reason: string } };
      expect(body.code).toBe(20001);
      expect(body.message).toContain('npm run build');
      expect(body.data.reason).toBe('console_not_built');
      expect(body.message).not.toContain(empty);
    } finally {
      await api.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

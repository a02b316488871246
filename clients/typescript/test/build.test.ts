/**
 * The package as its users get it (npm test builds it first): `require('@combo/client')` loads the
 * CommonJS build, `import` the ESM one, both against the service; TypeScript resolves the declarations
 * of both from the `exports` map (module nodenext).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

/** Runs a Node script in the package's folder (so that `@combo/client` resolves to the package itself). */
async function node(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, args, { cwd: PACKAGE, env: process.env });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const probe = (load: string) => `
${load}
const client = new Combo();
const health = await client.service.health();
const error = await client.agents.get('agt_missing').catch((e) => e);
const headers = await signWebhook({ payload: '{"a":1}', secret: 'k', timestamp: Math.floor(Date.now() / 1000) });
const event = await verifyWebhook('{"a":1}', headers, 'k');
console.log(JSON.stringify({ health: health.status, error: error.constructor.name, notFound: error instanceof NotFoundError, code: error.code, event }));
`;

describe('builds', () => {
  test('CommonJS: require() loads dist/index.cjs', async () => {
    const script = `(async () => {${probe("const { Combo, NotFoundError, signWebhook, verifyWebhook } = require('@combo/client');")}})();`;
    const out = await node(['-e', script]);
    expect(out).toEqual({ health: 'ok', error: 'NotFoundError', notFound: true, code: 10004, event: { a: 1 } });
    const { stdout } = await run(process.execPath, ['-p', "require.resolve('@combo/client')"], { cwd: PACKAGE });
    expect(stdout.trim()).toBe(join(PACKAGE, 'dist/index.cjs'));
  });

  test('ESM: import loads dist/index.js', async () => {
    const out = await node([
      '--input-type=module',
      '-e',
      probe("import { Combo, NotFoundError, signWebhook, verifyWebhook } from '@combo/client';"),
    ]);
    expect(out).toEqual({ health: 'ok', error: 'NotFoundError', notFound: true, code: 10004, event: { a: 1 } });
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('@combo/client'))"], {
      cwd: PACKAGE,
    });
    expect(stdout.trim()).toBe(`file://${join(PACKAGE, 'dist/index.js')}`);
  });

  test('TypeScript finds the declarations of both builds (module nodenext)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'combo-client-types-'));
    try {
      mkdirSync(join(dir, 'node_modules/@combo'), { recursive: true });
      symlinkSync(PACKAGE, join(dir, 'node_modules/@combo/client'), 'dir');
      writeFileSync(
        join(dir, 'esm.mts'),
        `import { Combo, NotFoundError, type Agent, type CompletionEvent } from '@combo/client';
const client = new Combo({ baseURL: 'http://127.0.0.1:9380' });
export const agent: Promise<Agent> = client.agents.get('agt_1');
export const isNotFound = (e: unknown): boolean => e instanceof NotFoundError;
export const name = (e: CompletionEvent): string => (e.event === 'done' ? e.data.trace_id : e.event);
`,
      );
      writeFileSync(
        join(dir, 'cjs.cts'),
        `import combo = require('@combo/client');
const client = new combo.Combo();
export const agents: Promise<combo.Agent[]> = client.agents.list().then((page) => page.items);
`,
      );
      const tsc = join(PACKAGE, 'node_modules/typescript/bin/tsc');
      const flags = [
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--lib',
        'es2022,dom',
        '--types',
        'node',
      ];
      const result = await run(
        process.execPath,
        [tsc, ...flags, '--typeRoots', join(PACKAGE, 'node_modules/@types'), 'esm.mts', 'cjs.cts'],
        { cwd: dir },
      ).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
      expect(result.stdout).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

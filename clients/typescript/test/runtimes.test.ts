/**
 * The package in the other server-side runtimes its README names: Bun and Deno (their npm builds, from
 * this package's lockfile) run test/runtimes/probe.mjs, which imports the ESM build as `@combo/client`
 * and uses the parts that lean on the runtime (fetch's streamed body for SSE, AbortSignal, streamed
 * uploads with progress, a path upload through node:fs, Web Crypto, the environment) against the
 * service. Node runs the same probe, so every runtime must print what Node prints.
 */
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PROBE = join(PACKAGE, 'test/runtimes/probe.mjs');
const run = promisify(execFile);

/** The probe's report under one runtime, run from the package's folder so that `@combo/client` is the package itself. */
async function probe(command: string, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(command, [...args, PROBE], { cwd: PACKAGE, env: process.env, timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
}

describe('runtimes', () => {
  let expected: Record<string, unknown>;

  beforeAll(async () => {
    expected = await probe(process.execPath, []);
  });

  test('Node (the baseline): streams, aborts, uploads, verifies, with typed errors', () => {
    expect(expected).toEqual({
      health: 'ok',
      missing: { name: 'NotFoundError', notFound: true, code: 10004 },
      stream: { first: 'thinking', last: 'done', severalMessages: true },
      final: { answer: 'Echo: Runtime [slow]', stop_reason: 'answered', traced: true },
      aborted: 'APIUserAbortError',
      upload: { size: 21 * 64, complete: true, fromPath: 'README.md', format: 'markdown' },
      webhook: { verified: true, forged: 'WebhookVerificationError' },
    });
  });

  test('Bun runs the ESM build the same way', async () => {
    expect(await probe(join(PACKAGE, 'node_modules/.bin/bun'), ['run'])).toEqual(expected);
  });

  test('Deno runs the ESM build the same way', async () => {
    const permissions = ['--allow-net', '--allow-env', '--allow-read'];
    expect(await probe(join(PACKAGE, 'node_modules/.bin/deno'), ['run', '--no-lock', '--quiet', ...permissions])).toEqual(expected);
  });
});

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import { parse } from 'yaml';
import { configSchema, loadConfig } from '../../common/config';
import * as searchAttributes from '../../common/search-attributes';
import { newKeyText } from '../support/api';

const REPO = join(__dirname, '..', '..');
const read = (...path: string[]) => readFileSync(join(REPO, ...path), 'utf8');

/** What `${...}` stands for where compose runs: the required variables set, nothing else. */
const SHELL: Record<string, string> = {
  BOOTSTRAP_API_KEY: newKeyText(),
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
};

/**
 * Compose's interpolation (`$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
 * `${VAR:?error}`, `${VAR?error}`) with `shell` as the environment; a required variable that is
 * missing throws, as compose refuses to start.
 */
function interpolate(text: string, shell: Record<string, string>): string {
  return text.replace(
    /\$(?:\$|\{([A-Za-z_]\w*)(?:(:?)([-?])([^}]*))?\}|([A-Za-z_]\w*))/g,
    (whole, braced?: string, colon?: string, op?: string, arg?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare)!;
      const value = shell[name];
      const missing = value === undefined || (colon === ':' && value === '');
      if (!missing) return value;
      if (op === '?') throw new Error(`${name}: ${arg}`);
      return op === '-' ? arg! : '';
    },
  );
}

function interpolated(node: unknown, shell: Record<string, string>): unknown {
  if (typeof node === 'string') return interpolate(node, shell);
  if (Array.isArray(node)) return node.map((item) => interpolated(item, shell));
  if (node && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, interpolated(value, shell)]));
  return node;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Compose = { services: Record<string, any> };
const raw = read('docker-compose.yml');
const compose = interpolated(parse(raw, { merge: true }), SHELL) as Compose;

/** A service's environment as its container gets it: a key without a value passes the shell's. */
function containerEnv(service: string, shell: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(compose.services[service].environment as Record<string, string | number | boolean | null>)) {
    if (value !== null && value !== undefined) env[name] = String(value);
    else if (shell[name] !== undefined) env[name] = shell[name]!;
  }
  return env;
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    // The schema names draft-07 by its https address; Ajv knows it under the http one.
    ajv.addMetaSchema({ ...draft07, $id: 'https://json-schema.org/draft-07/schema' });
    const validate = ajv.compile(JSON.parse(read('test', 'fixtures', 'compose-spec', 'compose-spec.json')) as object);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
  });

  it('refuses to start without the required secrets', () => {
    expect(() => interpolated(parse(raw, { merge: true }), { SECRETS_ENCRYPTION_KEY: SHELL.SECRETS_ENCRYPTION_KEY! })).toThrow(
      /BOOTSTRAP_API_KEY/,
    );
  });

  it('gives the API and the worker a configuration the service accepts, naming only variables it reads', () => {
    const known = new Set(Object.keys(configSchema.shape));
    for (const service of ['api', 'worker']) {
      const env = containerEnv(service, SHELL);
      expect(Object.keys(compose.services[service].environment).filter((name) => !known.has(name))).toEqual([]);
      expect(() => loadConfig(env)).not.toThrow();
      // Optional settings left unset where compose runs reach the container unset, not empty.
      expect(env).not.toHaveProperty('JWT_SECRET');
      expect(loadConfig(containerEnv(service, { ...SHELL, JWT_SECRET: 'x'.repeat(40) })).JWT_SECRET).toBe('x'.repeat(40));
    }
  });

  it('orders the start: schema, server, namespace and search attributes, then the API and the worker', () => {
    const dependsOn = (service: string) => compose.services[service].depends_on as Record<string, { condition: string }>;
    for (const [service, deps] of Object.entries(compose.services)) {
      for (const dep of Object.keys((deps as { depends_on?: object }).depends_on ?? {}))
        expect([service, dep, dep in compose.services]).toEqual([service, dep, true]);
    }
    expect(dependsOn('temporal')['temporal-schema']).toEqual({ condition: 'service_completed_successfully' });
    expect(dependsOn('temporal-setup').temporal).toEqual({ condition: 'service_healthy' });
    for (const service of ['api', 'worker']) {
      expect(dependsOn(service)['temporal-setup']).toEqual({ condition: 'service_completed_successfully' });
      expect(compose.services[service].restart).toBe('unless-stopped');
      expect(compose.services[service].build).toBe('.');
    }
  });

  it('runs Temporal from the server image with the admin tools, without tctl or ignored failures', () => {
    const images = Object.values(compose.services).map((s) => s.image as string | undefined);
    expect(images).toEqual(
      expect.arrayContaining([expect.stringMatching(/^temporalio\/server:/), expect.stringMatching(/^temporalio\/admin-tools:/)]),
    );
    expect(images.filter((image) => image?.startsWith('temporalio/auto-setup'))).toEqual([]);
    expect(raw).not.toMatch(/\btctl\b|\|\|\s*true/);
    const scripts = readdirSync(join(REPO, 'deploy', 'temporal'));
    for (const script of scripts) {
      expect(read('deploy', 'temporal', script)).toMatch(/^set -eu$/m);
      const check = spawnSync('sh', ['-n', join(REPO, 'deploy', 'temporal', script)], { encoding: 'utf8' });
      expect([script, check.status, check.stderr]).toEqual([script, 0, '']);
    }
  });

  it('registers exactly the search attributes the workflows carry, as the local stack does', () => {
    const inCode = Object.values(searchAttributes)
      .flatMap((value) => (typeof value === 'object' ? [value.name] : []))
      .sort();
    const inCompose = String(compose.services['temporal-setup'].environment.SEARCH_ATTRIBUTES).split(/\s+/).sort();
    const inStack = /^SEARCH_ATTRIBUTES=\(([^)]*)\)/m.exec(read('stack', 'lib.sh'))![1]!.split(/\s+/).sort();
    expect(inCompose).toEqual(inCode);
    expect(inStack).toEqual(inCode);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds /app with the script the production-install test runs, from the whole tree', () => {
    expect(dockerfile).toMatch(/^RUN bash stack\/prod-build\.sh app \/app$/m);
    expect(dockerfile).toMatch(/^RUN bash stack\/prod-build\.sh model /m);
    expect(dockerfile).toMatch(/^COPY \. \.$/m);
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['node_modules', 'dist', '.stack', '.git', '.env']));
  });

  it('runs on a Node.js LTS line that is still maintained (24 from 2025-10)', () => {
    const major = Number(/^ARG NODE_MAJOR=(\d+)$/m.exec(dockerfile)?.[1]);
    expect(major).toBeGreaterThanOrEqual(24);
    expect(major % 2).toBe(0);
    expect(dockerfile.match(/^FROM node:\$\{NODE_MAJOR\}-/gm)).toHaveLength(2);
  });
});

describe('compose interpolation', () => {
  it('applies defaults, required values and escapes as compose does', () => {
    const shell = { SET: 'v', EMPTY: '' };
    expect(interpolate('$$HOME ${SET} $SET ${UNSET} ${UNSET:-d} ${EMPTY:-d} ${EMPTY-d} ${SET:?x}', shell)).toBe('$HOME v v  d d  v');
    expect(() => interpolate('${EMPTY:?must be set}', shell)).toThrow('EMPTY: must be set');
    expect(interpolate('${EMPTY?x}', shell)).toBe('');
  });
});

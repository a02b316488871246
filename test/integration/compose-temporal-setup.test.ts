import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { randomToken } from '../../common/ids';

const REPO = join(__dirname, '..', '..');
const SCRIPT = join(REPO, 'deploy', 'temporal', 'setup-namespace.sh');
/** The Temporal CLI the local stack builds, the same `temporal` the admin-tools image carries. */
// stack/test.sh names the stack's binaries (STACK_BIN_DIR); else the checkout's own .stack.
const CLI_DIR = process.env.STACK_BIN_DIR ?? join(REPO, '.stack', 'bin');
const ATTRIBUTES = ['TenantId', 'AgentId', 'CronId'];

function setup(env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', [SCRIPT], {
      env: { PATH: `${CLI_DIR}:${process.env.PATH}`, HOME: process.env.HOME!, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (status) => resolve({ status, output }));
  });
}

/**
 * deploy/temporal/setup-namespace.sh, which docker-compose's temporal-setup job runs before the API
 * and the worker start, against the local Temporal server in a namespace of its own.
 */
describe('the compose deployment setup of Temporal', () => {
  const namespace = `compose-${randomToken(8).toLowerCase()}`;
  let connection: Connection;

  beforeAll(async () => {
    if (!existsSync(join(CLI_DIR, 'temporal')))
      throw new Error(`${CLI_DIR}/temporal is missing: npm test builds it (stack/install.sh temporal)`);
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  });
  afterAll(async () => {
    await connection.operatorService.deleteNamespace({ namespace }).catch(() => undefined);
    await connection.close();
  });

  const registered = async () => {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    return Object.keys(customAttributes).sort();
  };

  it('creates the namespace and the missing search attributes, and a second run changes nothing', async () => {
    const first = await setup({ NAMESPACE: namespace, SEARCH_ATTRIBUTES: ATTRIBUTES.join(' ') });
    expect(first).toMatchObject({ status: 0 });
    expect(await registered()).toEqual(expect.arrayContaining(ATTRIBUTES));

    const again = await setup({ NAMESPACE: namespace, SEARCH_ATTRIBUTES: ATTRIBUTES.join(' ') });
    expect(again).toMatchObject({ status: 0 });
    expect(again.output).toContain(`namespace ${namespace} exists`);
    for (const name of ATTRIBUTES) expect(again.output).toContain(`search attribute ${name} exists`);
  });

  it('fails, and says what, when the server refuses an attribute (a reserved name)', async () => {
    const failed = await setup({ NAMESPACE: namespace, SEARCH_ATTRIBUTES: 'TenantId TemporalReserved', ATTEMPTS: '2' });
    expect(failed.status).not.toBe(0);
    expect(failed.output).toContain('gave up: search attribute TemporalReserved was not created');
  });
});

import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startTestApi, type TestApi } from '../support/api';
import { checkResponse, checkStreamEvent } from '../support/openapi-check';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');
// stack/test.sh installs openapi-python-client there (stack/install.sh python-clients).
const VENV = process.env.PYTHON_CLIENTS_VENV ?? join(ROOT, '.stack/python-clients');

let api: TestApi;
let dir: string;
beforeAll(async () => {
  api = await startTestApi();
  dir = await mkdtemp(join(tmpdir(), 'openapi-clients-'));
  await writeFile(join(dir, 'openapi.json'), (await api.call('GET', '/v1/openapi.json')).text);
  // The generated TypeScript client resolves openapi-fetch and typescript from the project.
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

// Typed with the generated `paths`: a response or request shape the document gets wrong fails tsc.
const TS_CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

async function main(): Promise<void> {
  const client = createClient<paths>({ baseUrl: process.env.API_URL!, headers: { Authorization: \`Bearer \${process.env.API_KEY}\` } });
  const created = await client.POST('/v1/combo/agents', { body: { name: 'typed client', instructions: 'be brief', metadata: { team: 'qa' } } });
  if (!created.data) throw new Error('create failed: ' + JSON.stringify(created.error));
  const agentId: string = created.data.data.agent_id;
  const got = await client.GET('/v1/combo/agents/{agent_id}', { params: { path: { agent_id: agentId } } });
  const listed = await client.GET('/v1/combo/agents', { params: { query: { page: 1, page_size: 10 } } });
  const missing = await client.GET('/v1/combo/agents/{agent_id}', { params: { path: { agent_id: 'agt_doesnotexist' } } });
  const missingCode: number | undefined = missing.error?.code;
  console.log(JSON.stringify({
    agent_id: agentId,
    name: got.data?.data.name,
    listed: listed.data?.data.items.map((a) => a.agent_id),
    missing: { status: missing.response.status, code: missingCode },
  }));
}
main().catch((err) => { console.error(err); process.exit(1); });
`;

const PY_CLIENT = `
import json, os, sys
sys.path.insert(0, os.environ["CLIENT_DIR"])
from agent_orchestration_service_api_client import AuthenticatedClient
from agent_orchestration_service_api_client.api.agents import create_agent, list_agents, get_agent
from agent_orchestration_service_api_client.models import CreateAgentRequest, Error

client = AuthenticatedClient(base_url=os.environ["API_URL"], token=os.environ["API_KEY"], raise_on_unexpected_status=True)
created = create_agent.sync(client=client, body=CreateAgentRequest(name="python client"))
listed = list_agents.sync(client=client, page_size=50)
missing = get_agent.sync_detailed(client=client, agent_id="agt_doesnotexist")
print(json.dumps({
    "agent_id": created.data.agent_id,
    "name": created.data.name,
    "listed": [a.agent_id for a in listed.data.items],
    "missing": {"status": missing.status_code.value, "code": missing.parsed.code if isinstance(missing.parsed, Error) else None},
}))
`;

/** Runs a generated client's script against the API; it prints what it got as JSON. */
async function runClient(command: string, args: string[], env: Record<string, string> = {}) {
  const { stdout } = await run(command, args, { env: { ...process.env, ...env, API_URL: api.url, API_KEY: api.adminKey } });
  return JSON.parse(stdout);
}

function expectAgentCalls(result: { agent_id: string; name: string; listed: string[]; missing: unknown }, name: string) {
  expect(result.name).toBe(name);
  expect(result.listed).toContain(result.agent_id);
  expect(result.missing).toEqual({ status: 404, code: 10004 });
}

describe('clients generated from the OpenAPI document', () => {
  it('openapi-typescript types, type-checked with tsc, drive openapi-fetch against the API', async () => {
    // A request field with a default may be left out: without the flag openapi-typescript makes it required.
    await run(process.execPath, [
      join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
      join(dir, 'openapi.json'),
      '-o',
      join(dir, 'schema.ts'),
      '--default-non-nullable',
      'false',
    ]);
    await writeFile(join(dir, 'client.ts'), TS_CLIENT);
    await run(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '--strict',
        '--noUncheckedIndexedAccess',
        '--target',
        'ES2022',
        '--module',
        'commonjs',
        '--moduleResolution',
        'node',
        '--esModuleInterop',
        '--skipLibCheck',
        '--types',
        'node',
        '--outDir',
        join(dir, 'out'),
        join(dir, 'client.ts'),
      ],
      { cwd: dir },
    );
    expectAgentCalls(await runClient(process.execPath, [join(dir, 'out/client.js')]), 'typed client');
  }, 120_000);

  it('openapi-python-client generates a package that creates and lists agents', async () => {
    const generated = await run(
      join(VENV, 'bin/openapi-python-client'),
      ['generate', '--path', join(dir, 'openapi.json'), '--output-path', join(dir, 'python'), '--meta', 'none'],
      {
        // Its formatting hook (ruff) is installed in the same virtualenv.
        env: { ...process.env, PATH: `${join(VENV, 'bin')}:${process.env.PATH}` },
      },
    );
    // A schema it cannot read is dropped with a warning (CompletionRun's allOf once was): none may be.
    expect(generated.stdout + generated.stderr).not.toMatch(/warning/i);
    await writeFile(join(dir, 'client.py'), PY_CLIENT);
    await symlink(join(dir, 'python'), join(dir, 'agent_orchestration_service_api_client'));
    expectAgentCalls(await runClient(join(VENV, 'bin/python'), [join(dir, 'client.py')], { CLIENT_DIR: dir }), 'python client');
  }, 120_000);

  it('fails a test whose response the document does not allow', async () => {
    const res = await api.call('GET', '/v1/health');
    await expect(
      checkResponse(api.url, {
        method: 'GET',
        path: '/v1/health',
        status: 200,
        contentType: 'application/json',
        body: { ...res.json, data: { status: 'up' } },
      }),
    ).rejects.toThrow(/GET \/v1\/health -> 200/);
    await expect(
      checkResponse(api.url, { method: 'GET', path: '/v1/health', status: 418, contentType: 'application/json', body: res.json }),
    ).rejects.toThrow(/status not declared/);
    await expect(
      checkResponse(api.url, {
        method: 'GET',
        path: '/v1/health',
        status: 200,
        contentType: 'application/json',
        body: { ...res.json, data: { ...res.json.data, extra: 1 } },
      }),
    ).rejects.toThrow(/must NOT have unevaluated properties/);
    await expect(
      checkResponse(api.url, { method: 'GET', path: '/v1/nowhere', status: 200, contentType: 'application/json', body: res.json }),
    ).rejects.toThrow(/no such operation/);
    const events = '/v1/combo/completions/trc_x/events';
    const timestamp = '2026-11-26T09:00:00.000Z';
    // A stream event as on the wire: `data` is the text of its `data:` line, JSON the document describes.
    const done = (data: unknown) => ({ event: 'done', id: 'trc_x:1', data: JSON.stringify(data) });
    await expect(
      checkStreamEvent(api.url, 'GET', events, done({ session_id: 'ses_a', trace_id: 'trc_x', timestamp })),
    ).resolves.toBeUndefined();
    await expect(checkStreamEvent(api.url, 'GET', events, done({ trace_id: 'trc_x', timestamp }))).rejects.toThrow(/event done/);
    await expect(checkStreamEvent(api.url, 'GET', events, done({ session_id: 'ses_a', trace_id: 'trc_x' }))).rejects.toThrow(
      /missingProperty": "timestamp"/,
    );
    await expect(checkStreamEvent(api.url, 'GET', events, { ...done({}), data: '{"session_id": ' })).rejects.toThrow(/not JSON/);
    await expect(
      checkStreamEvent(api.url, 'GET', events, {
        ...done({}),
        // What the document described before: `data` as an object. On the wire it is a string.
        data: { session_id: 'ses_a', trace_id: 'trc_x', timestamp } as unknown as string,
      }),
    ).rejects.toThrow(/must be string/);
    await expect(checkStreamEvent(api.url, 'GET', events, { event: 'progress', id: 'trc_x:1', data: '{}' })).rejects.toThrow(
      /event progress/,
    );
  });
});

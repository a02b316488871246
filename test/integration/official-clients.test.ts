import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTestApi, type TestApi } from '../support/api';
import { chatAnswer, chatError, chatToolCall, streamedAnswer, streamedToolCall } from '../support/scripted-chat';
import { type RecordedRequest, type ScriptedReply, ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

const ROOT = resolve(__dirname, '../..');
const CLIENTS = join(ROOT, 'clients');
// stack/install.sh official-clients makes it: the Python client installed with its locked test tools.
const PYTHON = process.env.COMBO_PYTHON_VENV ?? join(ROOT, '.stack/combo-python');

interface ChatMessage {
  role: string;
  content?: string | null;
}

/**
 * The model the clients' suites talk to through the service: it echoes the question, and the
 * question's markers script it: `[slow]` streams the answer in 10 pieces 300 ms apart, `[long]` in 40
 * (12 s: a run that surely still goes when a late cancel lands; an answer has at most as many pieces as
 * characters, so a `[long]` question has 34 or more), `[tool:<name>]` calls that tool once before
 * answering, `[fail]` answers HTTP 500.
 */
function echoModel(request: RecordedRequest): ScriptedReply {
  const body = request.body as { messages: ChatMessage[]; stream?: boolean };
  const lastUser = body.messages.map((m) => m.role).lastIndexOf('user');
  const question = String(body.messages[lastUser]?.content ?? '');
  if (question.includes('[fail]')) return { status: 500, body: chatError('scripted failure') };
  const tool = /\[tool:([a-z_]+)\]/.exec(question)?.[1];
  const toolAnswered = body.messages.slice(lastUser).some((m) => m.role === 'tool');
  if (tool && !toolAnswered) {
    const calls = [{ id: 'call_1', name: tool, args: {} }];
    return body.stream ? { stream: streamedToolCall(calls) } : { body: chatToolCall(calls) };
  }
  const answer = `Echo: ${question}`;
  const pieces = question.includes('[long]') ? 40 : question.includes('[slow]') ? 10 : 0;
  if (!body.stream) return { body: chatAnswer(answer), delayMs: pieces * 300 };
  return pieces ? { stream: streamedAnswer(answer, { pieces }), chunkDelayMs: 300 } : { stream: streamedAnswer(answer) };
}

/** Runs a command (a client suite: with the service's address and an admin key); resolves with its exit code. */
function runCommand(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', fail);
    child.once('exit', (code) => done(code ?? 1));
  });
}

/**
 * The official clients (clients/): generated from the document this service serves, and their
 * own test suites run against the real service, a worker and a scripted model.
 */
describe('official clients', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  const model = new ScriptedUpstream();
  let env: Record<string, string>;

  beforeAll(async () => {
    model.reply = echoModel;
    const modelUrl = await model.start();
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      LLM_MAX_ATTEMPTS: '1',
      COMPLETION_REPLY_WAIT_MS: '1500',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      RATE_LIMIT_UPLOADS_PER_MIN: '10000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
      // A failing delivery reaches the dead-letter queue within the suites, which replay it.
      WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS: '200,200,200,200',
    });
    worker = await startTestWorker(api);
    // The suites point a model provider at the scripted model (the test API allows loopback URLs).
    env = { COMBO_BASE_URL: api.url, COMBO_API_KEY: api.adminKey, COMBO_SCRIPTED_MODEL_URL: modelUrl };
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  test('clients/openapi.json is the document the service serves', async () => {
    const served = (await api.call('GET', '/v1/openapi.json')).json;
    const committed = JSON.parse(readFileSync(join(CLIENTS, 'openapi.json'), 'utf8'));
    // When this fails: npm start, then npm run clients:generate (and commit what it changed).
    expect(served).toEqual(committed);
  });

  test('the generated files are what clients/openapi.json gives', async () => {
    // The generator as built (npm test builds first): prettier, which formats the TypeScript
    // files, loads modules dynamically, which jest's module system does not.
    expect(await runCommand('node', [join(ROOT, 'dist/clients/codegen/generate.js'), '--check'], ROOT, {})).toBe(0);
  });

  test('the Python client type-checks (mypy --strict) and passes its lint and format rules (ruff)', async () => {
    expect(await runCommand(join(PYTHON, 'bin/mypy'), [], join(CLIENTS, 'python'), {})).toBe(0);
    const ruff = join(PYTHON, 'bin/ruff');
    expect(await runCommand(ruff, ['check', '--no-cache', '.'], join(CLIENTS, 'python'), {})).toBe(0);
    expect(await runCommand(ruff, ['format', '--no-cache', '--check', '.'], join(CLIENTS, 'python'), {})).toBe(0);
  });

  test('the Python client passes its suite against the service', async () => {
    expect(
      await runCommand(join(PYTHON, 'bin/python'), ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], join(CLIENTS, 'python'), env),
    ).toBe(0);
  }, 600_000);

  test('the typescript client passes its suite against the service', async () => {
    expect(await runCommand('npm', ['test', '--silent'], join(CLIENTS, 'typescript'), env)).toBe(0);
  }, 600_000);
});

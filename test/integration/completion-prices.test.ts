import { randomToken } from '../../common/ids';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, chatError, chatToolCall, streamedAnswer } from '../support/scripted-chat';
import { type RecordedRequest, ScriptedUpstream, type ScriptedReply } from '../support/scripted-upstream';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

/**
 * Runs record input and output tokens and the money of their model calls at the default provider's
 * prices (LLM_INPUT_PRICE_PER_MILLION / LLM_OUTPUT_PRICE_PER_MILLION of LLM_MODEL), on the real
 * stack: the real worker, a scripted model, the cost aggregator and GET /v1/costs.
 */
const INPUT_PRICE = 2.5;
const OUTPUT_PRICE = 10;
/** The money of a call at those prices per million tokens. */
const priced = (input: number, output: number) => (input * INPUT_PRICE + output * OUTPUT_PRICE) / 1_000_000;

const model = new ScriptedUpstream();
let api: TestApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let script: ScriptedReply[] = [];
/** The model answers with the scripted replies in order (the last one repeats). */
const scriptModel = (...replies: ScriptedReply[]) => {
  script = replies;
};

beforeAll(async () => {
  const modelUrl = await model.start();
  model.reply = (_req: RecordedRequest) =>
    script.length > 1 ? script.shift()! : (script[0] ?? { status: 500, body: { error: 'nothing scripted' } });
  api = await startTestApi({
    LLM_BASE_URL: modelUrl,
    LLM_MODEL: 'scripted-model',
    LLM_INPUT_PRICE_PER_MILLION: String(INPUT_PRICE),
    LLM_OUTPUT_PRICE_PER_MILLION: String(OUTPUT_PRICE),
    LLM_MAX_ATTEMPTS: '1',
    RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
    RATE_LIMIT_DEFAULT_PER_MIN: '100000',
  });
  worker = await startTestWorker(api, { dispatcher: false });
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await model.stop();
});

/** A tenant of its own (its costs are its tests' alone), with an agent. */
async function newTenant(agent: Record<string, unknown> = {}) {
  const tenant = `t-${randomToken(8)}`;
  const key = await consoleToken({ tenant_id: tenant, sub: 'boss', roles: ['admin'] });
  const created = await api.call('POST', '/v1/combo/agents', { key, body: { name: 'Pricing', instructions: 'Be brief.', ...agent } });
  expect(created.json.code).toBe(0);
  const agentId = created.json.data.agent_id as string;
  const newSession = async () =>
    (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key, body: {} })).json.data.session_id as string;
  const complete = async (question: string, sessionId?: string) =>
    api.call('POST', `/v1/combo/agents/${agentId}/completions`, { key, body: { session_id: sessionId ?? (await newSession()), question } });
  return { tenant, key, agentId, newSession, complete };
}

const eventsOf = (name: string, sessionId: string) =>
  api.services.mongo.db.collection('events').find({ event: name, 'data.session_id': sessionId }).toArray();
/** Every queued cost added to its period by the worker's aggregator. */
const costsAggregated = () =>
  eventually(async () => ((await api.services.mongo.db.collection('cost_queue').countDocuments()) === 0 ? true : undefined), 20_000);

it('answers the split and the money on the JSON reply, the run, session.finished and the stream’s done', async () => {
  const { key, agentId, complete, newSession } = await newTenant();
  scriptModel({ body: chatAnswer('Paris.', { prompt_tokens: 1_200, completion_tokens: 300 }) });
  const reply = await complete('Capital of France?');
  expect(reply.json.code).toBe(0);
  const expected = { tokens: 1_500, input_tokens: 1_200, output_tokens: 300, amount: 0.006 };
  expect(reply.json.data.cost).toEqual({ ...expected, duration_ms: expect.any(Number) });
  expect(priced(1_200, 300)).toBeCloseTo(0.006, 12);
  const traceId = reply.json.data.trace_id as string;
  const run = await api.call('GET', `/v1/combo/completions/${traceId}`, { key });
  expect(run.json.data.cost).toMatchObject(expected);
  const [finished] = await eventsOf('session.finished', reply.json.data.session_id);
  expect(finished!.data.cost).toMatchObject(expected);

  scriptModel({ stream: streamedAnswer('Streamed and priced.', { usage: { prompt_tokens: 400, completion_tokens: 60 } }) });
  const streamed = await readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: await newSession(), question: 'Stream it', stream: true }),
  });
  const done = streamed.events.at(-1)!;
  expect(done.event).toBe('done');
  // 400 × 2.5 + 60 × 10 per million
  expect(done.data.cost).toEqual({ tokens: 460, input_tokens: 400, output_tokens: 60, amount: 0.0016, duration_ms: expect.any(Number) });
});

it('sums every model call of a run with a tool call, and records what a failed run had spent', async () => {
  const { complete, newSession } = await newTenant({ tools: ['current_time'] });
  scriptModel(
    { body: chatToolCall([{ id: 'c1', name: 'current_time', args: {} }], { prompt_tokens: 1_000, completion_tokens: 50 }) },
    { body: chatAnswer('It is now.', { prompt_tokens: 1_400, completion_tokens: 200 }) },
  );
  const reply = await complete('What time is it?');
  expect(reply.json.data.answer).toBe('It is now.');
  // 0.003 for the tool call, 0.0055 for the answer
  expect(reply.json.data.cost).toMatchObject({ tokens: 2_650, input_tokens: 2_400, output_tokens: 250, amount: 0.0085 });
  expect(priced(1_000, 50) + priced(1_400, 200)).toBeCloseTo(0.0085, 12);

  // The model asks for the tool, then refuses the next request (a 4xx is not retried): the run fails with what it spent.
  scriptModel(
    { body: chatToolCall([{ id: 'c1', name: 'current_time', args: {} }], { prompt_tokens: 1_000, completion_tokens: 50 }) },
    { status: 400, body: chatError('bad request') },
  );
  const sessionId = await newSession();
  const failed = await complete('And now?', sessionId);
  expect(failed.json.code).toBe(30001);
  const [runFailed] = await eventsOf('run.failed', sessionId);
  expect(runFailed!.data.cost).toMatchObject({ tokens: 1_050, input_tokens: 1_000, output_tokens: 50, amount: 0.003 });
});

it('records what a cancelled run had spent: the calls before the one cancelled', async () => {
  const { key, complete, newSession } = await newTenant({ tools: ['current_time'] });
  scriptModel(
    { body: chatToolCall([{ id: 'c1', name: 'current_time', args: {} }], { prompt_tokens: 1_000, completion_tokens: 50 }) },
    { body: chatAnswer('Too late.'), delayMs: 30_000 },
  );
  const sessionId = await newSession();
  const asked = model.requests.length;
  const reply = complete('Take your time', sessionId);
  // The second model call is under way: the first, priced, is done.
  await eventually(async () => (model.requests.length >= asked + 2 ? true : undefined), 15_000);
  const traceId = await eventually(async () => {
    const runs = (await api.call('GET', `/v1/combo/sessions/${sessionId}/completions`, { key })).json.data.items;
    return runs[0]?.trace_id as string | undefined;
  });
  const cancel = await api.call('POST', `/v1/combo/completions/${traceId}/cancel`, { key });
  expect(cancel.json.data).toMatchObject({ status: 'canceled' });
  const spent = { tokens: 1_050, input_tokens: 1_000, output_tokens: 50, amount: 0.003 };
  expect(cancel.json.data.cost).toMatchObject(spent);
  expect((await reply).json.data.cost).toMatchObject(spent);
  const [canceled] = await eventsOf('run.canceled', sessionId);
  expect(canceled!.data.cost).toMatchObject(spent);
});

it('gives amount null for a model without a price, and keeps the token split', async () => {
  const { complete } = await newTenant({ model: { model: 'unpriced-model' } });
  scriptModel({ body: chatAnswer('Free.', { prompt_tokens: 90, completion_tokens: 10 }, { model: 'unpriced-model' }) });
  const reply = await complete('Anything free?');
  expect(reply.json.data).toMatchObject({
    model: 'unpriced-model',
    cost: { tokens: 100, input_tokens: 90, output_tokens: 10, amount: null },
  });
});

it('sums the split and the money in the period summary and the by-agent and by-day reports', async () => {
  const { key, agentId, complete } = await newTenant();
  const unpriced = await api.call('POST', '/v1/combo/agents', { key, body: { name: 'Free', model: { model: 'unpriced-model' } } });
  const freeAgent = unpriced.json.data.agent_id as string;
  scriptModel({ body: chatAnswer('One.', { prompt_tokens: 1_200, completion_tokens: 300 }) });
  await complete('one');
  await complete('two');
  const session = (await api.call('POST', `/v1/combo/agents/${freeAgent}/sessions`, { key, body: {} })).json.data.session_id;
  scriptModel({ body: chatAnswer('Free.', { prompt_tokens: 90, completion_tokens: 10 }, { model: 'unpriced-model' }) });
  expect(
    (await api.call('POST', `/v1/combo/agents/${freeAgent}/completions`, { key, body: { session_id: session, question: 'x' } })).json.code,
  ).toBe(0);
  await costsAggregated();

  const summary = (await api.call('GET', '/v1/costs', { key })).json.data;
  expect(summary).toMatchObject({ runs: 3, tokens: 3_100, input_tokens: 2_490, output_tokens: 610, amount: 0.012 });
  const byAgent = (await api.call('GET', '/v1/costs?group_by=agent', { key })).json.data;
  expect(byAgent.groups).toEqual([
    { agent_id: agentId, runs: 2, tokens: 3_000, input_tokens: 2_400, output_tokens: 600, amount: 0.012, duration_ms: expect.any(Number) },
    { agent_id: freeAgent, runs: 1, tokens: 100, input_tokens: 90, output_tokens: 10, amount: 0, duration_ms: expect.any(Number) },
  ]);
  const byDay = (await api.call('GET', '/v1/costs?group_by=day', { key })).json.data;
  const days = byDay.groups as Array<{ runs: number; input_tokens: number; output_tokens: number; amount: number }>;
  // The runs may straddle a UTC midnight: the days add up to the runs.
  expect(days.reduce((sum, d) => sum + d.runs, 0)).toBe(3);
  expect(days.reduce((sum, d) => sum + d.input_tokens, 0)).toBe(2_490);
  expect(days.reduce((sum, d) => sum + d.output_tokens, 0)).toBe(610);
  expect(days.reduce((sum, d) => sum + d.amount, 0)).toBeCloseTo(0.012, 9);
});

it('fires cost.threshold_exceeded with unit amount once when the period’s money reaches the money threshold', async () => {
  const { tenant, key, complete } = await newTenant();
  const put = await api.call('PUT', '/v1/costs/threshold', { key, body: { threshold_amount: 0.01 } });
  expect(put.json.data).toMatchObject({
    threshold_amount: 0.01,
    threshold_amount_source: 'tenant',
    threshold_tokens: null,
    threshold_source: 'none',
    threshold_exceeded: false,
  });
  scriptModel({ body: chatAnswer('Priced.', { prompt_tokens: 1_200, completion_tokens: 300 }) });
  await complete('one');
  await costsAggregated();
  const events = async () => {
    const res = await api.call('GET', '/v1/events?event=cost.threshold_exceeded&page_size=100', { key });
    return res.json.data.items as Array<{ tenant_id: string; data: Record<string, unknown> }>;
  };
  expect(await events()).toHaveLength(0);
  await complete('two');
  await complete('three');
  await costsAggregated();
  const fired = await events();
  expect(fired).toHaveLength(1);
  expect(fired[0]).toMatchObject({ tenant_id: tenant, data: { tenant_id: tenant, threshold: 0.01, unit: 'amount' } });
  // The run that crossed it (the second) or a later one: 0.012 or 0.018.
  expect([0.012, 0.018]).toContain(fired[0]!.data.amount);
  const summary = (await api.call('GET', '/v1/costs', { key })).json.data;
  expect(summary).toMatchObject({ amount: 0.018, threshold_amount: 0.01, threshold_exceeded: true });
});

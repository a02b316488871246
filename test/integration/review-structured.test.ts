import { startTestApi, type TestApi } from '../support/api';
import { chatAnswer, chatRequests, scriptedReplies, streamedAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

/** The `llm` review processor through HTTP, against a scripted OpenAI-compatible model. */
describe('model review: counts from structured output', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let agentId: string;
  const model = new ScriptedUpstream();
  const scriptModel = scriptedReplies(model);

  beforeAll(async () => {
    const modelUrl = await model.start();
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      LLM_TIMEOUT_MS: '5000',
      LLM_MAX_ATTEMPTS: '2',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api, { dispatcher: false });
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Reviewer' } })).json.data.agent_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  const newSession = async () =>
    (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id as string;
  const review = (sessionId: string, extra: Record<string, unknown> = {}) =>
    api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
      key: api.adminKey,
      body: { session_id: sessionId, question: 'Review https://git.example.com/acme/app/pull/7', route: '@review@llm@default@', ...extra },
    });
  const reviewedEvents = (sessionId: string) =>
    api.services.mongo.db.collection('events').find({ event: 'review.completed', 'data.session_id': sessionId }).toArray();

  // The prose is deliberately misleading: tags in the report must count for nothing.
  const REPORT =
    '## Review\n\n- [critical] db.js:12 SQL built from user input: use placeholders.\n- [critical] auth.js:3 token compared with ==.\n\nNo other [warning] or [info] tags apply.';
  const OUTPUT = {
    report: REPORT,
    findings: [
      { severity: 'critical', file: 'db.js', line: 12, message: 'SQL built from user input' },
      { severity: 'warning', file: 'auth.js', line: 3, message: 'token compared with ==' },
      { severity: 'info', file: 'README.md', line: null, message: 'typo' },
      { severity: 'info', file: 'README.md', line: 9, message: 'broken link' },
    ],
  };
  const COUNTS = { critical: 1, warning: 1, info: 2 };

  it('asks for the JSON schema, shows the Markdown report and counts the validated findings', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer(JSON.stringify(OUTPUT)) });
    const reply = await review(sessionId);
    expect(reply.json.code).toBe(0);
    expect(reply.json.data.answer).toBe(REPORT);
    expect(reply.json.data.artifacts[0]).toMatchObject({ type: 'review_report', issues_found: COUNTS, findings: OUTPUT.findings });

    const sent = chatRequests(model)[0]!;
    expect(sent.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'code_review', strict: true, schema: { required: ['report', 'findings'] } },
    });
    expect(sent.messages[0]!.content).toContain('`findings`');
    const [event] = await reviewedEvents(sessionId);
    expect(event!.data).toMatchObject({ pr_url: 'https://git.example.com/acme/app/pull/7', issues_found: COUNTS });
    const messages = (await api.call('GET', `/v1/combo/sessions/${sessionId}/messages`, { key: api.adminKey })).json.data.items;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: REPORT });
  });

  it('streams the report as Markdown, never the JSON around it', async () => {
    const sessionId = await newSession();
    scriptModel({ stream: streamedAnswer(JSON.stringify(OUTPUT), { pieces: 12 }), chunkDelayMs: 60 });
    const sse = await readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'Review this change', route: '@review@llm@default@', stream: true }),
    });
    const shown = sse.events.filter((e) => e.event === 'message').map((e) => e.data.answer as string);
    expect(shown.length).toBeGreaterThan(1);
    for (const text of shown) expect(REPORT.startsWith(text)).toBe(true);
    expect(shown.at(-1)).toBe(REPORT);
    expect(sse.events.at(-1)!.event).toBe('done');
    expect((await reviewedEvents(sessionId))[0]!.data.issues_found).toEqual(COUNTS);
  });

  it('retries an answer that is not the schema, and uses the valid one', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer(REPORT) }, { body: chatAnswer(JSON.stringify(OUTPUT)) });
    const reply = await review(sessionId);
    expect(reply.json.code).toBe(0);
    expect(reply.json.data.artifacts[0].issues_found).toEqual(COUNTS);
    expect(chatRequests(model)).toHaveLength(2);
  });

  it('fails the run with 30001, announcing no review, when every attempt breaks the schema', async () => {
    const sessionId = await newSession();
    scriptModel({
      body: chatAnswer(JSON.stringify({ report: REPORT, findings: [{ severity: 'blocker', file: 'x', line: 1, message: 'm' }] })),
    });
    const reply = await review(sessionId);
    expect(reply.status).toBe(502);
    expect(reply.json).toMatchObject({ code: 30001, message: expect.stringContaining('review.findings.0.severity') });
    expect(chatRequests(model)).toHaveLength(2);
    expect(await reviewedEvents(sessionId)).toEqual([]);
  });
});

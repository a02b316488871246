import type { ChildProcess } from 'node:child_process';
import { newTraceId } from '../../common/ids';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { readSse } from '../support/sse';
import { killProcess, spawnWorkerProcess } from '../support/worker-process';

/**
 * Text the stores cannot hold (NUL, lone surrogates) never reaches them from a request, and a run
 * that carries such text anyway fails alone: the worker process goes on.
 */
describe('text the stores cannot hold', () => {
  let api: TestApi;
  let worker: ChildProcess;
  let agentId: string;
  let sessionId: string;

  beforeAll(async () => {
    // Offline mode: runs are answered by a processor, so the recording is what meets the NUL.
    api = await startTestApi({ RATE_LIMIT_COMPLETIONS_PER_MIN: '10000', RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
    worker = await spawnWorkerProcess(api.config);
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Keeper' } })).json.data.agent_id;
    sessionId = (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id;
  });
  afterAll(async () => {
    try {
      if (worker) await killProcess(worker, 'SIGTERM');
    } finally {
      await api?.close();
    }
  });

  const count = async (collection: string) => api.services.mongo.db.collection(collection).countDocuments({});

  it('refuses a NUL or a lone surrogate anywhere in a request with 10001 naming the field, writing nothing', async () => {
    const before = { agents: await count('agents'), messages: await count('messages'), kbs: await count('knowledge_bases') };
    const cases: Array<{ method: string; path: string; body?: unknown; rawBody?: string; field: string }> = [
      { method: 'POST', path: '/v1/combo/agents', body: { name: 'a\u0000b' }, field: 'body.name' },
      { method: 'POST', path: '/v1/combo/agents', body: { name: 'ok', instructions: 'x\u0000' }, field: 'body.instructions' },
      { method: 'POST', path: '/v1/combo/agents', body: { name: 'ok', metadata: { 'k\u0000': 'v' } }, field: 'body.metadata.k\u0000' },
      { method: 'POST', path: '/v1/combo/agents', rawBody: '{"name":"half \\ud800 a pair"}', field: 'body.name' },
      { method: 'PUT', path: `/v1/combo/agents/${agentId}`, body: { description: '\u0000' }, field: 'body.description' },
      {
        method: 'POST',
        path: `/v1/combo/sessions/${sessionId}/messages`,
        body: { role: 'user', content: 'hi\u0000' },
        field: 'body.content',
      },
      { method: 'POST', path: '/v1/kb', body: { name: 'kb\u0000' }, field: 'body.name' },
      {
        method: 'POST',
        path: `/v1/combo/agents/${agentId}/completions`,
        body: { session_id: sessionId, question: 'why\u0000' },
        field: 'body.question',
      },
      { method: 'GET', path: '/v1/combo/agents?page=%00', field: 'query.page' },
    ];
    for (const c of cases) {
      const res = await api.call(c.method, c.path, {
        key: api.adminKey,
        body: c.body,
        rawBody: c.rawBody,
        headers: c.rawBody ? { 'content-type': 'application/json' } : {},
      });
      expect({ path: c.path, status: res.status, code: res.json?.code, field: res.json?.data?.field }).toEqual({
        path: c.path,
        status: 400,
        code: 10001,
        field: c.field,
      });
    }
    expect({ agents: await count('agents'), messages: await count('messages'), kbs: await count('knowledge_bases') }).toEqual(before);
  });

  it('refuses nesting deeper than the API reads, without exhausting its stack', async () => {
    const deep = `{"name":"x","metadata":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const res = await api.call('POST', '/v1/combo/agents', {
      key: api.adminKey,
      rawBody: deep,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe(10001);
  });

  it('fails a run whose text the store refuses with error and done, and the worker goes on with the next run', async () => {
    // Past the API's own refusal, as text from any other path would arrive: straight to the worker.
    const traceId = newTraceId();
    const answer = await api.services.commands.completions.ask(
      { tenantId: 'default', principal: 'test', ownerId: 'test' },
      {
        agentId,
        body: {
          session_id: sessionId,
          question: 'a question with \u0000 inside',
          stream: true,
          stream_format: 'answer',
          background: false,
          attachments: [],
          context_ids: [],
        },
        resumeAfter: null,
        traceId,
      },
    );
    if (answer.kind !== 'stream') throw new Error(`expected a stream, got ${answer.kind}`);
    await expect(api.services.temporal.workflow.getHandle(answer.owner.workflow_id).result()).rejects.toThrow();

    const stream = await readSse(`${api.url}/v1/combo/completions/${traceId}/events`, {
      headers: { authorization: `Bearer ${api.adminKey}` },
    });
    expect(stream.events.slice(-2).map((e) => e.event)).toEqual(['error', 'done']);
    expect(stream.events.at(-2)!.data).toMatchObject({ code: 20001 });
    const record = await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey });
    expect(record.json.data).toMatchObject({ status: 'failed', error: { code: 20001 } });

    expect(worker.exitCode).toBeNull();
    expect(worker.signalCode).toBeNull();
    const next = await eventually(async () => {
      const res = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
        key: api.adminKey,
        body: { session_id: sessionId, question: 'and now a plain one' },
      });
      return res.json.code === 10005 ? undefined : res;
    }, 20_000);
    expect(next.json).toMatchObject({ code: 0, data: { session_id: sessionId } });
  });
});

import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startTestWorker } from '../support/worker';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('health, readiness and documentation', () => {
  it('answers health without credentials', async () => {
    const res = await api.call('GET', '/v1/health');
    expect(res.json).toMatchObject({ code: 0, data: { status: 'ok' }, message: 'ok' });
  });

  it('is ready when Temporal, MongoDB and Elasticsearch answer and a worker polls the task queue', async () => {
    const worker = await startTestWorker(api, { dispatcher: false });
    try {
      // The API is ready without a worker (its own readiness): wait for the worker's queues to be seen polled.
      const res = await eventually(async () => {
        const ready = await api.call('GET', '/v1/ready');
        return ready.status === 200 && ready.json.data.checks.worker.ok === true ? ready : undefined;
      }, 30_000);
      expect(res.json.data.status).toBe('ready');
      for (const backend of ['temporal', 'worker', 'mongodb', 'elasticsearch']) expect(res.json.data.checks[backend].ok).toBe(true);
    } finally {
      await worker.stop();
    }
  });

  it('stays ready when no worker polls the task queue (a worker outage keeps API processes in service), reporting it in checks.worker', async () => {
    const idle = await startTestApi();
    try {
      const ready = await idle.call('GET', '/v1/ready');
      expect(ready.status).toBe(200);
      expect(ready.json.data.status).toBe('ready');
      for (const backend of ['temporal', 'mongodb', 'elasticsearch']) expect(ready.json.data.checks[backend].ok).toBe(true);
      expect(ready.json.data.checks.worker.ok).toBe(false);
      expect(ready.json.data.checks.worker.error).toContain(`task queue ${idle.config.TEMPORAL_TASK_QUEUE}`);
    } finally {
      await idle.close();
    }
  });

  it('answers 503 naming the backend that is down', async () => {
    const broken = await startTestApi({ ELASTICSEARCH_URL: 'http://127.0.0.1:9' });
    try {
      const res = await broken.call('GET', '/v1/ready');
      expect(res.status).toBe(503);
      expect(res.json.code).toBe(20001);
      expect(res.json.data.down).toEqual(['elasticsearch']);
      expect(res.json.message).toBe('not ready: elasticsearch unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      await broken.close();
    }
  });

  it('publishes a valid OpenAPI 3 document listing every endpoint built', async () => {
    const res = await api.call('GET', '/v1/openapi.json');
    expect(res.headers.get('content-type')).toContain('application/json');
    const doc = res.json;
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    expect(doc.openapi).toMatch(/^3\./);
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /v1/combo/agents',
        'GET /v1/combo/agents',
        'GET /v1/combo/agents/{agent_id}',
        'PUT /v1/combo/agents/{agent_id}',
        'DELETE /v1/combo/agents/{agent_id}',
        'POST /v1/combo/agents/{agent_id}/sessions',
        'GET /v1/combo/agents/{agent_id}/sessions',
        'GET /v1/combo/sessions/{session_id}',
        'DELETE /v1/combo/sessions/{session_id}',
        'POST /v1/combo/sessions/{session_id}/archive',
        'POST /v1/combo/sessions/{session_id}/messages',
        'GET /v1/health',
        'GET /v1/ready',
        'GET /v1/openapi.json',
        'GET /v1/docs',
        'POST /v1/api-keys',
        'GET /v1/api-keys',
        'DELETE /v1/api-keys/{key_id}',
        'GET /v1/events',
        'POST /v1/document/{doc_id}/reparse',
        'POST /v1/cron/{cron_id}/backfill',
        'POST /v1/webhook/subscriptions',
        'GET /v1/webhook/subscriptions',
        'PUT /v1/webhook/subscriptions/{subscription_id}',
        'POST /v1/webhook/subscriptions/{subscription_id}/rotate-secret',
        'POST /v1/webhook/subscriptions/{subscription_id}/test',
        'GET /v1/webhook/deliveries',
        'GET /v1/webhook/dead-letters',
        'POST /v1/webhook/dead-letters/{delivery_id}/replay',
        'POST /v1/webhook/replays',
        'GET /v1/webhook/replays/{replay_id}',
      ]),
    );
    const createAgent = doc.paths['/v1/combo/agents'].post;
    expect(createAgent.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CreateAgentRequest');
    expect(createAgent.responses['429'].description).toContain('10006');
    expect(createAgent.responses['200'].headers['X-RateLimit-Remaining']).toBeDefined();
  });

  it('serves Swagger UI and its assets from the npm package', async () => {
    const page = await api.call('GET', '/v1/docs');
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain("url: '/v1/openapi.json'");
    const bundle = await api.call('GET', '/v1/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    expect((await api.call('GET', '/v1/docs/..%2Fpackage.json')).json.code).toBe(10004);
  });
});

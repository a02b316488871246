import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMongoActivities } from '../../activities/mongo';
import { ABANDONED_CLAIM_MS } from '../../stores/idempotency-keys';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { startEarlyInRateWindow } from '../support/rate-window';

/** Retention of deliveries, dead letters and logged events off: this file purges idempotency keys only. */
const KEEP_ALL_LISTS = { deliveryRetentionDays: 0, deadLetterRetentionDays: 0, eventRetentionDays: 0 };

/** Idempotency-Key on POSTs: repeats answered from the kept first response, per tenant and principal. */
describe('Idempotency-Key', () => {
  let api: TestApi;
  const keyed = (key: string) => ({ 'idempotency-key': key });
  const keyRecords = () => api.services.mongo.db.collection('idempotency_keys');
  /** The record of a key, found by what it is kept under: the tenant, the principal and the key. */
  const recordId = (principal: string, key: string) =>
    createHash('sha256')
      .update(JSON.stringify(['default', principal, key]))
      .digest('hex');
  const bootstrapPrincipal = () => `api_key:key_${api.adminKey.slice(6, 14)}`;
  const agentCount = async () => (await api.call('GET', '/v1/combo/agents', { key: api.adminKey })).json.data.total as number;

  beforeAll(async () => {
    api = await startTestApi({ RATE_LIMIT_UPLOADS_PER_MIN: '1000', RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('creates once for one key: the repeat, keys in another order, gets the first response, replayed and rate-counted', async () => {
    const before = await agentCount();
    await startEarlyInRateWindow();
    const first = await api.call('POST', '/v1/combo/agents', {
      key: api.adminKey,
      headers: keyed('create-agent-1'),
      body: { name: 'once', instructions: 'be brief', metadata: { team: 'a', env: 'test' } },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api.call('POST', '/v1/combo/agents', {
      key: api.adminKey,
      headers: { ...keyed('create-agent-1'), 'content-type': 'application/json' },
      rawBody: '{"metadata":{"env":"test","team":"a"},"instructions":"be brief","name":"once"}',
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBeLessThan(Number(first.headers.get('x-ratelimit-remaining')));
    expect(await agentCount()).toBe(before + 1);
  });

  it('refuses the key with another request (body or path): 10005 naming the header', async () => {
    const body = { name: 'first body' };
    expect((await api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: keyed('reused'), body })).status).toBe(200);
    const before = await agentCount();
    for (const other of [
      { path: '/v1/combo/agents', body: { name: 'second body' } },
      { path: '/v1/kb', body: { name: 'first body' } },
    ]) {
      const res = await api.call('POST', other.path, { key: api.adminKey, headers: keyed('reused'), body: other.body });
      expect(res.status).toBe(409);
      expect(res.json).toMatchObject({ code: 10005, data: { field: 'header.Idempotency-Key' } });
      expect(res.json.message).toContain('another request');
    }
    expect(await agentCount()).toBe(before);
  });

  it('keeps keys apart per principal: another API key or a console user of the tenant runs its own request', async () => {
    const member = await api.call('POST', '/v1/api-keys', { key: api.adminKey, body: { name: 'member', role: 'member' } });
    const memberKey = member.json.data.api_key as string;
    const user = await consoleToken({ tenant_id: 'default', sub: 'user-1' });
    const body = { name: 'shared key' };
    const ids = [];
    for (const caller of [api.adminKey, memberKey, user]) {
      const res = await api.call('POST', '/v1/combo/agents', { key: caller, headers: keyed('same-key-everywhere'), body });
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      ids.push(res.json.data.agent_id);
    }
    expect(new Set(ids).size).toBe(3);
    const replayed = await api.call('POST', '/v1/combo/agents', { key: memberKey, headers: keyed('same-key-everywhere'), body });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.json.data.agent_id).toBe(ids[1]);
  });

  it('shows a created API key again on a repeat, kept encrypted', async () => {
    const create = () => api.call('POST', '/v1/api-keys', { key: api.adminKey, headers: keyed('new-api-key'), body: { name: 'ci' } });
    const first = await create();
    expect(first.status).toBe(200);
    const secret = first.json.data.api_key as string;
    const again = await create();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data.api_key).toBe(secret);
    const keys = await api.call('GET', '/v1/api-keys?page_size=100', { key: api.adminKey });
    expect(keys.json.data.items.filter((k: { name: string }) => k.name === 'ci')).toHaveLength(1);

    const record = await keyRecords().findOne({ _id: recordId(bootstrapPrincipal(), 'new-api-key') } as object);
    expect(record).toMatchObject({ state: 'done', tenant_id: 'default', principal: bootstrapPrincipal() });
    const stored = JSON.stringify(record);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(15));
    expect(stored).not.toContain(first.json.data.key_id);
    expect(record!.response).toMatch(/^v1:/);
  });

  it('keeps a client error: the repeat answers it again without running', async () => {
    const body = { name: 'refers to nothing', kb_ids: ['kb_doesnotexist'] };
    const first = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: keyed('kept-404'), body });
    expect(first.status).toBe(404);
    const again = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: keyed('kept-404'), body });
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
  });

  it('does not claim the key for a request that fails validation', async () => {
    const bad = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: keyed('fixed-later'), body: { name: '' } });
    expect(bad.status).toBe(400);
    const fixed = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: keyed('fixed-later'), body: { name: 'x' } });
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not keep a 5xx: a retry with the key runs again', async () => {
    // A second API process on the same database whose Elasticsearch is down answers searches with a 5xx.
    const broken = await startTestApi({
      MONGODB_DB: api.config.MONGODB_DB,
      ELASTICSEARCH_INDEX_PREFIX: api.config.ELASTICSEARCH_INDEX_PREFIX,
      BOOTSTRAP_API_KEY: api.adminKey,
      ELASTICSEARCH_URL: 'http://127.0.0.1:9',
    });
    try {
      const kb = await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'searched' } });
      const body = { question: 'anything', kb_ids: [kb.json.data.kb_id] };
      const failed = await broken.call('POST', '/v1/chunk/search', { key: api.adminKey, headers: keyed('search-retry'), body });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(await keyRecords().countDocuments({ _id: recordId(bootstrapPrincipal(), 'search-retry') } as object)).toBe(0);
      const retried = await api.call('POST', '/v1/chunk/search', { key: api.adminKey, headers: keyed('search-retry'), body });
      expect(retried.status).toBe(200);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      const repeated = await broken.call('POST', '/v1/chunk/search', { key: api.adminKey, headers: keyed('search-retry'), body });
      expect(repeated.status).toBe(200);
      expect(repeated.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await broken.close({ keepDatabase: true });
    }
  });

  describe('multipart', () => {
    const multipart = (boundary: string, name: string, bytes: Buffer) => ({
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      rawBody: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    const uploadWith = (key: string, boundary: string, bytes: Buffer) => {
      const { headers, rawBody } = multipart(boundary, 'notes.txt', bytes);
      return api.call('POST', '/v1/files', { key: api.adminKey, rawBody, headers: { ...headers, ...keyed(key) } });
    };
    const storedFiles = () => api.services.mongo.db.collection('files').countDocuments({});

    it('replays an upload sent again with another boundary: one file stored', async () => {
      const bytes = Buffer.from('Meeting notes.\n\nThe release moves to Thursday.\n');
      const before = await storedFiles();
      const first = await uploadWith('upload-1', 'boundary-AAAA', bytes);
      expect(first.status).toBe(200);
      const again = await uploadWith('upload-1', 'boundary-BBBBBBBB', bytes);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json.data.file_id).toBe(first.json.data.file_id);
      expect(await storedFiles()).toBe(before + 1);

      const otherBytes = await uploadWith('upload-1', 'boundary-CCCC', Buffer.from('Other notes.\n'));
      expect(otherBytes.status).toBe(409);
      expect(otherBytes.json.code).toBe(10005);
      expect(await storedFiles()).toBe(before + 1);
    });

    it('runs two concurrent sends of one key once: the other is replayed or told to retry', async () => {
      const bytes = Buffer.from(`${'A paragraph of an attachment read in a parsing thread. '.repeat(2000)}\n`);
      const before = await storedFiles();
      const answers = await Promise.all([uploadWith('upload-race', 'race-1', bytes), uploadWith('upload-race', 'race-2', bytes)]);
      const ran = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
      expect(ran).toHaveLength(1);
      for (const other of answers.filter((a) => a !== ran[0])) {
        if (other.status === 200) {
          expect(other.headers.get('idempotent-replayed')).toBe('true');
          expect(other.json.data.file_id).toBe(ran[0]!.json.data.file_id);
        } else {
          expect(other.status).toBe(409);
          expect(other.headers.get('retry-after')).toBe('1');
        }
      }
      expect(await storedFiles()).toBe(before + 1);
    });
  });

  it('refuses a malformed key with 10001 naming the header, on POSTs only', async () => {
    for (const key of ['', 'x'.repeat(256), 'clé']) {
      const res = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: keyed(key), body: { name: 'never' } });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 10001, data: { field: 'header.Idempotency-Key' } });
    }
    // Checked before anything runs, on the completions route (which handles its key itself) too.
    const completion = await api.call('POST', '/v1/combo/agents/agt_x/completions', {
      key: api.adminKey,
      headers: keyed(''),
      body: { question: 'hi' },
    });
    expect(completion.json).toMatchObject({ code: 10001, data: { field: 'header.Idempotency-Key' } });
    expect((await api.call('GET', '/v1/combo/agents', { key: api.adminKey, headers: keyed('') })).status).toBe(200);
    expect(
      (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: keyed('x'.repeat(255)), body: { name: 'long key' } }))
        .status,
    ).toBe(200);
  });

  it('answers 10005 with Retry-After while the first request is still being processed, and runs again once it is abandoned', async () => {
    const send = () => api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: keyed('slow'), body: { name: 'slow' } });
    const first = await send();
    const _id = recordId(bootstrapPrincipal(), 'slow');
    // As the record stands while its request runs: claimed, nothing kept yet.
    await keyRecords().updateOne({ _id } as object, { $set: { state: 'in_progress', response: null } });
    const busy = await send();
    expect(busy.status).toBe(409);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.json).toMatchObject({ code: 10005, data: { field: 'header.Idempotency-Key' } });
    expect(busy.json.message).toContain('still being processed');

    // Its API process died: the claim is abandoned, and the key runs again.
    await keyRecords().updateOne({ _id } as object, { $set: { created_at: new Date(Date.now() - ABANDONED_CLAIM_MS - 1000) } });
    const rerun = await send();
    expect(rerun.status).toBe(200);
    expect(rerun.headers.get('idempotent-replayed')).toBeNull();
    expect(rerun.json.data.agent_id).not.toBe(first.json.data.agent_id);
  });

  it('lets one of two processes racing on a key claim it (the store on the real database)', async () => {
    const scope = { tenantId: 'default', principal: 'api_key:key_racing', key: 'race' };
    const outcomes = await Promise.all([1, 2, 3].map(() => api.services.idempotencyKeys.claim(scope, 'fingerprint')));
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['claimed', 'in_progress', 'in_progress']);
    const { claim } = outcomes.find((o) => o.outcome === 'claimed') as { claim: { id: string; claimId: string } };
    expect((await api.services.idempotencyKeys.claim(scope, 'another fingerprint')).outcome).toBe('mismatch');
    await api.services.idempotencyKeys.complete(claim, { status: 200, headers: {}, body: { code: 0, data: 1, message: 'ok' } });
    expect(await api.services.idempotencyKeys.claim(scope, 'fingerprint')).toEqual({
      outcome: 'replay',
      response: { status: 200, headers: {}, body: { code: 0, data: 1, message: 'ok' } },
    });
  });

  it('documents the header, the replay marker and the 409 on every POST of a caller', async () => {
    interface Operation {
      security: unknown[];
      parameters?: { in: string; name: string; required: boolean }[];
      responses: Record<string, { description: string; headers?: Record<string, unknown> }>;
    }
    const paths = (await api.call('GET', '/v1/openapi.json')).json.paths as Record<string, { post?: Operation }>;
    const posts = Object.entries(paths).flatMap(([path, ops]) => (ops.post ? [{ path, op: ops.post }] : []));
    expect(posts.length).toBeGreaterThan(20);
    for (const { path, op } of posts) {
      const header = (op.parameters ?? []).find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      if (op.security.length === 0) {
        expect([path, header]).toEqual([path, undefined]);
        continue;
      }
      expect([path, header?.required]).toEqual([path, false]);
      expect(op.responses['409']!.description).toContain('Idempotency-Key');
      // Completions (and the MCP server's ask_agent) handle their keys themselves: a repeat attaches to the run the key started.
      const replays = !['/v1/combo/agents/{agent_id}/completions', '/v1/openai/chat/completions', '/v1/mcp'].includes(path);
      expect([path, op.responses['200']!.headers?.['Idempotent-Replayed'] !== undefined]).toEqual([path, replays]);
    }
  });
});

describe('Idempotency-Key window', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ IDEMPOTENCY_KEY_TTL_HOURS: '0.0003' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('runs the key again once its window ended, and maintenance purges the record', async () => {
    const send = () =>
      api.call('POST', '/v1/combo/agents', { key: api.adminKey, headers: { 'idempotency-key': 'short' }, body: { name: 'a' } });
    const first = await send();
    const records = api.services.mongo.db.collection('idempotency_keys');
    const record = (await records.findOne({}))!;
    expect(record.expires_at.getTime() - record.created_at.getTime()).toBe(1080);
    await sleep(record.expires_at.getTime() - Date.now() + 20);

    const after = await send();
    expect(after.status).toBe(200);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.json.data.agent_id).not.toBe(first.json.data.agent_id);

    const renewed = (await records.findOne({}))!;
    await sleep(renewed.expires_at.getTime() - Date.now() + 20);
    const maintenance = createMongoActivities({ ...api.services, streamRetentionHours: 24, inboundRetentionDays: 7, ...KEEP_ALL_LISTS });
    expect(await maintenance.purgeExpiredIdempotencyKeys()).toBe(1);
    expect(await records.countDocuments({})).toBe(0);
  });
});

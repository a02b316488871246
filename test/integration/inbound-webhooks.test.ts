import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { MongoClient } from 'mongodb';
import { randomToken } from '../../common/ids';
import { signPayload } from '../../common/signature';
import { ensureIndexes } from '../../stores/mongo';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { startEarlyInRateWindow } from '../support/rate-window';

const MAX_BODY = 300_000;
const fixture = (channel: string, file: string) => readFileSync(join(__dirname, '..', 'fixtures', 'webhooks', channel, file), 'utf8');
const nowSeconds = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SendOptions {
  secret: string;
  integrationId?: string;
  /** How the integration is named: the query parameter (default) or the X-Combo-Integration header. */
  via?: 'query' | 'header';
  eventId?: string | null;
  timestamp?: string | null;
  /** The body the signature is computed over, when it differs from the one sent. */
  signedBody?: string | Buffer;
  headers?: Record<string, string>;
  contentType?: string;
}

describe('inbound webhooks', () => {
  let api: TestApi;
  let agentId: string;
  let member: string;
  let stranger: string;
  const startedWorkflows: string[] = [];

  beforeAll(async () => {
    api = await startTestApi({
      MAX_JSON_BODY_BYTES: String(MAX_BODY),
      RATE_LIMIT_INBOUND_PER_MIN: '1000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Reviewer' } })).json.data.agent_id;
    member = await consoleToken({ tenant_id: 'default', sub: 'mia', roles: ['member'] });
    stranger = await consoleToken({ tenant_id: 'elsewhere', sub: 'eve', roles: ['admin'] });
  });
  afterAll(async () => {
    // Nothing runs these agent tasks (no worker): end them rather than leave them on the server.
    await Promise.all(
      startedWorkflows.map((id) =>
        api.services.temporal.workflow
          .getHandle(id)
          .terminate('test over')
          .catch(() => undefined),
      ),
    );
    await api?.close();
  });

  const admin = () => api.adminKey;
  const createIntegration = async (channel: string, key = admin()) => {
    const res = await api.call('POST', '/v1/integrations', { key, body: { channel } });
    expect(res.json.code).toBe(0);
    return res.json.data as { integration_id: string; secret: string; channel: string; webhook_url: string };
  };
  const createTrigger = async (trigger: Record<string, unknown>) => {
    const res = await api.call('POST', '/v1/event-trigger', { key: admin(), body: { name: `t-${randomToken(4)}`, trigger } });
    expect(res.json.code).toBe(0);
    return res.json.data as { trigger_id: string };
  };

  async function send(path: string, body: string | Buffer, options: SendOptions) {
    const { secret, integrationId, via = 'query', signedBody = body } = options;
    const timestamp = options.timestamp === undefined ? String(nowSeconds()) : options.timestamp;
    const eventId = options.eventId === undefined ? `evt-${randomToken(12)}` : options.eventId;
    const headers: Record<string, string> = {
      'content-type': options.contentType ?? 'application/json',
      'x-combo-signature': signPayload(secret, timestamp ?? '', signedBody),
      ...(timestamp !== null ? { 'x-combo-timestamp': timestamp } : {}),
      ...(eventId !== null ? { 'x-combo-event-id': eventId } : {}),
      ...(integrationId && via === 'header' ? { 'x-combo-integration': integrationId } : {}),
      ...options.headers,
    };
    const url = integrationId && via === 'query' ? `${path}?integration_id=${integrationId}` : path;
    const res = await api.call('POST', url, { rawBody: body, headers });
    for (const task of res.json?.data?.tasks ?? []) if (task.started) startedWorkflows.push(task.workflow_id);
    return res;
  }

  describe('integrations', () => {
    it('shows the secret once, stores it encrypted, and may be several per channel', async () => {
      const created = await createIntegration('git-a');
      expect(created).toMatchObject({ channel: 'git-a', name: 'git-a', previous_secret_valid_until: null });
      expect(created.integration_id).toMatch(/^int_[A-Za-z0-9]{20}$/);
      expect(created.secret).toMatch(/^insec_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(created.secret.slice('insec_'.length), 'base64url')).toHaveLength(32);
      expect(created.webhook_url).toBe(`${api.config.PUBLIC_BASE_URL}/v1/webhook/git-a?integration_id=${created.integration_id}`);

      const got = await api.call('GET', `/v1/integrations/${created.integration_id}`, { key: admin() });
      expect(got.json.data).toMatchObject({ integration_id: created.integration_id, secret_last4: created.secret.slice(-4) });
      expect(got.json.data.secret).toBeUndefined();
      const listed = await api.call('GET', '/v1/integrations', { key: admin() });
      expect(listed.json.data.items.map((i: { integration_id: string }) => i.integration_id)).toContain(created.integration_id);
      expect(listed.text).not.toContain(created.secret);
      const stored = await api.services.mongo.db.collection('integrations').findOne({ _id: created.integration_id as never });
      expect(JSON.stringify(stored)).not.toContain(created.secret);

      const second = await api.call('POST', '/v1/integrations', { key: admin(), body: { channel: 'git-a', name: 'again' } });
      expect(second.json).toMatchObject({ code: 0, data: { channel: 'git-a', name: 'again' } });
      expect(second.json.data.integration_id).not.toBe(created.integration_id);
      expect(second.json.data.secret).not.toBe(created.secret);
      // Another tenant has channels of its own.
      const theirs = await api.call('POST', '/v1/integrations', { key: stranger, body: { channel: 'git-a' } });
      expect(theirs.json.code).toBe(0);

      const generic = await createIntegration('generic');
      expect(generic.webhook_url).toBe(
        `${api.config.PUBLIC_BASE_URL}/v1/webhook/generic/{trigger_id}?integration_id=${generic.integration_id}`,
      );
    });

    it('validates its input', async () => {
      for (const [body, field] of [
        [{ channel: 'git-z' }, 'body.channel'],
        [{}, 'body.channel'],
        [{ channel: 'git-b', secret: 'mine' }, 'body.secret'],
      ] as const) {
        expect((await api.call('POST', '/v1/integrations', { key: admin(), body })).json).toMatchObject({ code: 10001, data: { field } });
      }
      const created = await createIntegration('workchat-b');
      for (const grace of [-1, 604_801, 1.5, '60']) {
        const res = await api.call('POST', `/v1/integrations/${created.integration_id}/rotate`, {
          key: admin(),
          body: { grace_seconds: grace },
        });
        expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.grace_seconds' } });
      }
    });

    it('is for administrators of the tenant only', async () => {
      const created = await createIntegration('review-a');
      const path = `/v1/integrations/${created.integration_id}`;
      expect((await api.call('GET', '/v1/integrations', { key: member })).json.code).toBe(10003);
      expect((await api.call('POST', '/v1/integrations', { key: member, body: { channel: 'git-c' } })).json.code).toBe(10003);
      expect((await api.call('POST', `${path}/rotate`, { key: member, body: {} })).json.code).toBe(10003);
      expect((await api.call('GET', '/v1/integrations')).json.code).toBe(10002);
      for (const [method, suffix] of [
        ['GET', ''],
        ['DELETE', ''],
        ['POST', '/rotate'],
      ] as const) {
        expect((await api.call(method, `${path}${suffix}`, { key: stranger, body: method === 'POST' ? {} : undefined })).json.code).toBe(
          10004,
        );
      }
      expect((await api.call('GET', path, { key: admin() })).json.code).toBe(0);
    });

    it('deletes: the integration is gone and its calls are refused', async () => {
      const created = await createIntegration('workchat-a');
      const body = fixture('workchat-a', 'im.message.receive_v1.json');
      expect(
        (await send('/v1/webhook/workchat-a', body, { secret: created.secret, integrationId: created.integration_id })).json.code,
      ).toBe(0);
      expect((await api.call('DELETE', `/v1/integrations/${created.integration_id}`, { key: admin() })).json).toMatchObject({
        code: 0,
        data: { deleted: true },
      });
      expect((await api.call('GET', `/v1/integrations/${created.integration_id}`, { key: admin() })).json.code).toBe(10004);
      expect((await api.call('DELETE', `/v1/integrations/${created.integration_id}`, { key: admin() })).json.code).toBe(10004);
      const refused = await send('/v1/webhook/workchat-a', body, { secret: created.secret, integrationId: created.integration_id });
      expect(refused.json).toMatchObject({ code: 10002, message: 'signature verification failed' });
      // The channel is free again.
      expect((await createIntegration('workchat-a')).integration_id).not.toBe(created.integration_id);
    });
  });

  describe('receiving', () => {
    let gitB: { integration_id: string; secret: string };
    let gitC: { integration_id: string; secret: string };
    let triggerId: string;
    const prBody = fixture('git-b', 'pull_request.opened.json');
    const prHeaders = { 'x-github-event': 'pull_request' };
    const sendPr = (options: Partial<SendOptions> = {}, body: string | Buffer = prBody) =>
      send('/v1/webhook/git-b', body, { secret: gitB.secret, integrationId: gitB.integration_id, headers: prHeaders, ...options });
    const expectRefused = (res: Awaited<ReturnType<typeof send>>) => {
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ code: 10002, message: 'signature verification failed' });
    };

    beforeAll(async () => {
      gitB = await createIntegration('git-b');
      gitC = await createIntegration('git-c');
      triggerId = (
        await createTrigger({
          source: 'git-b',
          match: { event: 'pull_request.opened', project_regex: '^Codertocat/' },
          action: { agent_id: agentId, session_template: 'default', inputs: { title: '{{ event.payload.pull_request.title }}' } },
        })
      ).trigger_id;
    });

    it("accepts a signed event, normalises it and starts the matching trigger's task", async () => {
      const eventId = `delivery-${randomToken(10)}`;
      const res = await sendPr({ eventId });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        code: 0,
        data: {
          event_id: eventId,
          duplicate: false,
          source: 'git-b',
          event: 'pull_request.opened',
          project: 'Codertocat/Hello-World',
          actor: 'Codertocat',
          url: 'https://github.com/Codertocat/Hello-World/pull/2',
        },
      });
      expect(res.json.data.tasks).toEqual([{ trigger_id: triggerId, workflow_id: expect.any(String), started: true }]);
      const described = await api.services.temporal.workflow.getHandle(res.json.data.tasks[0].workflow_id).describe();
      expect(described.type).toBe('agentTaskWorkflow');

      const stored = await api.services.mongo.db
        .collection('inbound_events')
        .findOne({ _id: `${gitB.integration_id}:${eventId}` as never });
      expect(stored).toMatchObject({
        tenant_id: 'default',
        event: { event: 'pull_request.opened', project: 'Codertocat/Hello-World' },
        payload_text: prBody,
      });
      expect(stored!.tasks).toEqual(res.json.data.tasks);

      // The header names the integration as well as the query does; the other event kinds start nothing here.
      const push = await send('/v1/webhook/git-b', fixture('git-b', 'push.json'), {
        secret: gitB.secret,
        integrationId: gitB.integration_id,
        via: 'header',
        headers: { 'x-github-event': 'push' },
      });
      expect(push.json).toMatchObject({ code: 0, data: { event: 'push', duplicate: false, tasks: [] } });
      const unknown = await sendPr({ headers: { 'x-github-event': 'ping' } }, fixture('git-b', 'ping.json'));
      expect(unknown.json).toMatchObject({ code: 0, data: { event: 'unknown', project: null, tasks: [] } });
    });

    it('acknowledges a replayed event id without starting anything again', async () => {
      const eventId = `delivery-${randomToken(10)}`;
      const first = await sendPr({ eventId });
      expect(first.json.data).toMatchObject({ duplicate: false, tasks: [{ started: true }] });
      const again = await sendPr({ eventId });
      expect(again.json).toMatchObject({ code: 0, data: { event_id: eventId, duplicate: true, event: 'pull_request.opened', tasks: [] } });
      // The same id from another integration is another event.
      const elsewhere = await send('/v1/webhook/git-c', fixture('git-c', 'push.json'), {
        secret: gitC.secret,
        integrationId: gitC.integration_id,
        eventId,
        headers: { 'x-gitea-event': 'push' },
      });
      expect(elsewhere.json.data).toMatchObject({ duplicate: false, event: 'push', project: 'gitea/webhooks' });
    });

    it('refuses wrong secrets, stale timestamps and altered bodies with one message', async () => {
      expectRefused(await sendPr({ secret: gitC.secret }));
      expectRefused(await sendPr({ secret: `${gitB.secret}x` }));
      expectRefused(await sendPr({ timestamp: String(nowSeconds() - 6 * 60) }));
      expectRefused(await sendPr({ timestamp: String(nowSeconds() + 6 * 60) }));
      expectRefused(await sendPr({ timestamp: null }));
      expectRefused(await sendPr({ timestamp: '17e8' }));
      expectRefused(await sendPr({ signedBody: prBody.replace('opened', 'closed') }));
      expectRefused(await sendPr({ headers: { ...prHeaders, 'x-combo-signature': '' } }));
      // The right HMAC, upper-case: the spec's hex is lower-case.
      const ts = String(nowSeconds());
      expectRefused(
        await sendPr({
          timestamp: ts,
          headers: { ...prHeaders, 'x-combo-signature': `sha256=${signPayload(gitB.secret, ts, prBody).slice(7).toUpperCase()}` },
        }),
      );
      // Within the tolerance is fine.
      expect((await sendPr({ timestamp: String(nowSeconds() - 4 * 60) })).json.code).toBe(0);
    });

    it("refuses a missing, unknown or other channel's integration alike (10002)", async () => {
      expectRefused(await sendPr({ integrationId: undefined }));
      expectRefused(await sendPr({ integrationId: 'int_doesnotexist0000000' }));
      expectRefused(await sendPr({ integrationId: 'not-an-id' }));
      // git-c's integration, correctly signed with its own secret, on the git-b path.
      expectRefused(await sendPr({ integrationId: gitC.integration_id, secret: gitC.secret }));
      // Another tenant's integration of the channel signs for that tenant only: none of this tenant's triggers runs.
      const theirs = await createIntegration('git-b', stranger);
      const res = await sendPr({ integrationId: theirs.integration_id, secret: theirs.secret });
      expect(res.json).toMatchObject({ code: 0, data: { event: 'pull_request.opened', tasks: [] } });
    });

    it('answers 10001 for a missing event id and bodies that are not a JSON object of the allowed size', async () => {
      const missing = await sendPr({ eventId: null });
      expect(missing.json).toMatchObject({ code: 10001, data: { field: 'header.X-Combo-Event-Id' } });
      expect((await sendPr({ eventId: 'e'.repeat(201) })).json.code).toBe(10001);
      expect((await sendPr({ eventId: 'e'.repeat(200) })).json.code).toBe(0);

      const malformed = await sendPr({}, '{"action": "opened",');
      expect(malformed.json).toMatchObject({ code: 10001, message: 'malformed JSON body' });
      expect((await sendPr({}, '[1, 2, 3]')).json.code).toBe(10001);
      expect((await sendPr({}, '"text"')).json.code).toBe(10001);
      expect((await sendPr({}, '')).json).toMatchObject({ code: 10001, data: { field: 'body' } });
      expect((await sendPr({ contentType: 'text/plain' })).json.code).toBe(10001);

      const oversized = JSON.stringify({ action: 'opened', padding: 'x'.repeat(MAX_BODY) });
      const tooBig = await sendPr({}, oversized);
      expect(tooBig.status).toBe(400);
      expect(tooBig.json).toMatchObject({ code: 10001, message: `request body exceeds ${MAX_BODY} bytes` });
    });

    it('keeps a large event without its payload', async () => {
      const eventId = `big-${randomToken(8)}`;
      const body = JSON.stringify({ ...JSON.parse(prBody), padding: 'y'.repeat(270 * 1024) });
      const res = await sendPr({ eventId }, body);
      expect(res.json).toMatchObject({ code: 0, data: { event: 'pull_request.opened', tasks: [{ started: true }] } });
      const stored = await api.services.mongo.db
        .collection('inbound_events')
        .findOne({ _id: `${gitB.integration_id}:${eventId}` as never });
      expect(stored).toMatchObject({ payload_text: null, payload_bytes: Buffer.byteLength(body), event: { event: 'pull_request.opened' } });
    });

    const storedEvent = (integrationId: string, eventId: string) =>
      api.services.mongo.db.collection('inbound_events').findOne({ _id: `${integrationId}:${eventId}` as never });

    it('verifies the signature over the bytes as sent: a gzip-compressed body, a body that is not UTF-8', async () => {
      const gzipped = gzipSync(Buffer.from(prBody));
      const eventId = `gz-${randomToken(8)}`;
      const compressed = await sendPr({ eventId, headers: { ...prHeaders, 'content-encoding': 'gzip' } }, gzipped);
      expect(compressed.json).toMatchObject({
        code: 0,
        data: { event: 'pull_request.opened', project: 'Codertocat/Hello-World', tasks: [{ trigger_id: triggerId, started: true }] },
      });
      expect((await storedEvent(gitB.integration_id, eventId))!.payload_text).toBe(prBody);
      // Signed over the decompressed text instead: refused.
      expectRefused(await sendPr({ signedBody: prBody, headers: { ...prHeaders, 'content-encoding': 'gzip' } }, gzipped));

      const latin1 = Buffer.concat([Buffer.from('{"action":"opened","note":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
      const undeclared = `l1-${randomToken(8)}`;
      expect((await sendPr({ eventId: undeclared }, latin1)).json).toMatchObject({ code: 0, data: { duplicate: false } });
      expect((await storedEvent(gitB.integration_id, undeclared))!.payload_text).toBe('{"action":"opened","note":"caf\uFFFD"}');
      const declared = `l1-${randomToken(8)}`;
      expect((await sendPr({ eventId: declared, contentType: 'application/json; charset=iso-8859-1' }, latin1)).json.code).toBe(0);
      expect((await storedEvent(gitB.integration_id, declared))!.payload_text).toBe('{"action":"opened","note":"café"}');
    });

    it('accepts a signed event carrying NUL: stored cleaned (keys and values) and dispatched', async () => {
      const pr = JSON.parse(prBody);
      const body = JSON.stringify({
        ...pr,
        'note\u0000': 'x\u0000y',
        pull_request: { ...pr.pull_request, title: 'Fix\u0000 login' },
        repository: { ...pr.repository, full_name: 'Codertocat/Hello\u0000-World' },
      });
      expect(body).toContain('\\u0000');
      const eventId = `nul-${randomToken(8)}`;
      const res = await sendPr({ eventId }, body);
      expect(res.json).toMatchObject({
        code: 0,
        data: { project: 'Codertocat/Hello-World', tasks: [{ trigger_id: triggerId, started: true }] },
      });
      const stored = await storedEvent(gitB.integration_id, eventId);
      expect(stored!.payload_text).not.toContain('\\u0000');
      expect(JSON.parse(stored!.payload_text)).toMatchObject({ note: 'xy', pull_request: { title: 'Fix login' } });
      expect(stored!.event).toMatchObject({ project: 'Codertocat/Hello-World' });
    });

    it('starts no task with an input the event lacks: the task entry says which path (null is present)', async () => {
      const lacking = await createTrigger({
        source: 'git-b',
        match: { event: 'pull_request.opened' },
        action: {
          agent_id: agentId,
          session_template: 'default',
          inputs: { closed: '{{ event.payload.pull_request.closed_at }}', merged_by: '{{ event.payload.pull_request.merged_by.login }}' },
        },
      });
      const withNull = await createTrigger({
        source: 'git-b',
        match: { event: 'pull_request.opened' },
        action: { agent_id: agentId, session_template: 'default', inputs: { closed: '{{ event.payload.pull_request.closed_at }}' } },
      });
      try {
        const pr = JSON.parse(prBody);
        const eventId = `miss-${randomToken(8)}`;
        const res = await sendPr({ eventId }, JSON.stringify({ ...pr, pull_request: { ...pr.pull_request, closed_at: null } }));
        expect(res.json.code).toBe(0);
        const byTrigger = Object.fromEntries(res.json.data.tasks.map((t: { trigger_id: string }) => [t.trigger_id, t]));
        expect(byTrigger[lacking.trigger_id]).toEqual({
          trigger_id: lacking.trigger_id,
          workflow_id: expect.any(String),
          started: false,
          error: expect.stringContaining('input merged_by: event.payload.pull_request.merged_by.login'),
        });
        expect(byTrigger[withNull.trigger_id]).toMatchObject({ started: true });
        expect(byTrigger[withNull.trigger_id].error).toBeUndefined();
        expect(byTrigger[triggerId]).toMatchObject({ started: true });
        await expect(api.services.temporal.workflow.getHandle(byTrigger[lacking.trigger_id].workflow_id).describe()).rejects.toThrow();
        expect((await storedEvent(gitB.integration_id, eventId))!.tasks).toEqual(res.json.data.tasks);
      } finally {
        await api.call('DELETE', `/v1/event-trigger/${lacking.trigger_id}`, { key: admin() });
        await api.call('DELETE', `/v1/event-trigger/${withNull.trigger_id}`, { key: admin() });
      }
    });

    it('answers 10004 for an unknown channel and leaves the outbound routes alone', async () => {
      const res = await send('/v1/webhook/git-z', prBody, { secret: gitB.secret, integrationId: gitB.integration_id });
      expect(res.json.code).toBe(10004);
      expect((await send('/v1/webhook/generic', prBody, { secret: gitB.secret, integrationId: gitB.integration_id })).json.code).toBe(
        10004,
      );
      const subscription = await api.call('POST', '/v1/webhook/subscriptions', {
        key: admin(),
        body: { url: 'http://127.0.0.1:9/hook', events: ['session.created'] },
      });
      expect(subscription.json).toMatchObject({ code: 0, data: { url: 'http://127.0.0.1:9/hook' } });
      expect(
        (await api.call('POST', '/v1/webhook/subscriptions', { body: { url: 'http://127.0.0.1:9/hook', events: ['session.created'] } }))
          .json.code,
      ).toBe(10002);
    });

    it('puts the rate-limit headers on inbound calls, counted per integration; refused calls apart', async () => {
      const first = await sendPr();
      const secondSentAt = nowSeconds();
      const second = await sendPr();
      const refused = await sendPr({ secret: 'wrong' });
      const refusedAgain = await sendPr({ secret: 'wrong' });
      const third = await sendPr();
      const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
      // Windows are fixed minutes: a pair straddling a window's end starts the count again.
      const expectCountedOnce = (before: { headers: Headers }, after: { headers: Headers }) => {
        const sameWindow = before.headers.get('x-ratelimit-reset') === after.headers.get('x-ratelimit-reset');
        expect(remaining(after)).toBe(sameWindow ? remaining(before) - 1 : 999);
      };
      expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
      expectCountedOnce(first, second);
      expect(refused.headers.get('x-ratelimit-limit')).toBe('1000');
      // Refused calls draw on their own bucket: the signed one is untouched by them, and theirs counts down.
      expectCountedOnce(refused, refusedAgain);
      expectCountedOnce(second, third);
      // The window that counted the call ends after the moment it was sent (checking against a later clock can meet its end).
      expect(Number(second.headers.get('x-ratelimit-reset'))).toBeGreaterThan(secondSentAt);
      const sendOther = () =>
        send('/v1/webhook/git-c', fixture('git-c', 'push.json'), { secret: gitC.secret, integrationId: gitC.integration_id });
      const other = await sendOther();
      const otherAgain = await sendOther();
      const fourth = await sendPr();
      // Another integration counts in its own bucket: each goes down by one per own call only.
      expectCountedOnce(other, otherAgain);
      expectCountedOnce(third, fourth);
      // API calls keep their own family.
      expect((await api.call('GET', '/v1/integrations', { key: admin() })).headers.get('x-ratelimit-limit')).toBe('100000');
    });
  });

  describe('several integrations of one channel', () => {
    it('each verifies with its own secret; a trigger naming one hears only it, one naming none hears all', async () => {
      const orgA = await createIntegration('git-c');
      const orgB = await createIntegration('git-c');
      const action = { agent_id: agentId, session_template: 'default' };
      const anyOrg = await createTrigger({ source: 'git-c', match: { event: 'push' }, action });
      const onlyB = await createTrigger({ source: 'git-c', integration_id: orgB.integration_id, match: { event: 'push' }, action });
      try {
        const got = await api.call('GET', `/v1/event-trigger/${onlyB.trigger_id}`, { key: admin() });
        expect(got.json.data.trigger.integration_id).toBe(orgB.integration_id);
        const push = (org: { integration_id: string; secret: string }, secret = org.secret) =>
          send('/v1/webhook/git-c', fixture('git-c', 'push.json'), {
            secret,
            integrationId: org.integration_id,
            headers: { 'x-gitea-event': 'push' },
          });
        const started = (res: Awaited<ReturnType<typeof send>>) =>
          res.json.data.tasks.map((t: { trigger_id: string }) => t.trigger_id).sort();

        expect(started(await push(orgA))).toEqual([anyOrg.trigger_id]);
        expect(started(await push(orgB))).toEqual([anyOrg.trigger_id, onlyB.trigger_id].sort());
        expect((await push(orgB, orgA.secret)).json).toMatchObject({ code: 10002 });

        // Only an integration of the tenant on the trigger's channel can be named.
        const gitBIntegration = await createIntegration('git-b');
        const theirs = await createIntegration('git-c', stranger);
        for (const integration_id of [gitBIntegration.integration_id, theirs.integration_id, 'int_doesnotexist00000000']) {
          const res = await api.call('POST', '/v1/event-trigger', {
            key: admin(),
            body: { name: 'x', trigger: { source: 'git-c', integration_id, match: { event: 'push' }, action } },
          });
          expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.trigger.integration_id' } });
        }
      } finally {
        await api.call('DELETE', `/v1/event-trigger/${anyOrg.trigger_id}`, { key: admin() });
        await api.call('DELETE', `/v1/event-trigger/${onlyB.trigger_id}`, { key: admin() });
      }
    });

    it('installations of earlier versions lose their one-per-channel unique index on start', async () => {
      const dbName = `test_mig_${randomToken(8).toLowerCase()}`;
      const client = await new MongoClient(process.env.MONGODB_URI!).connect();
      const db = client.db(dbName);
      // As the earlier version created it.
      await db.collection('integrations').createIndex({ tenant_id: 1, channel: 1 }, { unique: true });
      const channelIndexes = async () =>
        (await db.collection('integrations').listIndexes().toArray()).filter((ix) => Object.keys(ix.key).join(',') === 'tenant_id,channel');
      expect(await channelIndexes()).toHaveLength(1);
      const upgraded = await startTestApi({ MONGODB_DB: dbName });
      try {
        expect(await channelIndexes()).toEqual([]);
        for (let i = 0; i < 2; i++) {
          expect((await upgraded.call('POST', '/v1/integrations', { key: upgraded.adminKey, body: { channel: 'git-b' } })).json.code).toBe(
            0,
          );
        }
        // The next start (the worker's, say) finds nothing left to do.
        await ensureIndexes(db);
        expect(await channelIndexes()).toEqual([]);
      } finally {
        await upgraded.close();
        await client.close();
      }
    });
  });

  describe('rotation', () => {
    it('verifies the previous secret during the grace only', async () => {
      // Every channel of the default tenant is taken by now: another tenant's integration.
      const created = await createIntegration('review-a', stranger);
      const body = fixture('review-a', 'patchset-created.json');
      const sendWith = (secret: string) => send('/v1/webhook/review-a', body, { secret, integrationId: created.integration_id });

      const rotate = async (grace?: number) => {
        const res = await api.call('POST', `/v1/integrations/${created.integration_id}/rotate`, {
          key: stranger,
          body: grace === undefined ? {} : { grace_seconds: grace },
        });
        expect(res.json.code).toBe(0);
        return res.json.data as { secret: string; secret_last4: string; previous_secret_valid_until: string | null };
      };

      const second = await rotate();
      expect(second.secret).not.toBe(created.secret);
      expect(second.secret_last4).toBe(second.secret.slice(-4));
      const graceEnd = Date.parse(second.previous_secret_valid_until!);
      expect(graceEnd - Date.now()).toBeGreaterThan(3590_000);
      expect(graceEnd - Date.now()).toBeLessThanOrEqual(3600_000);
      const shown = await api.call('GET', `/v1/integrations/${created.integration_id}`, { key: stranger });
      expect(shown.json.data).toMatchObject({ previous_secret_valid_until: second.previous_secret_valid_until });
      expect(shown.json.data.secret).toBeUndefined();
      expect((await sendWith(second.secret)).json.code).toBe(0);
      expect((await sendWith(created.secret)).json.code).toBe(0);

      // A grace of 0: the secret just replaced stops at once, and so does the one before it.
      const third = await rotate(0);
      expect(third.previous_secret_valid_until).toBeNull();
      expect((await sendWith(third.secret)).json.code).toBe(0);
      expect((await sendWith(second.secret)).json.code).toBe(10002);
      expect((await sendWith(created.secret)).json.code).toBe(10002);

      // A grace of 3 s (room for a slow call to verify within it): the replaced secret verifies, then stops.
      const fourth = await rotate(3);
      expect((await sendWith(third.secret)).json.code).toBe(0);
      // The grace is a time of the clock: wait until it has passed, by the time the service gave.
      await sleep(Date.parse(fourth.previous_secret_valid_until!) - Date.now() + 50);
      expect((await sendWith(third.secret)).json.code).toBe(10002);
      expect((await sendWith(fourth.secret)).json.code).toBe(0);
      expect(
        (await api.call('GET', `/v1/integrations/${created.integration_id}`, { key: stranger })).json.data.previous_secret_valid_until,
      ).toBeNull();
    });
  });

  describe('the generic channel', () => {
    it("signs with the tenant's generic integration and starts only the trigger in the path", async () => {
      const listed = await api.call('GET', '/v1/integrations?page_size=100', { key: admin() });
      const existing = listed.json.data.items.find((i: { channel: string }) => i.channel === 'generic');
      if (existing) await api.call('DELETE', `/v1/integrations/${existing.integration_id}`, { key: admin() });
      const generic = await createIntegration('generic');
      const trigger = await createTrigger({
        source: 'generic',
        match: { event: 'build.finished' },
        action: { agent_id: agentId, session_template: 'default' },
      });
      const body = fixture('generic', 'build-finished.json');
      const path = `/v1/webhook/generic/${trigger.trigger_id}`;

      const res = await send(path, body, { secret: generic.secret, integrationId: generic.integration_id });
      expect(res.json).toMatchObject({
        code: 0,
        data: {
          source: 'generic',
          event: 'build.finished',
          project: 'payments/api',
          actor: 'ci-runner-7',
          tasks: [{ trigger_id: trigger.trigger_id, started: true }],
        },
      });
      expect(res.headers.get('x-ratelimit-limit')).toBe('1000');

      // An unknown trigger is 10004 once the signature holds, and the event id stays unused.
      const eventId = `gen-${randomToken(8)}`;
      const unknown = await send('/v1/webhook/generic/trg_doesnotexist000000', body, {
        secret: generic.secret,
        integrationId: generic.integration_id,
        eventId,
      });
      expect(unknown.json.code).toBe(10004);
      const retried = await send(path, body, { secret: generic.secret, integrationId: generic.integration_id, eventId });
      expect(retried.json.data).toMatchObject({ duplicate: false, tasks: [{ started: true }] });
      // Unsigned, the trigger's existence is not revealed; a channel integration does not sign generic calls.
      const gitB = (await api.call('GET', '/v1/integrations?page_size=100', { key: admin() })).json.data.items.find(
        (i: { channel: string }) => i.channel === 'git-b',
      );
      expect(
        (await send('/v1/webhook/generic/trg_doesnotexist000000', body, { secret: 'wrong', integrationId: generic.integration_id })).json
          .code,
      ).toBe(10002);
      expect((await send(path, body, { secret: 'whatever', integrationId: gitB.integration_id })).json.code).toBe(10002);
    });
  });

  describe('rate limit', () => {
    it('has a ceiling of its own per integration', async () => {
      const small = await startTestApi({ RATE_LIMIT_INBOUND_PER_MIN: '2' }, { rateLimitSyncMs: 0 });
      try {
        const make = async () =>
          (await small.call('POST', '/v1/integrations', { key: small.adminKey, body: { channel: 'git-b' } })).json.data;
        const one = await make();
        const body = fixture('git-b', 'push.json');
        // The calls below are counted in one window each (signed, then refused): all inside one minute.
        await startEarlyInRateWindow(30);
        const post = (integrationId: string) => {
          const ts = String(nowSeconds());
          return small.call('POST', `/v1/webhook/git-b?integration_id=${integrationId}`, {
            rawBody: body,
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'push',
              'x-combo-event-id': randomToken(10),
              'x-combo-timestamp': ts,
              'x-combo-signature': signPayload(one.secret, ts, body),
            },
          });
        };
        expect((await post(one.integration_id)).json.code).toBe(0);
        expect((await post(one.integration_id)).json.code).toBe(0);
        const over = await post(one.integration_id);
        expect(over.status).toBe(429);
        expect(over.json.code).toBe(10006);
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        // Another integration id has its own count (this one is unknown: refused, but not rate limited).
        expect((await post('int_someoneelse00000000')).json.code).toBe(10002);
        // X-Forwarded-For is not trusted by default: another claimed address is the same client.
        const fromClaimed = (claimed: string) =>
          small.call('POST', `/v1/webhook/git-b?integration_id=${one.integration_id}`, {
            rawBody: body,
            headers: {
              'content-type': 'application/json',
              'x-forwarded-for': claimed,
              'x-combo-event-id': randomToken(10),
              'x-combo-timestamp': String(nowSeconds()),
              'x-combo-signature': 'sha256=forged',
            },
          });
        expect((await fromClaimed('203.0.113.1')).status).toBe(401);
        expect((await fromClaimed('203.0.113.2')).status).toBe(401);
        expect((await fromClaimed('203.0.113.3')).status).toBe(429);
      } finally {
        await small.close();
      }
    }, 90_000); // up to 30 s of waiting for the start of a rate-limit window

    it('counts refused calls apart, per client address: a forged flood cannot block signed events', async () => {
      const small = await startTestApi({ RATE_LIMIT_INBOUND_PER_MIN: '3', TRUSTED_PROXY_HOPS: '1' }, { rateLimitSyncMs: 0 });
      const started: string[] = [];
      try {
        const create = async (channel: string) =>
          (await small.call('POST', '/v1/integrations', { key: small.adminKey, body: { channel } })).json.data;
        const gitB = await create('git-b');
        const generic = await create('generic');
        const agent = (await small.call('POST', '/v1/combo/agents', { key: small.adminKey, body: { name: 'a' } })).json.data.agent_id;
        const trigger = (
          await small.call('POST', '/v1/event-trigger', {
            key: small.adminKey,
            body: {
              name: 'g',
              trigger: { source: 'generic', match: { event: '*' }, action: { agent_id: agent, session_template: 'default' } },
            },
          })
        ).json.data;
        const paths = { integration: '/v1/webhook/git-b', trigger: `/v1/webhook/generic/${trigger.trigger_id}` };
        const post = async (key: keyof typeof paths, secret: string, from: string) => {
          const integration = key === 'integration' ? gitB : generic;
          const body = key === 'integration' ? fixture('git-b', 'push.json') : fixture('generic', 'build-finished.json');
          const ts = String(nowSeconds());
          const res = await small.call('POST', `${paths[key]}?integration_id=${integration.integration_id}`, {
            rawBody: body,
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'push',
              'x-forwarded-for': from,
              'x-combo-event-id': randomToken(10),
              'x-combo-timestamp': ts,
              'x-combo-signature': signPayload(secret, ts, body),
            },
          });
          for (const task of res.json?.data?.tasks ?? []) if (task.started) started.push(task.workflow_id);
          return res;
        };

        for (const key of ['integration', 'trigger'] as const) {
          // Each pass counts afresh (its own integration or trigger): its calls all fall inside one minute.
          await startEarlyInRateWindow(30);
          const secret = key === 'integration' ? gitB.secret : generic.secret;
          // A flood larger than the ceiling from one address: refused, then rate limited.
          const flood = [];
          for (let i = 0; i < 6; i++) flood.push((await post(key, 'forged-secret', '203.0.113.7')).status);
          expect({ key, flood }).toEqual({ key, flood: [401, 401, 401, 429, 429, 429] });
          // A correctly signed event from that very address is accepted: it counts against the signed ceiling.
          expect((await post(key, secret, '203.0.113.7')).json).toMatchObject({ code: 0, data: { duplicate: false } });
          // Another address has a refused-call ceiling of its own ...
          expect((await post(key, 'forged-secret', '198.51.100.9')).status).toBe(401);
          // ... which a client cannot claim by writing it first: only the address the proxy appended counts.
          expect((await post(key, 'forged-secret', '198.51.100.9, 203.0.113.7')).status).toBe(429);
          // Signed events have their own ceiling, from any address.
          expect((await post(key, secret, '198.51.100.10')).json.code).toBe(0);
          expect((await post(key, secret, '198.51.100.11')).json.code).toBe(0);
          expect((await post(key, secret, '198.51.100.12')).status).toBe(429);
        }
      } finally {
        await Promise.all(
          started.map((id) =>
            small.services.temporal.workflow
              .getHandle(id)
              .terminate('test over')
              .catch(() => undefined),
          ),
        );
        await small.close();
      }
    }, 120_000); // up to 30 s of waiting for the start of a rate-limit window, and two passes of calls
  });
});

import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { randomToken } from '../../common/ids';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startEarlyInRateWindow } from '../support/rate-window';
import { streamedAnswer, type WireChatRequest } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse, type SseEvent } from '../support/sse';
import { killProcess, spawnApiProcess, spawnWorkerProcess } from '../support/worker-process';

/**
 * Two built API processes and two built worker processes on one stack (one database, one task
 * queue of this file's own), checked together: rate limits across the APIs, a stream resumed
 * through the other API, cron ticks, webhook deliveries, and the loss of a worker or an API.
 */

/** Uploads per key and minute: the family the rate-limit test exhausts (the other tests upload nothing). */
const UPLOAD_CEILING = 6;
/** The non-zero sync interval of the second pair of APIs (RATE_LIMIT_SYNC_MS). */
const SYNC_MS = 1_000;
/** Bound of a wait for work that goes through the workers (a run, a delivery), on a machine where every core is busy. */
const SETTLED_MS = 120_000;

/**
 * A webhook consumer that can hold its answers (a gate): a held request is answered once the gate
 * opens. A delivery counts only when its 2xx answer went out on a connection still open (a sender
 * that died or gave up never got it).
 */
async function startGatedConsumer() {
  const delivered: Array<{ query: string; eventId: string; event: string; sessionId: string | undefined }> = [];
  const held: Array<() => void> = [];
  let closed = false;
  const answer = (req: IncomingMessage, res: ServerResponse, body: string) => {
    if (res.destroyed || req.socket.destroyed) return;
    res.once('finish', () => {
      const json = JSON.parse(body) as { event_id: string; event: string; data: { session_id?: string } };
      delivered.push({
        query: new URL(req.url ?? '/', 'http://x').search,
        eventId: json.event_id,
        event: json.event,
        sessionId: json.data.session_id,
      });
    });
    res.writeHead(200).end();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (closed) held.push(() => answer(req, res, body));
      else answer(req, res, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    delivered,
    /** Requests received and not answered yet. */
    held: () => held.length,
    hold() {
      closed = true;
    },
    release() {
      closed = false;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a stream until it ends or its connection breaks (the API died), keeping what arrived. */
async function readUntilCut(url: string, init: RequestInit, onEvent: (events: SseEvent[]) => void): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      events.push({ id: message.id, event: message.event ?? 'message', data: JSON.parse(message.data) });
      onEvent(events);
    },
  });
  try {
    const res = await fetch(url, init);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch {
    // The connection broke: what arrived before is what the client has.
  }
  return events;
}

describe('two API processes and two worker processes on one stack', () => {
  const model = new ScriptedUpstream();
  let consumer: Awaited<ReturnType<typeof startGatedConsumer>>;
  /** In-process: owns the database (made and dropped with it); the spawned processes share it. */
  let owner: TestApi;
  let apiA: { child: ChildProcess; url: string };
  let apiB: { child: ChildProcess; url: string };
  let apiC: { child: ChildProcess; url: string };
  let apiD: { child: ChildProcess; url: string };
  let workerA: ChildProcess;
  let workerB: ChildProcess;
  const spawned: ChildProcess[] = [];
  const cronJobs: string[] = [];
  let agentId: string;

  const call = async (
    base: string,
    method: string,
    path: string,
    { key, body, headers = {} }: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key ?? owner.adminKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json };
  };
  const newSession = async (base: string) =>
    (await call(base, 'POST', `/v1/combo/agents/${agentId}/sessions`, { body: { user_id: 'several' } })).json.data.session_id as string;
  const getRun = async (base: string, traceId: string) => (await call(base, 'GET', `/v1/combo/completions/${traceId}`)).json.data;
  const eventsOf = async (base: string, event: string) =>
    (await call(base, 'GET', `/v1/events?event=${event}&page_size=100`)).json.data.items as Array<{
      event_id: string;
      data: { session_id?: string };
    }>;
  const chatRequests = (marker: string) =>
    model.requests.filter(
      (r) => r.path.endsWith('/chat/completions') && JSON.stringify((r.body as WireChatRequest).messages.at(-1)).includes(marker),
    );
  /** Every delivery of a subscription, once none is pending (nothing more will be sent for them). */
  const settledDeliveries = async (subscriptionId: string, expected: number) => {
    type Delivery = { event_id: string; status: string; attempt_count: number; workflow_id: string };
    let last: Delivery[] = [];
    try {
      return await eventually(async () => {
        const { items } = (await call(apiA.url, 'GET', `/v1/webhook/subscriptions/${subscriptionId}/deliveries?page_size=100`)).json.data;
        last = items as Delivery[];
        return last.length >= expected && last.every((d) => d.status !== 'pending') ? last : undefined;
      }, SETTLED_MS);
    } catch (err) {
      // What did not settle, and where its workflow is.
      const pending = last.filter((d) => d.status === 'pending');
      const described = await Promise.all(
        pending.map(async (d) => {
          const info = await owner.services.temporal.workflow
            .getHandle(d.workflow_id)
            .describe()
            .then((w) => `${w.status.name} on ${w.taskQueue}`)
            .catch((e: unknown) => String(e));
          return `${d.workflow_id} (attempts ${d.attempt_count}): ${info}`;
        }),
      );
      throw new Error(`${last.length} of ${expected} deliveries recorded; pending: ${described.join('; ') || 'none'} (${String(err)})`);
    }
  };

  beforeAll(async () => {
    const modelUrl = await model.start();
    // The answer depends on the question only, whichever worker asks: `[slow]` questions take a few seconds to stream.
    model.reply = (req) => {
      const question = JSON.stringify((req.body as WireChatRequest).messages.at(-1)?.content ?? '');
      const slow = question.includes('[slow]');
      return {
        stream: streamedAnswer(`Counted: one two three four five six seven eight nine ten eleven twelve.`, { pieces: slow ? 12 : 4 }),
        chunkDelayMs: slow ? 500 : 50,
      };
    };
    consumer = await startGatedConsumer();
    owner = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      LLM_TIMEOUT_MS: '20000',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
      RATE_LIMIT_UPLOADS_PER_MIN: String(UPLOAD_CEILING),
      // A failed attempt (a held answer past the 2 s deadline) is retried at once, not after the contract's 30 s.
      WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS: '200,200,200,200',
    });
    const workerSettings = {
      // A dead worker's batch of first attempts is taken over by the other after this (the least allowed).
      WEBHOOK_BATCH_TAKEOVER_MS: '10000',
    };
    const api = async (syncMs: number) => {
      const started = await spawnApiProcess(owner.config, { RATE_LIMIT_SYNC_MS: String(syncMs) });
      spawned.push(started.child);
      return started;
    };
    const worker = async () => {
      const started = await spawnWorkerProcess(owner.config, workerSettings);
      spawned.push(started);
      return started;
    };
    // The second pair of APIs (a non-zero sync interval) serves the rate-limit test only, which ends them.
    // Every start is awaited, failed or not: each process that did start is in `spawned`, which afterAll ends.
    const starts = [api(0), api(0), api(SYNC_MS), api(SYNC_MS)] as const;
    const workers = [worker(), worker()] as const;
    await Promise.allSettled([...starts, ...workers]);
    [apiA, apiB, apiC, apiD] = await Promise.all(starts);
    [workerA, workerB] = await Promise.all(workers);
    agentId = (await call(apiA.url, 'POST', '/v1/combo/agents', { body: { name: 'Several' } })).json.data.agent_id;
  }, 240_000);

  afterAll(async () => {
    for (const cronId of cronJobs) await call(owner.url, 'DELETE', `/v1/cron/${cronId}`).catch(() => undefined);
    // Every process ends, whatever failed; then a process that logged a fault fails the file.
    const ended = await Promise.allSettled(spawned.map((child) => killProcess(child)));
    await consumer?.close();
    await model.stop();
    await owner?.close();
    const fault = ended.find((e) => e.status === 'rejected');
    if (fault) throw fault.reason;
  }, 60_000);

  it('counts a key exactly across the APIs at RATE_LIMIT_SYNC_MS 0, and within the documented bound at a non-zero interval', async () => {
    const newKey = async () => {
      const created = (await call(apiA.url, 'POST', '/v1/api-keys', { body: { name: `k-${randomToken(4)}` } })).json.data;
      return { key: created.api_key as string, keyId: created.key_id as string };
    };
    const upload = (base: string, key: string) => call(base, 'POST', '/v1/files', { key });
    // Every key below is counted within one window.
    await startEarlyInRateWindow(30);

    // Exact at 0, one request at a time, alternating: the ceiling passes, the next two are refused with the contract's code.
    const sequential = await newKey();
    const answers = [];
    for (let i = 0; i < UPLOAD_CEILING + 2; i++) answers.push(await upload(i % 2 ? apiB.url : apiA.url, sequential.key));
    expect(answers.slice(0, UPLOAD_CEILING).map((a) => a.status)).not.toContain(429);
    expect(answers.slice(UPLOAD_CEILING).map((a) => [a.status, a.json.code])).toEqual([
      [429, 10006],
      [429, 10006],
    ]);

    // Exact at 0 under contention too: many at once through both, never more than the ceiling.
    const burst = await newKey();
    const all = await Promise.all(Array.from({ length: 4 * UPLOAD_CEILING }, (_, i) => upload(i % 2 ? apiB.url : apiA.url, burst.key)));
    const admitted = all.filter((a) => a.status !== 429).length;
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(admitted).toBeLessThanOrEqual(UPLOAD_CEILING);

    // The second pair shares counts every SYNC_MS.
    const [c, d] = [apiC, apiD];
    try {
      // What every process has published for a key's uploads in the current window.
      const published = async (keyId: string) => {
        const docs = await owner.services.mongo.db
          .collection<{ count: number }>('rate_limits')
          .find({ bucket: { $regex: `^key:${keyId}\\|uploads\\|` } })
          .toArray();
        return docs.reduce((sum, doc) => sum + doc.count, 0);
      };

      // A process that stops receiving requests still publishes its counts; the other then counts them exactly.
      const idle = await newKey();
      for (let i = 0; i < 4; i++) expect((await upload(d.url, idle.key)).status).not.toBe(429);
      await eventually(async () => ((await published(idle.keyId)) === 4 ? true : undefined), 10 * SYNC_MS);
      const after = [];
      for (let i = 0; i < 3; i++) after.push((await upload(c.url, idle.key)).status);
      expect(after.map((s) => s === 429)).toEqual([false, false, true]);

      // Alternating as fast as they answer: at most the ceiling plus what the other process admitted
      // within 3 × SYNC_MS before the last admission (docs/configuration.md), and never more than 2 × the ceiling.
      const fast = await newKey();
      const sent: Array<{ via: 'c' | 'd'; at: number; admitted: boolean }> = [];
      for (let i = 0; i < 4 * UPLOAD_CEILING; i++) {
        const via = i % 2 ? 'd' : 'c';
        const res = await upload(via === 'c' ? c.url : d.url, fast.key);
        sent.push({ via, at: Date.now(), admitted: res.status !== 429 });
      }
      const admittedFast = sent.filter((s) => s.admitted);
      const last = admittedFast.at(-1)!;
      const otherWithin = admittedFast.filter((s) => s.via !== last.via && s.at >= last.at - 3 * SYNC_MS).length;
      expect(admittedFast.length).toBeGreaterThanOrEqual(UPLOAD_CEILING);
      expect(admittedFast.length).toBeLessThanOrEqual(UPLOAD_CEILING + otherWithin);
      expect(admittedFast.length).toBeLessThanOrEqual(2 * UPLOAD_CEILING);
      console.log(
        `rate limits at RATE_LIMIT_SYNC_MS ${SYNC_MS}, 2 APIs: ${admittedFast.length} admitted of a ceiling of ${UPLOAD_CEILING}`,
      );
    } finally {
      await Promise.all([killProcess(c.child), killProcess(d.child)]);
    }
  }, 240_000);

  it('resumes through one API a stream started through the other, losing and repeating no event', async () => {
    const sessionId = await newSession(apiA.url);
    const body = JSON.stringify({ session_id: sessionId, question: 'Count [slow]', stream: true });
    const headers = { authorization: `Bearer ${owner.adminKey}`, 'content-type': 'application/json' };
    const path = `/v1/combo/agents/${agentId}/completions`;
    const first = await readSse(`${apiA.url}${path}`, { method: 'POST', headers, body }, { stopAfter: 3 });
    expect(first.events).toHaveLength(3);
    const traceId = first.events[0]!.data.trace_id as string;
    const rest = await readSse(`${apiB.url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'last-event-id': first.events[2]!.id! },
      body,
    });
    const all = [...first.events, ...rest.events];
    expect(all.map((e) => e.id)).toEqual(all.map((_, i) => `${traceId}:${i}`));
    expect(all.at(-1)!.event).toBe('done');
    expect(all.filter((e) => e.event === 'done')).toHaveLength(1);
    expect((await eventsOf(apiB.url, 'session.finished')).filter((e) => e.data.session_id === sessionId)).toHaveLength(1);
  }, 120_000);

  it('fires a cron job once per tick with two workers', async () => {
    const job = (
      await call(apiA.url, 'POST', '/v1/cron', {
        body: { name: 'hourly', cron: '0 * * * *', agent_id: agentId, question: 'What happened this hour?', paused: true },
      })
    ).json.data;
    cronJobs.push(job.cron_id);
    // Three past ticks, each due once; paused, so no other tick comes during the test.
    const HOUR = 3_600_000;
    const hour = Math.floor(Date.now() / HOUR) * HOUR;
    const due = [3, 2, 1].map((h) => new Date(hour - h * HOUR).toISOString());
    const backfill = await call(apiB.url, 'POST', `/v1/cron/${job.cron_id}/backfill`, {
      body: { since: due[0], until: new Date(hour - HOUR / 2).toISOString() },
    });
    expect(backfill.json).toMatchObject({ code: 0, data: { runs: 3 } });
    const runs = await eventually(async () => {
      const recent = (await call(apiB.url, 'GET', `/v1/cron/${job.cron_id}`)).json.data.recent_runs as Array<{
        status: string;
        scheduled_at: string;
      }>;
      return recent.length >= 3 && recent.every((r) => r.status === 'completed') ? recent : undefined;
    }, SETTLED_MS);
    expect(runs.map((r) => r.scheduled_at).sort()).toEqual(due);
    // One agent task per tick: one session each, one recorded run each.
    const sessions = (await call(apiA.url, 'GET', `/v1/combo/agents/${agentId}/sessions?page_size=100`)).json.data.items as Array<{
      user_id: string;
    }>;
    expect(sessions.filter((s) => s.user_id === `cron:${job.cron_id}`)).toHaveLength(3);
    expect((await call(apiA.url, 'GET', '/v1/combo/completions?kind=cron&page_size=100')).json.data.total).toBe(3);
  }, 180_000);

  it('delivers each event once per subscription when nothing fails', async () => {
    const subscription = (
      await call(apiA.url, 'POST', '/v1/webhook/subscriptions', { body: { url: `${consumer.url}?once`, events: ['session.created'] } })
    ).json.data;
    try {
      const sessions: string[] = [];
      for (let i = 0; i < 20; i++) sessions.push(await newSession(i % 2 ? apiB.url : apiA.url));
      const ours = (d: { query: string; sessionId: string | undefined }) => d.query === '?once' && sessions.includes(d.sessionId!);
      await eventually(
        async () => (new Set(consumer.delivered.filter(ours).map((d) => d.sessionId)).size === sessions.length ? true : undefined),
        SETTLED_MS,
      );
      const deliveries = await settledDeliveries(subscription.subscription_id, sessions.length);
      const received = consumer.delivered.filter(ours);
      const eventIds = received.map((d) => d.eventId);
      expect(new Set(eventIds).size).toBe(sessions.length);
      expect(eventIds).toHaveLength(sessions.length);
      // The service recorded one delivery per event and subscription, each delivered.
      const forOurs = deliveries.filter((d) => eventIds.includes(d.event_id));
      expect(forOurs).toHaveLength(sessions.length);
      expect(forOurs.every((d) => d.status === 'delivered')).toBe(true);
    } finally {
      await call(apiA.url, 'DELETE', `/v1/webhook/subscriptions/${subscription.subscription_id}`);
    }
  }, 180_000);

  it('loses no run, event or delivery when one worker is killed under load, and repeats at most the attempts in flight', async () => {
    const subscription = (
      await call(apiA.url, 'POST', '/v1/webhook/subscriptions', {
        body: { url: `${consumer.url}?kill`, events: ['session.created', 'session.finished'] },
      })
    ).json.data;
    const ofKill = () => consumer.delivered.filter((d) => d.query === '?kill');

    // Runs in flight on the workers: each has asked the model, which takes seconds to answer.
    const RUNS = 4;
    const runSessions: string[] = [];
    for (let i = 0; i < RUNS; i++) runSessions.push(await newSession(i % 2 ? apiB.url : apiA.url));
    const traceIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const accepted = await call(i % 2 ? apiB.url : apiA.url, 'POST', `/v1/combo/agents/${agentId}/completions`, {
        body: { session_id: runSessions[i], question: `Run ${i} under load [slow]`, background: true },
      });
      expect(accepted.status).toBe(202);
      traceIds.push(accepted.json.data.trace_id);
    }
    await eventually(async () => (traceIds.every((_, i) => chatRequests(`Run ${i} under load`).length > 0) ? true : undefined), SETTLED_MS);
    // Every delivery so far recorded: the only attempts in flight at the kill are the ones held below.
    await settledDeliveries(subscription.subscription_id, RUNS);

    // Deliveries in flight: the consumer holds its answers while events are recorded, and one worker dies.
    consumer.hold();
    const SESSIONS = 12;
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push(await newSession(i % 2 ? apiB.url : apiA.url));
    await eventually(async () => (consumer.held() > 0 ? true : undefined), SETTLED_MS);
    const inFlightAtKill = consumer.held();
    await killProcess(workerA);
    consumer.release();

    // Every run ends through the surviving worker, completed, with its whole stream and one session.finished.
    for (const traceId of traceIds)
      await eventually(async () => ((await getRun(apiA.url, traceId)).status === 'completed' ? true : undefined), SETTLED_MS);
    for (const traceId of traceIds) {
      const stream = await readSse(`${apiB.url}/v1/combo/completions/${traceId}/events`, {
        headers: { authorization: `Bearer ${owner.adminKey}` },
      });
      expect(stream.events.map((e) => e.id)).toEqual(stream.events.map((_, i) => `${traceId}:${i}`));
      expect(stream.events.at(-1)).toMatchObject({ event: 'done', data: { stop_reason: 'answered' } });
    }
    const finished = await eventsOf(apiA.url, 'session.finished');
    for (const sessionId of runSessions) expect(finished.filter((e) => e.data.session_id === sessionId)).toHaveLength(1);
    const created = await eventsOf(apiA.url, 'session.created');
    for (const sessionId of [...runSessions, ...sessions]) expect(created.filter((e) => e.data.session_id === sessionId)).toHaveLength(1);

    // Every event of the subscription delivered at least once; repeats at most one per attempt in flight at the kill.
    const expected = [...created, ...finished].filter((e) => [...runSessions, ...sessions].includes(e.data.session_id!));
    expect(expected).toHaveLength(2 * RUNS + SESSIONS);
    const deliveries = await settledDeliveries(subscription.subscription_id, expected.length);
    expect(deliveries.filter((d) => d.status !== 'delivered')).toEqual([]);
    const deliveredIds = ofKill().map((d) => d.eventId);
    for (const event of expected) expect(deliveredIds).toContain(event.event_id);
    const repeats = deliveredIds.length - new Set(deliveredIds).size;
    console.log(
      `worker killed with ${inFlightAtKill} attempt(s) in flight: ${repeats} repeated delivery(ies) of ${expected.length} events`,
    );
    expect(repeats).toBeLessThanOrEqual(inFlightAtKill);
    expect(workerB.exitCode).toBeNull();
  }, 300_000);

  it('loses nothing a client can resume when the API serving its stream is killed', async () => {
    const sessionId = await newSession(apiA.url);
    const body = JSON.stringify({ session_id: sessionId, question: 'Count while the API dies [slow]', stream: true });
    const headers = { authorization: `Bearer ${owner.adminKey}`, 'content-type': 'application/json' };
    let killing: Promise<void> | undefined;
    // API A dies once two answer fragments have reached the client.
    const before = await readUntilCut(`${apiA.url}/v1/combo/agents/${agentId}/completions`, { method: 'POST', headers, body }, (events) => {
      if (!killing && events.filter((e) => e.event === 'message').length >= 2) killing = killProcess(apiA.child);
    });
    await killing;
    expect(before.length).toBeGreaterThan(0);
    expect(before.map((e) => e.event)).not.toContain('done');
    const traceId = before[0]!.data.trace_id as string;
    const rest = await readSse(`${apiB.url}/v1/combo/completions/${traceId}/events`, {
      headers: { authorization: `Bearer ${owner.adminKey}`, 'last-event-id': before.at(-1)!.id! },
    });
    const all = [...before, ...rest.events];
    expect(all.map((e) => e.id)).toEqual(all.map((_, i) => `${traceId}:${i}`));
    expect(all.at(-1)).toMatchObject({ event: 'done', data: { stop_reason: 'answered' } });
    expect(await getRun(apiB.url, traceId)).toMatchObject({ status: 'completed' });
  }, 120_000);
});

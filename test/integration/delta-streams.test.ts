import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { streamedAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse, type SseEvent } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const PIECES = ['Deltas ', 'keep ', 'a long ', 'answer ', 'linear ', 'on the ', 'wire.'];
const ANSWER = PIECES.join('');

/** The text a client following the stream's `message` events has after each of them (answer replaces, delta appends). */
const textAfter = (messages: SseEvent[], from = '') => {
  let text = from;
  return messages.map((m) => (text = (m.data as { answer?: string }).answer ?? text + (m.data as { delta: string }).delta));
};
const messagesOf = (events: SseEvent[]) => events.filter((e) => e.event === 'message');

/**
 * Runs store their answer's text as it grows in deltas; a stream sends `message` events as its
 * `stream_format` asks (whole answer so far, or only new text with the last message whole), resumes
 * in both, serves runs recorded with whole-answer messages, and shares one reader per run between
 * the process's listeners.
 */
describe('delta streams', () => {
  let api: TestApi;
  let worker: Worker;
  const model = new ScriptedUpstream();
  let agentId: string;
  /** Pause between the model's pieces: longer than the least time between two `message` events, so each piece is one. */
  let chunkDelayMs = 120;

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = () => ({ stream: streamedAnswer(ANSWER, { pieces: PIECES }), chunkDelayMs });
    api = await startTestApi({ LLM_BASE_URL: modelUrl, RATE_LIMIT_COMPLETIONS_PER_MIN: '10000', RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
    worker = await startTestWorker(api, { dispatcher: false });
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Delta' } })).json.data.agent_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  const headers = () => ({ authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' });
  const newSession = async () =>
    (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id as string;
  const ask = async (body: Record<string, unknown>, options: { stopAfter?: number } = {}) =>
    readSse(
      `${api.url}/v1/combo/agents/${agentId}/completions`,
      { method: 'POST', headers: headers(), body: JSON.stringify({ session_id: await newSession(), question: 'Why deltas?', ...body }) },
      options,
    );
  const follow = (traceId: string, query = '', lastEventId?: string, options: { stopAfter?: number } = {}) =>
    readSse(
      `${api.url}/v1/combo/completions/${traceId}/events${query}`,
      { headers: { ...headers(), ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } },
      options,
    );
  const traceOf = (events: SseEvent[]) => events[0]!.id!.split(':')[0]!;
  const storedMessages = async (traceId: string) =>
    api.services.mongo.db
      .collection<{ _id: string; seq: number; event: string; data: { answer?: string; delta?: string } }>('completion_events')
      .find({ trace_id: traceId, event: 'message' })
      .sort({ seq: 1 })
      .toArray();

  it('stores the answer in deltas and streams only new text in delta mode, the last message whole', async () => {
    const { status, events } = await ask({ stream: true, stream_format: 'delta' });
    expect(status).toBe(200);
    expect(events.at(-1)!.event).toBe('done');
    const messages = messagesOf(events);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    const last = messages.at(-1)!;
    // The last message before done: the whole answer (and the references), no delta.
    expect(events.at(-2)).toBe(last);
    expect(last.data).toEqual(expect.objectContaining({ answer: ANSWER, reference: [] }));
    expect(last.data.delta).toBeUndefined();
    // Every earlier one: only the new text.
    for (const m of messages.slice(0, -1)) {
      expect(m.data.answer).toBeUndefined();
      expect(typeof m.data.delta).toBe('string');
    }
    expect(
      messages
        .slice(0, -1)
        .map((m) => m.data.delta as string)
        .join(''),
    ).toBe(ANSWER);

    // Stored: the step's first text whole, then only what each message adds; the run's last message whole.
    const stored = await storedMessages(traceOf(events));
    const partial = stored.slice(0, -1);
    expect(partial[0]!.data.answer).toBeDefined();
    for (const doc of partial.slice(1)) expect(doc.data).toEqual({ delta: expect.any(String) });
    expect(partial.map((d) => d.data.answer ?? d.data.delta).join('')).toBe(ANSWER);
    expect(stored.at(-1)!.data.answer).toBe(ANSWER);
  });

  it('streams the whole answer so far by default, built from the stored deltas', async () => {
    const { events } = await ask({ stream: true });
    const messages = messagesOf(events);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    const texts = messages.map((m) => m.data.answer as string);
    for (const m of messages) expect(m.data.delta).toBeUndefined();
    texts.forEach((text, i) => expect(ANSWER.startsWith(text) && (i === 0 || text.length >= texts[i - 1]!.length)).toBe(true));
    expect(texts.at(-1)).toBe(ANSWER);
    expect((await storedMessages(traceOf(events))).some((d) => d.data.delta !== undefined)).toBe(true);
  });

  it('resumes by Last-Event-ID in both formats: the full answer so far by default, the deltas after it in delta mode', async () => {
    const { events } = await ask({ stream: true, stream_format: 'delta' });
    const traceId = traceOf(events);
    const messages = messagesOf(events);
    // Cut after the second message: the client has its text so far.
    const cutAt = events.indexOf(messages[1]!);
    const had = textAfter(messages.slice(0, 2)).at(-1)!;
    const lastEventId = events[cutAt]!.id!;

    const asDelta = await follow(traceId, '?stream_format=delta', lastEventId);
    expect(asDelta.events.map((e) => e.id)).toEqual(events.slice(cutAt + 1).map((e) => e.id));
    expect(textAfter(messagesOf(asDelta.events), had).at(-1)).toBe(ANSWER);
    expect(messagesOf(asDelta.events)[0]!.data.delta).toBe(messages[2]!.data.delta);

    const asAnswer = await follow(traceId, '', lastEventId);
    const resumed = messagesOf(asAnswer.events);
    // The first message after the cut shows the whole answer so far, not just the text after the cut.
    expect(resumed[0]!.data.answer).toBe(had + (messages[2]!.data.delta as string));
    expect(resumed.at(-1)!.data.answer).toBe(ANSWER);

    // The same through the POST, repeated with Last-Event-ID.
    const run = (await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey })).json.data;
    const viaPost = await readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { ...headers(), 'last-event-id': lastEventId },
      body: JSON.stringify({ session_id: run.session_id, question: 'Why deltas?', stream: true, stream_format: 'delta' }),
    });
    expect(viaPost.events.map((e) => e.data)).toEqual(asDelta.events.map((e) => e.data));
  });

  it('streams runs recorded with whole-answer messages in both formats', async () => {
    const { events } = await ask({ stream: true });
    const traceId = traceOf(events);
    // As a run recorded before deltas stored it: every message the whole text so far.
    const col = api.services.mongo.db.collection<{ _id: string; data: { answer?: string; delta?: string } }>('completion_events');
    let text = '';
    for (const doc of await storedMessages(traceId)) {
      text = doc.data.answer ?? text + doc.data.delta!;
      await col.updateOne({ _id: doc._id }, { $set: { 'data.answer': text }, $unset: { 'data.delta': '' } });
    }
    expect((await storedMessages(traceId)).every((d) => d.data.delta === undefined && d.data.answer !== undefined)).toBe(true);

    const asAnswer = await follow(traceId);
    expect(messagesOf(asAnswer.events).map((m) => m.data.answer)).toEqual(messagesOf(events).map((m) => m.data.answer));
    const asDelta = await follow(traceId, '?stream_format=delta');
    const deltaMessages = messagesOf(asDelta.events);
    expect(textAfter(deltaMessages)).toEqual(messagesOf(events).map((m) => m.data.answer));
    expect(deltaMessages.at(-1)!.data.answer).toBe(ANSWER);
    for (const m of deltaMessages.slice(1, -1)) expect(m.data.answer).toBeUndefined();
  });

  it('feeds every listener of a run from one reader, and a listener that leaves does not disturb the others', async () => {
    const LISTENERS = 20;
    chunkDelayMs = 150;
    /** Every read of the run's events by number, and those that found one; reads of heads naming the run. */
    const reads: number[] = [];
    const found: number[] = [];
    let headReads = 0;
    let traceId = '';
    const read = api.services.runEvents.read.bind(api.services.runEvents);
    const spy = jest.spyOn(api.services.runEvents, 'read').mockImplementation(async (trace, seq) => {
      const event = await read(trace, seq);
      if (trace === traceId) {
        reads.push(seq);
        if (event) found.push(seq);
      }
      return event;
    });
    const heads = api.services.runEvents.heads.bind(api.services.runEvents);
    const headsSpy = jest.spyOn(api.services.runEvents, 'heads').mockImplementation(async (traces) => {
      if (traces.includes(traceId)) headReads++;
      return heads(traces);
    });
    try {
      const started = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
        key: api.adminKey,
        body: { session_id: await newSession(), question: 'Why deltas?', background: true },
      });
      traceId = started.json.data.trace_id;
      const listeners = Array.from({ length: LISTENERS }, (_, i) => follow(traceId, i % 2 ? '?stream_format=delta' : ''));
      // The leaving client comes once the run's reader has started for a listener that stays: a
      // reader whose last listener left stops, and a later listener would start another.
      await eventually(async () => (headReads > 0 ? true : undefined));
      const leaving = follow(traceId, '?stream_format=delta', undefined, { stopAfter: 2 });
      const all = await Promise.all(listeners);
      expect((await leaving).events).toHaveLength(2);
      const ids = all[0]!.events.map((e) => e.id);
      expect(all[0]!.events.at(-1)!.event).toBe('done');
      for (const { events } of all) expect(events.map((e) => e.id)).toEqual(ids);
      // One reader: each event read at most once for all listeners (a reader per listener reads each at
      // least LISTENERS times); most come with the run's head, which one query a tick reads.
      const delivered = ids.map((id) => Number(id!.split(':')[1]));
      expect(new Set(found).size).toBe(found.length);
      expect(found.every((seq) => delivered.includes(seq))).toBe(true);
      expect(reads.length).toBeLessThan(delivered.length);
      expect(headReads).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
      headsSpy.mockRestore();
      chunkDelayMs = 120;
    }
  });
});

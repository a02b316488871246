import { startTestApi, type TestApi } from '../support/api';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

/** The wire format of a completion stream, as strict clients read it. */
describe('completion stream framing', () => {
  let api: TestApi;
  let worker: Worker;
  let agentId: string;

  beforeAll(async () => {
    api = await startTestApi({ RATE_LIMIT_COMPLETIONS_PER_MIN: '10000', RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
    worker = await startTestWorker(api, { dispatcher: false });
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Streamer' } })).json.data.agent_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  const finishedStream = async () => {
    const sessionId = (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data
      .session_id;
    const res = await fetch(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'What is there?', stream: true }),
    });
    return { sessionId, raw: await res.text() };
  };

  it('sends retry inside the first event, so every frame but comments carries data', async () => {
    const { raw } = await finishedStream();
    const frames = raw.split('\n\n').filter((f) => f.trim() !== '');
    const events = frames.filter((f) => !f.split('\n').every((line) => line.startsWith(':')));
    expect(events.length).toBeGreaterThanOrEqual(2);
    for (const frame of events) expect(frame.split('\n').some((line) => line.startsWith('data: '))).toBe(true);
    expect(events[0]!.split('\n')[0]).toBe('retry: 1000');
    expect(events.slice(1).some((f) => f.includes('retry:'))).toBe(false);
    expect(events.at(-1)).toContain('event: done');
  });

  it('resumed after its done, sends nothing more and closes', async () => {
    const { sessionId, raw } = await finishedStream();
    const doneId = /id: (\S+)\nevent: done/.exec(raw)![1]!;
    const traceId = doneId.split(':')[0]!;
    const headers = { authorization: `Bearer ${api.adminKey}`, 'last-event-id': doneId };
    const viaGet = await readSse(`${api.url}/v1/combo/completions/${traceId}/events`, { headers });
    expect(viaGet.status).toBe(200);
    expect(viaGet.events).toEqual([]);
    const viaPost = await readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'What is there?', stream: true }),
    });
    expect(viaPost.events).toEqual([]);
  });
});

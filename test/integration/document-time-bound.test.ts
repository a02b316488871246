import { startTestApi, type TestApi } from '../support/api';
import { settledDocument, uploadLicence } from '../support/documents';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

/**
 * A document whose embedding upstream never answers: at DOCUMENT_INGEST_TIMEOUT_MS its workflow's
 * own timer cancels the parse and records the document as failed with `timed_out`.
 */
describe('a document still parsing at its time bound', () => {
  const upstream = new ScriptedUpstream();
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;

  beforeAll(async () => {
    const baseUrl = await upstream.start();
    upstream.reply = () => ({ body: { data: [] }, delayMs: 600_000 });
    api = await startTestApi({
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_BASE_URL: baseUrl,
      EMBEDDING_MODEL: 'scripted-embedder',
      EMBEDDING_DIMENSION: '8',
      RERANK_PROVIDER: 'none',
      DOCUMENT_INGEST_TIMEOUT_MS: '4000',
      // The cancellation reaches the parse with a heartbeat, up to 30 s later: polls must not be rate limited.
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api, { dispatcher: false });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await upstream.stop();
  });

  it('ends failed with reason timed_out, its parse activity cancelled', async () => {
    const kb = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'slow upstream' } })).json.data;
    const docId = await uploadLicence(api, kb.kb_id);
    const doc = await settledDocument(api, docId);
    expect(doc.status).toBe('failed');
    expect(doc.error).toEqual({ reason: 'timed_out', message: expect.stringContaining('time bound (4000 ms)') });
    // The upstream was asked (the parse was waiting on it, not stuck before) ...
    expect(upstream.requests.length).toBeGreaterThan(0);

    // ... and the activity was cancelled, not left running beside the failed record.
    const handle = worker.client.workflow.getHandle(`document-ingest-${docId}`);
    expect(await handle.result()).toMatchObject({ status: 'failed', error: { reason: 'timed_out' } });
    const history = await handle.fetchHistory();
    expect((history.events ?? []).some((e) => e.activityTaskCanceledEventAttributes)).toBe(true);
    // The bound is a timer from the first task, with no patch marker or TemporalChangeVersion upsert to ask for it.
    expect(
      (history.events ?? []).filter((e) => e.markerRecordedEventAttributes || e.upsertWorkflowSearchAttributesEventAttributes),
    ).toEqual([]);
  });
});

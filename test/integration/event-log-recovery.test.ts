import { SYSTEM_TENANT, TenantId, TraceId } from '../../common/search-attributes';
import { newEvent } from '../../common/events';
import { maintenanceWorkflow } from '../../workflows/maintenance';
import { startTestApi, type TestApi } from '../support/api';
import { startTestWorker } from '../support/worker';

/**
 * A process that dies between an action and the copy of its event into the log leaves the event in
 * the document's outbox. The maintenance workflow, run by the real worker on the real Temporal
 * server, records it exactly once.
 */
describe('event log recovery', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;

  beforeAll(async () => {
    api = await startTestApi();
    worker = await startTestWorker(api, { dispatcher: false });
  });

  afterAll(async () => {
    await worker.stop();
    await api.close();
  });

  it('records an event stranded in an outbox, once, and leaves the outbox empty', async () => {
    const agent = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'a' } })).json.data;
    const session = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} })).json.data;
    // As if the API died right after archiving: status changed, event still in the outbox.
    const stranded = newEvent('session.archived', 'default', session.session_id, { session_id: session.session_id }, new Date());
    const sessions = api.services.mongo.db.collection('sessions');
    await sessions.updateOne({ _id: session.session_id }, {
      $set: { status: 'archived', archived_at: new Date() },
      $push: { outbox: stranded },
    } as never);

    const { client } = worker;
    const runTwice = async () => {
      for (let i = 0; i < 2; i++) {
        await client.workflow.execute(maintenanceWorkflow, {
          taskQueue: api.config.TEMPORAL_TASK_QUEUE,
          workflowId: `maintenance-test-${session.session_id}-${i}`,
          typedSearchAttributes: [
            { key: TenantId, value: SYSTEM_TENANT },
            { key: TraceId, value: session.session_id },
          ],
        });
      }
    };
    await runTwice();

    const events = await api.call('GET', '/v1/events?event=session.archived', { key: api.adminKey });
    const mine = events.json.data.items.filter((e: { data: { session_id: string } }) => e.data.session_id === session.session_id);
    expect(mine).toEqual([{ ...stranded, timestamp: stranded.timestamp }]);
    expect((await sessions.findOne({ _id: session.session_id }))?.outbox).toEqual([]);

    // Archiving through the API now changes nothing and records no second event.
    await api.call('POST', `/v1/combo/sessions/${session.session_id}/archive`, { key: api.adminKey });
    const after = await api.call('GET', '/v1/events?event=session.archived', { key: api.adminKey });
    expect(after.json.data.items.filter((e: { data: { session_id: string } }) => e.data.session_id === session.session_id)).toHaveLength(1);

    // The run is findable by its search attributes, as an operator would in the Temporal UI.
    const handle = client.workflow.getHandle(`maintenance-test-${session.session_id}-0`);
    const described = await handle.describe();
    expect(described.typedSearchAttributes.get(TenantId)).toBe(SYSTEM_TENANT);
    expect(described.typedSearchAttributes.get(TraceId)).toBe(session.session_id);
    expect(await handle.result()).toMatchObject({ eventsRecovered: expect.any(Number) });
  });
});

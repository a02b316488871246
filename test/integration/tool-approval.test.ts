import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { type Consumer, eventually, startConsumer } from '../support/consumer';
import { chatAnswer, chatRequests, chatToolCall, scriptedReplies, streamedAnswer, streamedToolCall } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const REFUND = { order: 'A-17', amount: 20 };

/**
 * Tool calls that need a person's approval, through HTTP on the real stack: a skill tool that
 * would move money (a local server records whether it was called) waits until someone approves,
 * rejects, or nobody does in time; decisions reach the run from any API process and survive a
 * worker restart.
 */
describe('human approval of tool calls', () => {
  let api: TestApi;
  let worker: Worker;
  let bank: Consumer;
  const model = new ScriptedUpstream();
  const scriptModel = scriptedReplies(model);
  let agentId: string;
  let skillName: string;
  let skillId: string;

  const call = (method: string, path: string, body?: unknown, target: TestApi = api) =>
    target.call(method, path, { key: api.adminKey, ...(body !== undefined ? { body } : {}) });
  const newSession = async (agent = agentId) =>
    (await call('POST', `/v1/combo/agents/${agent}/sessions`, {})).json.data.session_id as string;
  const getRun = async (traceId: string) => (await call('GET', `/v1/combo/completions/${traceId}`)).json.data;
  const decide = (traceId: string, approvalId: string, body: unknown, target: TestApi = api) =>
    call('POST', `/v1/combo/completions/${traceId}/approvals/${approvalId}`, body, target);
  const waiting = (traceId: string) =>
    eventually(async () => {
      const run = await getRun(traceId);
      return run.status === 'waiting_approval' ? run : undefined;
    });
  const ended = (traceId: string) =>
    eventually(async () => {
      const run = await getRun(traceId);
      return ['completed', 'failed', 'canceled'].includes(run.status) ? run : undefined;
    });
  const refundCall = () => ({ name: `${skillName}__refund`, args: REFUND });
  const background = async (sessionId: string, question = 'refund order A-17') => {
    const accepted = await call('POST', `/v1/combo/agents/${agentId}/completions`, { session_id: sessionId, question, background: true });
    expect(accepted.status).toBe(202);
    return accepted.json.data.trace_id as string;
  };
  const toolMessage = (requestIndex: number) =>
    chatRequests(model)[requestIndex]!.messages.find((m: { role: string }) => m.role === 'tool') as { content: string } | undefined;

  beforeAll(async () => {
    bank = await startConsumer(() => ({ status: 200 }));
    const modelUrl = await model.start();
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
      // The one JSON call that waits for approval holds this long: long enough for its run to reach
      // the approval on a loaded machine, so the 202 it gets says waiting_approval.
      COMPLETION_REPLY_WAIT_MS: '15000',
    });
    worker = await startTestWorker(api);
    const skill = await call('POST', '/v1/skills/install', {
      manifest: {
        name: `bank${Date.now() % 100_000}`,
        version: '1.0.0',
        tools: [
          {
            name: 'refund',
            description: 'Refunds an order',
            parameters: { type: 'object', properties: { order: { type: 'string' }, amount: { type: 'number' } } },
            http: { method: 'POST', url: bank.url },
          },
        ],
      },
    });
    expect(skill.json.code).toBe(0);
    skillName = skill.json.data.name;
    skillId = skill.json.data.skill_id;
    const agent = await call('POST', '/v1/combo/agents', {
      name: 'Refunder',
      skills: [skill.json.data.skill_id],
      tools: ['current_time'],
      approval: { tools: [`${skillName}__refund`], timeout_s: 60 },
    });
    expect(agent.json.data.approval).toEqual({ tools: [`${skillName}__refund`], timeout_s: 60, separate_duties: false });
    agentId = agent.json.data.agent_id;
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
    await bank?.close();
  });

  it('holds the call until approved on another API process, then runs it; the stream and subscribers see it', async () => {
    const sessionId = await newSession();
    scriptModel({ stream: streamedToolCall([refundCall()]) }, { stream: streamedAnswer('Refunded order A-17.') });
    const streaming = readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'refund order A-17', stream: true }),
    });
    const traceId = await eventually(async () => {
      const runs = (await call('GET', `/v1/combo/sessions/${sessionId}/completions`)).json.data.items;
      return runs[0]?.trace_id as string | undefined;
    });
    const held = await waiting(traceId);
    expect(held.approvals).toEqual([
      expect.objectContaining({
        approval_id: expect.stringMatching(/^apr_/),
        tool: `${skillName}__refund`,
        arguments: REFUND,
        step: 1,
        status: 'pending',
        decided_by: null,
        decided_at: null,
      }),
    ]);
    const approval = held.approvals[0];
    const waitS = (Date.parse(approval.expires_at) - Date.parse(approval.requested_at)) / 1000;
    expect(waitS).toBe(60);
    expect(bank.received).toHaveLength(0);
    const waitingRuns = (await call('GET', '/v1/combo/completions?status=waiting_approval')).json.data.items;
    expect(waitingRuns.map((r: { trace_id: string }) => r.trace_id)).toContain(traceId);

    // Subscribers hear of it with what the approver must see.
    const announced = await eventually(async () => {
      const res = await call('GET', '/v1/events?event=run.approval_required');
      return res.json.data.items.find((e: { data: { trace_id: string } }) => e.data.trace_id === traceId);
    });
    expect(announced.data).toMatchObject({
      approval_id: approval.approval_id,
      session_id: sessionId,
      agent_id: agentId,
      tool: `${skillName}__refund`,
      arguments: REFUND,
      expires_at: approval.expires_at,
    });

    // A second API process on the same database takes the decision.
    const otherApi = await startTestApi({
      MONGODB_DB: api.config.MONGODB_DB,
      TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE,
      BOOTSTRAP_API_KEY: api.adminKey,
    });
    try {
      const approved = await decide(traceId, approval.approval_id, { decision: 'approve', comment: 'checked the order' }, otherApi);
      expect(approved.status).toBe(200);
      expect(approved.json.data).toMatchObject({
        trace_id: traceId,
        applied: true,
        approval: {
          approval_id: approval.approval_id,
          status: 'approved',
          comment: 'checked the order',
          decided_by: expect.stringMatching(/^api_key:/),
        },
      });
    } finally {
      await otherApi.close({ keepDatabase: true });
    }

    const stream = await streaming;
    const names = stream.events.map((e) => e.event);
    const order = ['approval_required', 'approval_decided', 'tool_call', 'tool_result'].map((name) => names.indexOf(name));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(names.at(-1)).toBe('done');
    expect(stream.events.find((e) => e.event === 'approval_required')!.data).toMatchObject({
      approval_id: approval.approval_id,
      tool: `${skillName}__refund`,
      args: REFUND,
    });
    expect(stream.events.find((e) => e.event === 'approval_decided')!.data).toEqual({
      approval_id: approval.approval_id,
      tool: `${skillName}__refund`,
      status: 'approved',
      comment: 'checked the order',
      timestamp: expect.any(String),
    });
    expect(stream.events.at(-1)!.data).toMatchObject({ stop_reason: 'answered' });
    expect(bank.received.map((r) => r.json)).toEqual([REFUND]);
    // Subscribers hear of the decision too, with who took it.
    const decided = await eventually(async () => {
      const res = await call('GET', '/v1/events?event=run.approval_decided');
      return res.json.data.items.find((e: { data: { trace_id: string } }) => e.data.trace_id === traceId);
    });
    expect(decided.data).toEqual({
      trace_id: traceId,
      session_id: sessionId,
      agent_id: agentId,
      approval_id: approval.approval_id,
      tool: `${skillName}__refund`,
      status: 'approved',
      comment: 'checked the order',
      decided_by: expect.stringMatching(/^api_key:/),
      decided_at: expect.any(String),
    });

    // The same decision again changes nothing; the opposite one is refused.
    const repeated = await decide(traceId, approval.approval_id, { decision: 'approve' });
    expect(repeated.json.data).toMatchObject({ applied: false, approval: { status: 'approved' } });
    const contrary = await decide(traceId, approval.approval_id, { decision: 'reject' });
    expect(contrary.json).toMatchObject({ code: 10005, data: { approval_id: approval.approval_id, status: 'approved' } });
    expect(await getRun(traceId)).toMatchObject({
      status: 'completed',
      answer: 'Refunded order A-17.',
      approvals: [{ status: 'approved' }],
    });
  });

  it('answers a waiting JSON call 202 waiting_approval; a rejection reaches the model with its comment and the tool never runs', async () => {
    bank.received.length = 0;
    const sessionId = await newSession();
    scriptModel({ body: chatToolCall([refundCall()]) }, { body: chatAnswer('I could not refund it.') });
    const reply = await call('POST', `/v1/combo/agents/${agentId}/completions`, { session_id: sessionId, question: 'refund order A-17' });
    expect(reply.status).toBe(202);
    expect(reply.json.data).toMatchObject({ status: 'waiting_approval', session_id: sessionId });
    const traceId = reply.json.data.trace_id;
    const approvalId = (await waiting(traceId)).approvals[0].approval_id;

    const unknown = await decide(traceId, 'apr_0000000000000000', { decision: 'approve' });
    expect(unknown.json.code).toBe(10004);
    const malformed = await decide(traceId, approvalId, { decision: 'maybe' });
    expect(malformed.json).toMatchObject({ code: 10001, data: { field: 'body.decision' } });

    const rejected = await decide(traceId, approvalId, { decision: 'reject', comment: 'wrong order number' });
    expect(rejected.json.data).toMatchObject({ applied: true, approval: { status: 'rejected', comment: 'wrong order number' } });
    const run = await ended(traceId);
    expect(run).toMatchObject({ status: 'completed', answer: 'I could not refund it.' });
    expect(JSON.parse(toolMessage(1)!.content)).toEqual({
      error: 'the tool did not run: a person rejected the call',
      comment: 'wrong order number',
    });
    expect(bank.received).toHaveLength(0);
  });

  it('counts an approval nobody gives in time as rejected, and refuses a decision after it', async () => {
    bank.received.length = 0;
    const quick = await call('POST', '/v1/combo/agents', {
      name: 'Quick refunder',
      skills: (await call('GET', `/v1/combo/agents/${agentId}`)).json.data.skills,
      approval: { tools: [`${skillName}__refund`], timeout_s: 2 },
    });
    const quickAgent = quick.json.data.agent_id;
    const sessionId = await newSession(quickAgent);
    scriptModel({ stream: streamedToolCall([refundCall()]) }, { stream: streamedAnswer('Nobody approved the refund.') });
    const accepted = await call('POST', `/v1/combo/agents/${quickAgent}/completions`, {
      session_id: sessionId,
      question: 'refund',
      background: true,
    });
    const traceId = accepted.json.data.trace_id;
    const run = await ended(traceId);
    expect(run).toMatchObject({
      status: 'completed',
      answer: 'Nobody approved the refund.',
      approvals: [{ status: 'timed_out', decided_by: null }],
    });
    expect(JSON.parse(toolMessage(1)!.content)).toEqual({ error: 'the tool did not run: nobody approved the call within 2 s' });
    const stream = await readSse(`${api.url}/v1/combo/completions/${traceId}/events`, {
      headers: { authorization: `Bearer ${api.adminKey}` },
    });
    expect(stream.events.find((e) => e.event === 'approval_decided')!.data).toMatchObject({ status: 'timed_out', comment: null });
    const timedOut = await eventually(async () => {
      const res = await call('GET', '/v1/events?event=run.approval_decided');
      return res.json.data.items.find((e: { data: { trace_id: string } }) => e.data.trace_id === traceId);
    });
    expect(timedOut.data).toMatchObject({ status: 'timed_out', decided_by: null, comment: null, agent_id: quickAgent });
    const late = await decide(traceId, run.approvals[0].approval_id, { decision: 'approve' });
    expect(late.json).toMatchObject({ code: 10005, data: { status: 'timed_out' } });
    expect(bank.received).toHaveLength(0);
  });

  it('loses no decision when the worker restarts: one sent while no worker runs applies when one comes back', async () => {
    bank.received.length = 0;
    const sessionId = await newSession();
    scriptModel({ stream: streamedToolCall([refundCall()]) }, { stream: streamedAnswer('Refunded after the restart.') });
    const traceId = await background(sessionId);
    const waitingRun = await waiting(traceId);
    const approvalId = waitingRun.approvals[0].approval_id;
    await worker.stop();
    const decision = decide(traceId, approvalId, { decision: 'approve' });
    // The server holds the decision once it has scheduled the workflow task that will take it.
    const runWorkflow = api.services.temporal.workflow.getHandle(waitingRun.workflow_id);
    await eventually(async () => (await runWorkflow.describe()).raw.pendingWorkflowTask ?? undefined);
    worker = await startTestWorker(api);
    const approved = await decision;
    expect(approved.json.data).toMatchObject({ applied: true, approval: { status: 'approved' } });
    expect(await ended(traceId)).toMatchObject({ status: 'completed', answer: 'Refunded after the restart.' });
    expect(bank.received.map((r) => r.json)).toEqual([REFUND]);
  });

  it('cancels a run that waits for approval: the approval can no longer be decided', async () => {
    bank.received.length = 0;
    const sessionId = await newSession();
    scriptModel({ stream: streamedToolCall([refundCall()]) });
    const traceId = await background(sessionId);
    const approvalId = (await waiting(traceId)).approvals[0].approval_id;
    const canceled = await call('POST', `/v1/combo/completions/${traceId}/cancel`);
    expect(canceled.json.data).toMatchObject({ status: 'canceled', stop_reason: 'canceled', approvals: [{ status: 'canceled' }] });
    const late = await decide(traceId, approvalId, { decision: 'approve' });
    expect(late.json).toMatchObject({ code: 10005, data: { status: 'canceled' } });
    expect(bank.received).toHaveLength(0);
  });

  it('holds two calls of one step until both are decided; simultaneous decisions from two processes agree', async () => {
    bank.received.length = 0;
    const sessionId = await newSession();
    const second = { order: 'B-2', amount: 5 };
    scriptModel(
      { stream: streamedToolCall([refundCall(), { name: `${skillName}__refund`, args: second }]) },
      { stream: streamedAnswer('One refunded.') },
    );
    const traceId = await background(sessionId);
    const held = await eventually(async () => {
      const run = await getRun(traceId);
      return run.status === 'waiting_approval' && run.approvals.length === 2 ? run : undefined;
    });
    const [first, other] = held.approvals.map((a: { approval_id: string }) => a.approval_id) as [string, string];
    const otherApi = await startTestApi({
      MONGODB_DB: api.config.MONGODB_DB,
      TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE,
      BOOTSTRAP_API_KEY: api.adminKey,
    });
    try {
      // The same decision by two people at once: one applies it, the other learns it was already made.
      const ann = await consoleToken({ tenant_id: 'default', sub: 'ann', roles: ['admin'] });
      const both = await Promise.all([
        decide(traceId, first, { decision: 'approve' }),
        otherApi.call('POST', `/v1/combo/completions/${traceId}/approvals/${first}`, { key: ann, body: { decision: 'approve' } }),
      ]);
      expect(both.map((r) => r.json.data.applied).sort()).toEqual([false, true]);
      expect(both.every((r) => r.json.data.approval.status === 'approved')).toBe(true);
      // The other call still waits, and so does the run.
      expect(await getRun(traceId)).toMatchObject({
        status: 'waiting_approval',
        approvals: [{ status: 'approved' }, { status: 'pending' }],
      });

      // Contrary decisions at once: exactly one wins, the other is 10005 naming the outcome.
      const contrary = await Promise.all([
        decide(traceId, other, { decision: 'approve' }),
        decide(traceId, other, { decision: 'reject' }, otherApi),
      ]);
      const won = contrary.find((r) => r.status === 200)!;
      const lost = contrary.find((r) => r.status !== 200)!;
      expect(won.json.data.applied).toBe(true);
      expect(lost.json).toMatchObject({ code: 10005, data: { approval_id: other, status: won.json.data.approval.status } });

      const run = await ended(traceId);
      expect(run.status).toBe('completed');
      const expected = won.json.data.approval.status === 'approved' ? [REFUND, second] : [REFUND];
      expect(bank.received.map((r) => r.json).sort((a, b) => a.order.localeCompare(b.order))).toEqual(expected);
    } finally {
      await otherApi.close({ keepDatabase: true });
    }
    // The stream's numbering has no gap and no repeat.
    const stream = await readSse(`${api.url}/v1/combo/completions/${traceId}/events`, {
      headers: { authorization: `Bearer ${api.adminKey}` },
    });
    expect(stream.events.map((e) => e.id)).toEqual(stream.events.map((_, i) => `${traceId}:${i}`));
    expect(stream.events.filter((e) => e.event === 'approval_required')).toHaveLength(2);
    expect(stream.events.filter((e) => e.event === 'approval_decided')).toHaveLength(2);
  });

  it("keeps another tenant's runs out of reach", async () => {
    const sessionId = await newSession();
    scriptModel({ stream: streamedToolCall([refundCall()]) }, { stream: streamedAnswer('ok') });
    const traceId = await background(sessionId);
    const approvalId = (await waiting(traceId)).approvals[0].approval_id;
    const stranger = await consoleToken({ tenant_id: 'other-tenant', sub: 'eve', roles: ['admin'] });
    const refused = await api.call('POST', `/v1/combo/completions/${traceId}/approvals/${approvalId}`, {
      key: stranger,
      body: { decision: 'approve' },
    });
    expect(refused.json.code).toBe(10004);
    await decide(traceId, approvalId, { decision: 'reject' });
    expect(await ended(traceId)).toMatchObject({ status: 'completed', approvals: [{ status: 'rejected' }] });
  });

  it('under separate duties, the person who asked for the run cannot decide it, with any key; another person can', async () => {
    bank.received.length = 0;
    const strict = await call('POST', '/v1/combo/agents', {
      name: 'Four eyes',
      skills: [skillId],
      approval: { tools: [`${skillName}__refund`], timeout_s: 60, separate_duties: true },
    });
    expect(strict.json.data.approval).toMatchObject({ separate_duties: true });
    const sessionId = await newSession(strict.json.data.agent_id);
    scriptModel({ body: chatToolCall([refundCall()]) }, { body: chatAnswer('Refunded.') });
    const accepted = await call('POST', `/v1/combo/agents/${strict.json.data.agent_id}/completions`, {
      session_id: sessionId,
      question: 'refund order A-17',
      background: true,
    });
    const traceId = accepted.json.data.trace_id as string;
    const run = await waiting(traceId);
    // The bootstrap key owns itself: its id is `key_` and the key's first part.
    expect(run.requested_by).toBe(`key_${api.adminKey.split('_')[1]}`);
    const approvalId = run.approvals[0].approval_id as string;

    // The requester is refused, admin or not, with this key or another of theirs.
    const own = await decide(traceId, approvalId, { decision: 'approve' });
    expect(own.status).toBe(403);
    expect(own.json).toMatchObject({ code: 10003, data: { approval_id: approvalId, requested_by: run.requested_by } });
    expect(own.json.message).toContain(`may not decide its tool calls`);
    const secondKey = (await call('POST', '/v1/api-keys', { name: 'my second key', role: 'admin' })).json.data.api_key as string;
    const viaSecond = await api.call('POST', `/v1/combo/completions/${traceId}/approvals/${approvalId}`, {
      key: secondKey,
      body: { decision: 'approve' },
    });
    expect(viaSecond.json.code).toBe(10003);
    expect((await getRun(traceId)).approvals[0].status).toBe('pending');

    // Another person (a member's key of their own) decides.
    const colleague = (await call('POST', '/v1/api-keys', { name: 'colleague', role: 'member', owner_id: 'colleague@example.com' })).json
      .data.api_key as string;
    const approved = await api.call('POST', `/v1/combo/completions/${traceId}/approvals/${approvalId}`, {
      key: colleague,
      body: { decision: 'approve' },
    });
    expect(approved.json.data).toMatchObject({ applied: true, approval: { status: 'approved' } });
    expect(await ended(traceId)).toMatchObject({ status: 'completed', requested_by: run.requested_by });
    expect(bank.received).toHaveLength(1);

    // A run no person asked for (a member's cron job, run now): the member may not decide it, an admin may.
    const member = { key: colleague };
    const job = await api.call('POST', '/v1/cron', {
      ...member,
      body: { name: 'refunds', cron: '0 0 1 1 *', paused: true, agent_id: strict.json.data.agent_id, question: 'refund order A-17' },
    });
    expect(job.json.code).toBe(0);
    scriptModel({ body: chatToolCall([refundCall()]) }, { body: chatAnswer('Refunded.') });
    expect((await api.call('POST', `/v1/cron/${job.json.data.cron_id}/trigger`, member)).json.code).toBe(0);
    const cronRun = await eventually(async () => {
      const runs = (await call('GET', `/v1/combo/agents/${strict.json.data.agent_id}/completions?status=waiting_approval`)).json.data.items;
      return runs.find((r: { kind: string }) => r.kind === 'cron');
    }, 60_000);
    expect(cronRun.requested_by).toBeNull();
    const cronApproval = cronRun.approvals[0].approval_id as string;
    const byMember = await api.call('POST', `/v1/combo/completions/${cronRun.trace_id}/approvals/${cronApproval}`, {
      ...member,
      body: { decision: 'approve' },
    });
    expect(byMember.json).toMatchObject({ code: 10003, data: { requested_by: null } });
    expect(byMember.json.message).toContain('only an admin');
    expect((await decide(cronRun.trace_id, cronApproval, { decision: 'approve' })).json.data).toMatchObject({ applied: true });
    expect(await ended(cronRun.trace_id)).toMatchObject({ status: 'completed', kind: 'cron' });
    await api.call('DELETE', `/v1/cron/${job.json.data.cron_id}`, member);
  }, 120_000);

  it('checks the approval setting of an agent', async () => {
    const bad = async (approval: unknown, field: string) => {
      const res = await call('POST', '/v1/combo/agents', { name: 'x', approval });
      expect(res.json).toMatchObject({ code: 10001, data: { field } });
    };
    await bad({ tools: ['rm_rf'] }, 'body.approval.tools.0');
    await bad({ tools: ['current_time', `${skillName}__refnud`] }, 'body.approval.tools.1');
    await bad({ tools: ['nosuchskill__refund'] }, 'body.approval.tools.0');
    await bad({ tools: [] }, 'body.approval.tools');
    await bad({ tools: ['current_time'], timeout_s: 0 }, 'body.approval.timeout_s');
    // Half of the run's time bound (COMPLETION_RUN_TIMEOUT_MS, 600 s by default) at most.
    await bad({ tools: ['current_time'], timeout_s: 301 }, 'body.approval.timeout_s');
    const made = await call('POST', '/v1/combo/agents', { name: 'careful', approval: { tools: ['current_time'] } });
    expect(made.json.data.approval).toEqual({ tools: ['current_time'], timeout_s: 120, separate_duties: false });
    await bad({ tools: ['current_time'], separate_duties: 'yes' }, 'body.approval.separate_duties');
    const cleared = await call('PUT', `/v1/combo/agents/${made.json.data.agent_id}`, { approval: null });
    expect(cleared.json.data.approval).toBeNull();
    const plain = await call('POST', '/v1/combo/agents', { name: 'plain' });
    expect(plain.json.data.approval).toBeNull();
  });
});

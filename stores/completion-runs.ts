import type { Db, Filter } from 'mongodb';
import { notFound } from '../common/errors';
import { storableText } from '../common/storable-text';
import { temporalUiRunLink } from '../common/temporal-ui';
import type {
  CompletionRun,
  Cost,
  Reference,
  RunKind,
  RunListQuery,
  RunStatus,
  StopReason,
  ToolApproval,
} from '../common/schemas/completions';
import { isDuplicateKey } from './mongo';
import { dateRange, findPage, type Page } from './pagination';

interface RunDoc {
  _id: string;
  tenant_id: string;
  agent_id: string;
  session_id: string;
  /** Absent on runs recorded before kinds existed: those were API completions or agent tasks (told by their session). */
  kind?: RunKind;
  route: string;
  /** Absent on runs recorded before questions were kept. */
  question?: string;
  stream: boolean;
  status: RunStatus;
  workflow_id?: string;
  run_id?: string | null;
  answer: string | null;
  /** What a cancelled model call had streamed: the partial answer its run records. */
  partial_answer?: string;
  reference: Reference[];
  cost: Cost | null;
  model: string | null;
  offline: boolean;
  stop_reason: StopReason | null;
  artifacts: Array<Record<string, unknown>>;
  error: { code: number; message: string } | null;
  created_at: Date;
  started_at?: Date | null;
  finished_at: Date | null;
  /** Tool calls that waited for a person, by approval id (ids are `apr_<hex>`: safe as field names). */
  approvals?: Record<string, ApprovalDoc>;
  /** The person who asked for it (an API run); absent on agent tasks and runs recorded before it was kept. */
  requested_by?: string | null;
  /** The agent's `approval.separate_duties` when the run started: its requester may not decide its approvals. */
  separate_duties?: boolean;
  /** What an API run was asked, as a hash (agent and body but `stream` and `background`): a repeat of its Idempotency-Key must match it. */
  request_hash?: string;
}

interface ApprovalDoc {
  tool: string;
  arguments: Record<string, unknown>;
  step: number;
  status: Exclude<ToolApproval['status'], 'canceled'>;
  comment: string | null;
  decided_by: string | null;
  requested_at: Date;
  expires_at: Date;
  decided_at: Date | null;
}

export interface ApprovalRequest {
  approvalId: string;
  tool: string;
  arguments: Record<string, unknown>;
  step: number;
  requestedAt: Date;
  expiresAt: Date;
}

export interface ApprovalVerdict {
  status: 'approved' | 'rejected' | 'timed_out';
  comment: string | null;
  decidedBy: string | null;
  decidedAt: Date;
}

/** A run keeps this much of its question (the API takes no longer one; a template may build one). */
const MAX_RECORDED_QUESTION = 32_000;

export interface NewRun {
  traceId: string;
  tenantId: string;
  agentId: string;
  sessionId: string;
  kind: RunKind;
  workflowId: string;
  route: string;
  question: string;
  stream: boolean;
  offline: boolean;
  /** The person who asked for it (the caller's owner id); none for agent tasks. */
  requestedBy?: string;
  /** The agent's `approval.separate_duties` at the start. */
  separateDuties?: boolean;
  /** What an API run was asked (see RunDoc.request_hash); none for agent tasks. */
  requestHash?: string;
}

export interface RunResult {
  answer: string;
  reference: Reference[];
  cost: Cost;
  model: string | null;
  stopReason: StopReason;
  artifacts: Array<Record<string, unknown>>;
}

/** Statuses a run no longer leaves. */
export const ENDED_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'canceled'];

/** A pending approval of a run that has ended (cancelled, failed) can no longer be decided. */
const presentApprovals = (d: RunDoc): ToolApproval[] =>
  Object.entries(d.approvals ?? {})
    .map(([approvalId, a]) => ({
      approval_id: approvalId,
      tool: a.tool,
      arguments: a.arguments,
      step: a.step,
      status: a.status === 'pending' && ENDED_STATUSES.includes(d.status) ? ('canceled' as const) : a.status,
      comment: a.comment,
      decided_by: a.decided_by,
      requested_at: a.requested_at.toISOString(),
      expires_at: a.expires_at.toISOString(),
      decided_at: a.decided_at?.toISOString() ?? null,
    }))
    .sort((a, b) => a.requested_at.localeCompare(b.requested_at) || a.approval_id.localeCompare(b.approval_id));

export interface CompletionRunStoreOptions {
  /** TEMPORAL_UI_URL and the namespace: runs then link to their workflows there. */
  temporalUi?: { url: string; namespace: string };
}

const present = (d: RunDoc, options: CompletionRunStoreOptions): CompletionRun => ({
  trace_id: d._id,
  kind: d.kind ?? 'chat',
  agent_id: d.agent_id,
  session_id: d.session_id,
  route: d.route,
  question: d.question ?? null,
  status: d.status,
  workflow_id: d.workflow_id ?? `completion-${d.session_id}`,
  run_id: d.run_id ?? null,
  answer: d.answer,
  reference: d.reference,
  cost: d.cost,
  model: d.model,
  offline: d.offline,
  stop_reason: d.stop_reason,
  artifacts: d.artifacts,
  error: d.error,
  created_at: d.created_at.toISOString(),
  started_at: (d.started_at ?? (d.status === 'queued' ? null : d.created_at))?.toISOString() ?? null,
  finished_at: d.finished_at?.toISOString() ?? null,
  approvals: presentApprovals(d),
  requested_by: d.requested_by ?? null,
  temporal_ui_url: options.temporalUi ? temporalUiRunLink(options.temporalUi.url, options.temporalUi.namespace, d._id) : null,
});

/**
 * One record per completion run (`_id` = trace id): its state and result, readable after the reply.
 * The workflow's own end decides: a failure overrides a completion whose recording failed midway,
 * and a cancel is written only over a run that has not ended (a cancel racing the answer loses).
 */
export function createCompletionRunStore(db: Db, options: CompletionRunStoreOptions = {}) {
  const presentRun = (d: RunDoc) => present(d, options);
  const runs = db.collection<RunDoc>('completion_runs');
  const notEnded = { $nin: [...ENDED_STATUSES] };

  async function start(run: NewRun): Promise<void> {
    const now = new Date();
    await runs.insertOne({
      _id: run.traceId,
      tenant_id: run.tenantId,
      agent_id: run.agentId,
      session_id: run.sessionId,
      kind: run.kind,
      route: run.route,
      // A record of what was asked: text that came past the API's checks (a template's) is made storable, not refused.
      question: storableText(run.question.slice(0, MAX_RECORDED_QUESTION)),
      stream: run.stream,
      status: 'running',
      workflow_id: run.workflowId,
      run_id: null,
      answer: null,
      reference: [],
      cost: null,
      model: null,
      offline: run.offline,
      stop_reason: null,
      artifacts: [],
      error: null,
      created_at: now,
      started_at: now,
      finished_at: null,
      requested_by: run.requestedBy ?? null,
      ...(run.separateDuties ? { separate_duties: true } : {}),
      ...(run.requestHash ? { request_hash: run.requestHash } : {}),
    });
  }

  return {
    /** Records the run's start unless its trace id is recorded already: true when this call recorded it. */
    async startOnce(run: NewRun): Promise<boolean> {
      try {
        await start(run);
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    /** Whether the run started under separate duties, and who asked for it (null: a trigger or cron job). */
    async approvalGuard(tenantId: string, traceId: string): Promise<{ separateDuties: boolean; requestedBy: string | null }> {
      const doc = await runs.findOne({ _id: traceId, tenant_id: tenantId }, { projection: { requested_by: 1, separate_duties: 1 } });
      return { separateDuties: doc?.separate_duties === true, requestedBy: doc?.requested_by ?? null };
    },

    /** The run was never started (its workflow refused): nothing of it remains. */
    discard: async (traceId: string) => void (await runs.deleteOne({ _id: traceId })),

    /** Its workflow started (now, or earlier for a run that had been queued). */
    async started(traceId: string, runId: string, at?: Date): Promise<void> {
      await runs.updateOne(
        { _id: traceId, status: notEnded },
        { $set: { run_id: runId, ...(at ? { status: 'running' as const, started_at: at } : {}) } },
      );
    },

    /** It waits behind an earlier run of its session. */
    async queued(traceId: string): Promise<void> {
      await runs.updateOne({ _id: traceId, status: 'running', run_id: null }, { $set: { status: 'queued', started_at: null } });
    },

    /** What a cancelled model call had written of its answer. */
    async notePartialAnswer(traceId: string, text: string): Promise<void> {
      await runs.updateOne({ _id: traceId, status: notEnded }, { $set: { partial_answer: text } });
    },

    async partialAnswer(traceId: string): Promise<string | null> {
      const doc = await runs.findOne({ _id: traceId }, { projection: { partial_answer: 1 } });
      return doc?.partial_answer ?? null;
    },

    async complete(traceId: string, result: RunResult, at: Date, runId?: string): Promise<void> {
      await runs.updateOne(
        { _id: traceId },
        {
          $set: {
            status: 'completed',
            answer: result.answer,
            reference: result.reference,
            cost: result.cost,
            model: result.model,
            stop_reason: result.stopReason,
            artifacts: result.artifacts,
            finished_at: at,
            ...(runId ? { run_id: runId } : {}),
          },
        },
      );
    },

    async fail(traceId: string, error: { code: number; message: string }, cost: Cost, at: Date, runId?: string): Promise<void> {
      await runs.updateOne(
        { _id: traceId, status: { $ne: 'canceled' } },
        { $set: { status: 'failed', error, cost, finished_at: at, ...(runId ? { run_id: runId } : {}) } },
      );
    },

    /**
     * Ends the run cancelled, with what it had answered by then: true when it is cancelled (by this
     * call or an earlier attempt of it), false when it had ended otherwise.
     */
    async cancel(traceId: string, result: Omit<RunResult, 'stopReason' | 'reference'>, at: Date, runId?: string): Promise<boolean> {
      const { modifiedCount } = await runs.updateOne(
        { _id: traceId, status: notEnded },
        {
          $set: {
            status: 'canceled',
            answer: result.answer,
            cost: result.cost,
            model: result.model,
            stop_reason: 'canceled',
            artifacts: result.artifacts,
            finished_at: at,
            ...(runId ? { run_id: runId } : {}),
          },
        },
      );
      if (modifiedCount === 1) return true;
      return (await runs.findOne({ _id: traceId }, { projection: { status: 1 } }))?.status === 'canceled';
    },

    /** Tool calls of the run wait for a person: the run is `waiting_approval` until they are decided. */
    async awaitApprovals(traceId: string, requests: ApprovalRequest[]): Promise<void> {
      const set: Record<string, unknown> = { status: 'waiting_approval' };
      for (const r of requests) {
        set[`approvals.${r.approvalId}`] = {
          tool: r.tool,
          arguments: r.arguments,
          step: r.step,
          status: 'pending',
          comment: null,
          decided_by: null,
          requested_at: r.requestedAt,
          expires_at: r.expiresAt,
          decided_at: null,
        } satisfies ApprovalDoc;
      }
      await runs.updateOne({ _id: traceId, status: { $in: ['running', 'waiting_approval'] } }, { $set: set });
    },

    /** One approval decided (or timed out); the run is `running` again once none is left waiting. */
    async decideApproval(traceId: string, approvalId: string, verdict: ApprovalVerdict, stillWaiting: boolean): Promise<void> {
      const at = `approvals.${approvalId}`;
      await runs.updateOne(
        { _id: traceId, [`${at}.status`]: 'pending' },
        {
          $set: {
            [`${at}.status`]: verdict.status,
            [`${at}.comment`]: verdict.comment,
            [`${at}.decided_by`]: verdict.decidedBy,
            [`${at}.decided_at`]: verdict.decidedAt,
          },
        },
      );
      if (!stillWaiting) await runs.updateOne({ _id: traceId, status: 'waiting_approval' }, { $set: { status: 'running' } });
    },

    /** A run of the session besides `traceId` that has not recorded its end, if any. */
    async unendedRun(tenantId: string, sessionId: string, traceId: string): Promise<{ traceId: string; kind: RunKind } | null> {
      const other = await runs.findOne(
        { tenant_id: tenantId, session_id: sessionId, status: notEnded, _id: { $ne: traceId } },
        { projection: { _id: 1, kind: 1 } },
      );
      return other ? { traceId: other._id, kind: other.kind ?? 'chat' } : null;
    },

    /** Who a run belongs to and what it was asked, while it has not recorded its end (else null). */
    async unended(traceId: string): Promise<{ tenantId: string; agentId: string; sessionId: string; question: string } | null> {
      const doc = await runs.findOne(
        { _id: traceId, status: notEnded },
        { projection: { tenant_id: 1, agent_id: 1, session_id: 1, question: 1 } },
      );
      return doc ? { tenantId: doc.tenant_id, agentId: doc.agent_id, sessionId: doc.session_id, question: doc.question ?? '' } : null;
    },

    async find(tenantId: string, traceId: string): Promise<CompletionRun | null> {
      const doc = await runs.findOne({ _id: traceId, tenant_id: tenantId });
      return doc ? presentRun(doc) : null;
    },

    /** A run with the hash of the request that started it (null: an agent task, or a run recorded before hashes were kept). */
    async findRequested(tenantId: string, traceId: string): Promise<{ run: CompletionRun; requestHash: string | null } | null> {
      const doc = await runs.findOne({ _id: traceId, tenant_id: tenantId });
      return doc ? { run: presentRun(doc), requestHash: doc.request_hash ?? null } : null;
    },

    async get(tenantId: string, traceId: string): Promise<CompletionRun> {
      const doc = await runs.findOne({ _id: traceId, tenant_id: tenantId });
      if (!doc) throw notFound('completion', traceId);
      return presentRun(doc);
    },

    /** A tenant's runs, newest first; narrowed to a session or an agent, a status, a kind and a time range. */
    list(tenantId: string, query: RunListQuery, scope: { sessionId?: string; agentId?: string } = {}): Promise<Page<CompletionRun>> {
      const filter: Filter<RunDoc> = { tenant_id: tenantId };
      if (scope.sessionId) filter.session_id = scope.sessionId;
      if (scope.agentId) filter.agent_id = scope.agentId;
      if (query.status) filter.status = query.status;
      // Runs recorded before kinds existed are API completions unless an agent task made them.
      if (query.kind) filter.kind = query.kind === 'chat' ? { $nin: ['trigger', 'cron'] } : query.kind;
      const created = dateRange(query);
      if (created) filter.created_at = created;
      return findPage(runs, filter, query, presentRun);
    },
  };
}

export type CompletionRunStore = ReturnType<typeof createCompletionRunStore>;

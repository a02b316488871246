import {
  type Client,
  ScheduleOverlapPolicy,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import type { OverlapPolicy } from '../common/schemas/cron';
import {
  AgentId,
  completionMemo,
  completionSearchAttributes,
  CronId,
  deliverySearchAttributes,
  DocId,
  EventId,
  KbId,
  SYSTEM_TENANT,
  TenantId,
  TraceId,
  TriggerId,
} from '../common/search-attributes';
import type { AgentTaskInput, InboundEvent } from '../common/inbound-event';
import { agentTaskWorkflowId } from '../common/agent-task-ids';
import type { CompletionInput } from '../completion/run-input';
import {
  completionWorkflowId,
  cronTaskWorkflowIdPrefix,
  ingestWorkflowId,
  MAINTENANCE_RUN_WORKFLOW_ID_PREFIX,
  MAINTENANCE_SCHEDULE_ID,
  replayWorkflowId,
  sessionRunsWorkflowId,
} from '../common/workflow-ids';
import { completionWorkflow } from '../workflows/completion';
import { agentTaskWorkflow, COMPLETION_BACKSTOP_MARGIN_MS, PREPARE_BOUND_MS } from '../workflows/agent-task';
import {
  type Admission,
  type RunSubmission,
  sessionRunsWorkflow,
  type SessionRunsState,
  submitRun,
  takeRun,
} from '../workflows/session-runs';
import { boundedCalls, type WaitBounds } from './temporal-waits';
import { documentIngestWorkflow, type IngestInput } from '../workflows/document-ingest';
import { MAINTENANCE_RUN_BOUND_MS, maintenanceWorkflow } from '../workflows/maintenance';
import { DELIVERY_BACKSTOP_MS, type DeliveryInput, webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import { PAGE_BOUND_MS, PAGES_PER_RUN, type ReplayInput, webhookReplayWorkflow } from '../workflows/webhook-replay';

/*
 * Every workflow's start options and search attributes, in one place: what an operator sees in the
 * Temporal UI (TenantId / AgentId / SessionId / TraceId ...) is decided here, with the ids of
 * common/workflow-ids.ts and common/agent-task-ids.ts. The lists that parent workflows give their
 * children too (a completion's, a delivery's) are built by common/search-attributes.ts, which
 * workflow code may import. Each start carries an execution timeout as a backstop only: every
 * workflow ends first at its own timer, recording why.
 */

// --- backstops ---

/**
 * Backstop of an agent task (event trigger or cron job), whose start knows no configuration: its
 * preparation's bound, the longest COMPLETION_RUN_TIMEOUT_MS allowed (24 h) and both margins.
 */
const AGENT_TASK_BACKSTOP_MS = PREPARE_BOUND_MS + 86_400_000 + COMPLETION_BACKSTOP_MARGIN_MS + 300_000;
/** How long past its own time bound a completion may live before Temporal ends it without its record. */
const RUN_BACKSTOP_MARGIN_MS = 120_000;
/**
 * How long past its own time bound a document's workflow may live: the cancelled parse stops at its
 * next heartbeat (30 s at most), then the failure is written.
 */
const INGEST_BACKSTOP_MARGIN_MS = 300_000;
/** The maintenance run's own timer ends it first; this one still ends it before the next run is due. */
export const MAINTENANCE_BACKSTOP_MS = MAINTENANCE_RUN_BOUND_MS + 10_000;

/** A start refused because the id is taken (or was, for REJECT_DUPLICATE): false instead of an error. */
async function startedOnce(start: () => Promise<unknown>): Promise<boolean> {
  try {
    await start();
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

/**
 * Starts the delivery workflow of one (event, subscription) pair. Its id comes from the delivery id
 * and a closed run's id is never reused, so however many dispatchers race, one workflow delivers.
 */
export async function startDelivery(
  client: Client,
  taskQueue: string,
  workflowId: string,
  input: DeliveryInput,
  traceId?: string,
): Promise<void> {
  const sessionId = input.envelope.data.session_id;
  await startedOnce(() =>
    client.workflow.start(webhookDeliveryWorkflow, {
      workflowId,
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowExecutionTimeout: DELIVERY_BACKSTOP_MS,
      typedSearchAttributes: deliverySearchAttributes({
        tenantId: input.tenantId,
        eventId: input.envelope.event_id,
        subscriptionId: input.subscriptionId,
        traceId: traceId ?? input.envelope.event_id,
        ...(typeof sessionId === 'string' ? { sessionId } : {}),
      }),
    }),
  );
}

/**
 * Starts one parse of a document (the upload's, or a reparse's), bounded by `input.timeoutMs`
 * (DOCUMENT_INGEST_TIMEOUT_MS). A parse of that number already started: WorkflowExecutionAlreadyStartedError.
 */
export async function startDocumentIngest(client: Client, taskQueue: string, input: IngestInput, traceId: string): Promise<void> {
  await client.workflow.start(documentIngestWorkflow, {
    workflowId: ingestWorkflowId(input.docId, input.parse),
    taskQueue,
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    ...(input.timeoutMs !== undefined ? { workflowExecutionTimeout: input.timeoutMs + INGEST_BACKSTOP_MARGIN_MS } : {}),
    typedSearchAttributes: [
      { key: TenantId, value: input.tenantId },
      { key: KbId, value: input.kbId },
      { key: DocId, value: input.docId },
      { key: TraceId, value: traceId },
    ],
  });
}

/**
 * Hands a completion to its session's workflow and answers what became of it: started, queued, or
 * refused by `reject`. One update-with-start (`takeRun`), answered in one workflow task of the
 * session (the workflow started if the session has none); it does not wait for the run's own
 * workflow to have started. null when no answer came by `bounds.deadline` (no worker polling) or
 * its caller left first: the run is then handed over with signal-with-start as well, durable at
 * once (an update is held in the server's memory only until a worker takes it), and is taken when
 * a worker comes. The hand-over itself is not cut short by the caller leaving (its run's record
 * goes with it).
 */
export async function submitCompletion(
  client: Client,
  taskQueue: string,
  submission: Omit<RunSubmission, 'backstopMarginMs'>,
  bounds: WaitBounds,
): Promise<Admission | null> {
  const { input } = submission;
  const start = {
    workflowId: sessionRunsWorkflowId(input.sessionId),
    taskQueue,
    args: [{ tenantId: input.tenantId, agentId: input.agentId, sessionId: input.sessionId, queue: [] }] as [SessionRunsState],
    // Found by SessionId beside its runs; its TraceId is its own id, so a run's trace finds the run alone.
    typedSearchAttributes: completionSearchAttributes({ ...input, traceId: sessionRunsWorkflowId(input.sessionId) }),
  };
  const handedOver: RunSubmission = { ...submission, backstopMarginMs: RUN_BACKSTOP_MARGIN_MS };
  try {
    return await boundedCalls(client, bounds, () =>
      client.workflow.executeUpdateWithStart(takeRun, {
        args: [handedOver],
        startWorkflowOperation: new WithStartWorkflowOperation(sessionRunsWorkflow, { ...start, workflowIdConflictPolicy: 'USE_EXISTING' }),
      }),
    );
  } catch {
    // No answer in time, the caller gone, or the update refused by the server (the session's
    // execution closing as it came: idle, or continuing as new): the signal is durable at once and
    // starts the session again if it has closed. A failure of the signal too is the request's error.
    await client.workflow.signalWithStart(sessionRunsWorkflow, { ...start, signal: submitRun, signalArgs: [handedOver] });
    return null;
  }
}

/**
 * Starts a completion's workflow straight away, for a request that took its idle session's turn
 * (commands/completions.ts): the same id, options and search attributes as the child the session's
 * workflow starts (workflows/session-runs.ts), without its parent. Answers the run's run id.
 */
export async function startCompletionInTurn(client: Client, taskQueue: string, input: CompletionInput): Promise<string> {
  const bound = input.limits.runTimeoutMs;
  const handle = await client.workflow.start(completionWorkflow, {
    workflowId: completionWorkflowId(input.traceId),
    taskQueue,
    args: [{ ...input, holdsSessionTurn: true }],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    ...(bound !== undefined ? { workflowExecutionTimeout: bound + RUN_BACKSTOP_MARGIN_MS } : {}),
    typedSearchAttributes: completionSearchAttributes(input),
    memo: completionMemo(input),
  });
  return handle.firstExecutionRunId;
}

/** Starts the agent task an event trigger set off; false when this (trigger, event) already had one. */
export function startTriggeredAgentTask(
  client: Client,
  taskQueue: string,
  triggerId: string,
  event: InboundEvent,
  input: AgentTaskInput,
): Promise<boolean> {
  return startedOnce(() =>
    client.workflow.start(agentTaskWorkflow, {
      workflowId: agentTaskWorkflowId(triggerId, event.event_id),
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowExecutionTimeout: AGENT_TASK_BACKSTOP_MS,
      typedSearchAttributes: [
        { key: TenantId, value: input.tenantId },
        { key: AgentId, value: input.agentId },
        { key: EventId, value: event.event_id },
        { key: TriggerId, value: triggerId },
      ],
      memo: { origin: input.origin, event: event.event, source: event.source },
    }),
  );
}

/**
 * Starts a historical replay; each continued run ends within its pages' bounds (PAGES_PER_RUN pages
 * of at most PAGE_BOUND_MS), and the whole replay at its own timer (`input.timeoutMs`).
 */
export async function startReplay(client: Client, taskQueue: string, input: ReplayInput & { timeoutMs: number }): Promise<string> {
  const workflowId = replayWorkflowId(input.replayId);
  await client.workflow.start(webhookReplayWorkflow, {
    workflowId,
    taskQueue,
    args: [input],
    workflowRunTimeout: PAGES_PER_RUN * PAGE_BOUND_MS + 600_000,
    workflowExecutionTimeout: input.timeoutMs + 600_000,
    typedSearchAttributes: [
      { key: TenantId, value: input.tenantId },
      { key: TraceId, value: input.replayId },
    ],
  });
  return workflowId;
}

// --- schedules ---

export const SCHEDULE_OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  buffer_all: ScheduleOverlapPolicy.BUFFER_ALL,
  cancel_other: ScheduleOverlapPolicy.CANCEL_OTHER,
  terminate_other: ScheduleOverlapPolicy.TERMINATE_OTHER,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
};

export interface CronTask {
  cronId: string;
  tenantId: string;
  agentId: string;
  input: AgentTaskInput;
}

/** Search attributes of a cron job's schedule and of every run it starts. */
export const cronSearchAttributes = (job: Pick<CronTask, 'cronId' | 'tenantId' | 'agentId'>) => [
  { key: TenantId, value: job.tenantId },
  { key: AgentId, value: job.agentId },
  { key: CronId, value: job.cronId },
];

/** What a cron job's schedule starts at each due time: one agent task. */
export const cronTaskAction = (taskQueue: string, task: CronTask): ScheduleOptionsStartWorkflowAction<typeof agentTaskWorkflow> => ({
  type: 'startWorkflow',
  workflowType: agentTaskWorkflow,
  workflowId: cronTaskWorkflowIdPrefix(task.cronId),
  taskQueue,
  args: [task.input],
  workflowExecutionTimeout: AGENT_TASK_BACKSTOP_MS,
  typedSearchAttributes: cronSearchAttributes(task),
});

/** What the installation's maintenance schedule starts every minute. */
export const maintenanceAction = (taskQueue: string): ScheduleOptionsStartWorkflowAction<typeof maintenanceWorkflow> => ({
  type: 'startWorkflow',
  workflowType: maintenanceWorkflow,
  workflowId: MAINTENANCE_RUN_WORKFLOW_ID_PREFIX,
  taskQueue,
  workflowExecutionTimeout: MAINTENANCE_BACKSTOP_MS,
  typedSearchAttributes: [
    { key: TenantId, value: SYSTEM_TENANT },
    { key: TraceId, value: MAINTENANCE_SCHEDULE_ID },
  ],
});

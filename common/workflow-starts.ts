import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { DeliveryInput } from '../workflows/webhook-delivery';
import { DELIVERY_BACKSTOP_MS, webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import { documentIngestWorkflow, type IngestInput } from '../workflows/document-ingest';
import { completionWorkflow } from '../workflows/completion';
import { COMPLETION_BACKSTOP_MARGIN_MS, PREPARE_BOUND_MS } from '../workflows/agent-task';
import { PAGE_BOUND_MS, PAGES_PER_RUN } from '../workflows/webhook-replay';
import type { CompletionInput } from '../completion/run-input';
import { AgentId, DocId, EventId, KbId, SessionId, SubscriptionId, TenantId, TraceId } from './search-attributes';

/**
 * Starts the delivery workflow of one (event, subscription) pair. Its id comes from the delivery id
 * and a closed run's id is never reused, so however many dispatchers race, one workflow delivers.
 */
export async function startDelivery(client: Client, taskQueue: string, workflowId: string, input: DeliveryInput, traceId?: string): Promise<void> {
  const sessionId = input.envelope.data.session_id;
  try {
    await client.workflow.start(webhookDeliveryWorkflow, {
      workflowId,
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowExecutionTimeout: DELIVERY_BACKSTOP_MS,
      typedSearchAttributes: [
        { key: TenantId, value: input.tenantId },
        { key: EventId, value: input.envelope.event_id },
        { key: SubscriptionId, value: input.subscriptionId },
        { key: TraceId, value: traceId ?? input.envelope.event_id },
        ...(typeof sessionId === 'string' ? [{ key: SessionId, value: sessionId }] : []),
      ],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

export const ingestWorkflowId = (docId: string) => `document-ingest-${docId}`;

/**
 * How long past its own time bound a document's workflow may live before Temporal ends it without
 * its record: the cancelled parse stops at its next heartbeat (30 s at most), then the failure is written.
 */
const INGEST_BACKSTOP_MARGIN_MS = 300_000;

/**
 * Starts parsing an uploaded document, bounded by `input.timeoutMs` (DOCUMENT_INGEST_TIMEOUT_MS);
 * findable by tenant, knowledge base, document and trace.
 */
export async function startDocumentIngest(client: Client, taskQueue: string, input: IngestInput, traceId: string): Promise<void> {
  await client.workflow.start(documentIngestWorkflow, {
    workflowId: ingestWorkflowId(input.docId),
    taskQueue,
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    // A backstop only: the workflow's own timer ends it first, recording why.
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
 * Backstop of an agent task (event trigger or cron job), whose start knows no configuration: its
 * preparation's bound, the longest COMPLETION_RUN_TIMEOUT_MS allowed (24 h) and both margins. The
 * task's own timers end it long before, recording why.
 */
export const AGENT_TASK_BACKSTOP_MS = PREPARE_BOUND_MS + 86_400_000 + COMPLETION_BACKSTOP_MARGIN_MS + 300_000;

/** How long past its own time bound a completion may live before Temporal ends it without its record. */
const RUN_BACKSTOP_MARGIN_MS = 120_000;

/** One running completion per session: the workflow id is the session's, so the server refuses a second (10005). */
export const completionWorkflowId = (sessionId: string) => `completion-${sessionId}`;

/**
 * Starts a completion; findable by tenant, agent, session and trace. Returns null when the
 * session already has a running completion.
 */
export async function startCompletion(client: Client, taskQueue: string, input: CompletionInput): Promise<{ workflowId: string; runId: string } | null> {
  const workflowId = completionWorkflowId(input.sessionId);
  try {
    const handle = await client.workflow.start(completionWorkflow, {
      workflowId,
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      // A backstop only: the run's own timer ends it first, recording why.
      ...(input.limits.runTimeoutMs !== undefined ? { workflowExecutionTimeout: input.limits.runTimeoutMs + RUN_BACKSTOP_MARGIN_MS } : {}),
      typedSearchAttributes: [
        { key: TenantId, value: input.tenantId },
        { key: AgentId, value: input.agentId },
        { key: SessionId, value: input.sessionId },
        { key: TraceId, value: input.traceId },
      ],
      memo: { route: input.route.text, question: input.question.slice(0, 200) },
    });
    return { workflowId, runId: handle.firstExecutionRunId };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return null;
    throw err;
  }
}

/**
 * Backstops of a historical replay: each continued run ends within its pages' bounds (PAGES_PER_RUN
 * pages of at most PAGE_BOUND_MS), and the whole replay at its own timer (`timeoutMs`).
 */
export const replayBackstops = (timeoutMs: number) => ({
  workflowRunTimeout: PAGES_PER_RUN * PAGE_BOUND_MS + 600_000,
  workflowExecutionTimeout: timeoutMs + 600_000,
});

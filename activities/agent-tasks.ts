import { ApplicationFailure } from '@temporalio/activity';
import { agentTaskSessionId, agentTaskTraceId } from '../common/agent-task-ids';
import { AppError, ErrorCodes } from '../common/errors';
import { NOTHING_SPENT } from '../common/run-spend';
import { completionWorkflowId } from '../common/workflow-ids';
import { type PreparationDeps, prepareCompletionInput } from '../completion/prepare-input';
import type { CompletionInput } from '../completion/run-input';
import { createRunEndRecorder, type RunEndStores } from '../completion/run-end-recorder';
import { failedRun } from '../completion/run-endings';
import { createRunStartRecorder } from '../completion/run-start-recorder';
import type { Cost } from '../common/schemas/completions';
import type { CompletionRunStore } from '../stores/completion-runs';
import type { RunEventStore } from '../stores/run-events';
import type { SessionStore } from '../stores/sessions';
import { isDuplicateKey } from '../stores/mongo';
import { isSessionTemplate, planSession } from '../triggers/session-templates';
import { AGENT_TASK_REJECTED, type AgentTaskInput } from '../common/inbound-event';

export interface AgentTaskActivityDeps extends PreparationDeps, Omit<RunEndStores, 'sessions' | 'runs' | 'runEvents'> {
  /** The task opens its session besides reading it. */
  sessions: PreparationDeps['sessions'] & Pick<SessionStore, 'create' | 'recordTurn'>;
  runs: CompletionRunStore;
  runEvents: RunEventStore;
}

const rejected = (message: string) => ApplicationFailure.nonRetryable(message, AGENT_TASK_REJECTED);

export function createAgentTaskActivities(deps: AgentTaskActivityDeps) {
  const startRecorder = createRunStartRecorder(deps);
  const endRecorder = createRunEndRecorder(deps);

  /** The task's session, created once: a retry finds the one an earlier attempt made. */
  async function ensureSession(input: AgentTaskInput, sessionId: string, plan: ReturnType<typeof planSession>) {
    try {
      await deps.sessions.create(
        input.tenantId,
        input.agentId,
        input.origin,
        {
          name: plan.sessionName,
          metadata: { ...plan.metadata, origin: input.origin, task_key: input.key.slice(0, 1_000), template: input.sessionTemplate },
        },
        { sessionId },
      );
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  return {
    /**
     * Opens an agent task's session from its template (recording `session.created`) and builds
     * the completion's input, as the API does for a request. What can never succeed (the agent
     * deleted, an unknown template, nothing to ask) fails for good.
     */
    async prepareAgentTask({
      task: input,
      workflowId,
    }: {
      task: AgentTaskInput;
      workflowId: string;
    }): Promise<{ completion: CompletionInput; completionWorkflowId: string }> {
      const sessionId = agentTaskSessionId(workflowId);
      const traceId = agentTaskTraceId(workflowId);
      if (!isSessionTemplate(input.sessionTemplate)) throw rejected(`unknown session template ${input.sessionTemplate}`);
      let agent;
      try {
        agent = await deps.agents.get(input.tenantId, input.agentId);
      } catch (err) {
        if (err instanceof AppError && err.code === ErrorCodes.NOT_FOUND) {
          throw rejected(`agent ${input.agentId} no longer exists in tenant ${input.tenantId}; the task of ${input.origin} cannot run`);
        }
        throw err;
      }
      const plan = planSession(input.sessionTemplate, {
        event: input.event,
        inputs: input.inputs,
        origin: input.origin,
        // As for every run: an agent that names a provider always has a model.
        modelConfigured: agent.model.provider_id !== undefined || deps.config.LLM_BASE_URL !== undefined,
      });
      const question = input.question.trim() || plan.question;
      if (!question) throw rejected(`the task of ${input.origin} has nothing to ask: its template built an empty question`);

      await ensureSession(input, sessionId, plan);
      let completion: CompletionInput;
      try {
        completion = await prepareCompletionInput(deps, {
          traceId,
          tenantId: input.tenantId,
          agentId: input.agentId,
          sessionId,
          question,
          stream: false,
          route: plan.route ?? undefined,
          attachments: [],
          contextIds: [],
        });
      } catch (err) {
        // Client-class errors (the agent deleted meanwhile, its route no longer valid): retrying cannot help.
        if (err instanceof AppError && err.code < ErrorCodes.INTERNAL)
          throw rejected(`the task of ${input.origin} cannot run: ${err.message}`);
        throw err;
      }
      const workflowIdOfRun = completionWorkflowId(traceId);
      // Recorded as the API records the runs it starts, the stream's first event included: whoever follows it reads from 0.
      await startRecorder.recordStart(
        {
          traceId,
          tenantId: input.tenantId,
          agentId: input.agentId,
          sessionId,
          kind: input.origin.startsWith('cron:') ? 'cron' : 'trigger',
          workflowId: workflowIdOfRun,
          route: completion.route.text,
          question,
          stream: false,
          offline: completion.offline,
          // No person asked for it: under separate duties only an admin decides its tool calls.
          separateDuties: completion.approval?.separateDuties ?? false,
        },
        { route: completion.route.text, offline: completion.offline, queued: false, announce: completion.stream },
      );
      return { completion, completionWorkflowId: workflowIdOfRun };
    },

    /**
     * What the task's cancelled run recorded (its completion records it before it ends cancelled):
     * the answer it had by then and its cost, for the task's outcome.
     */
    async canceledAgentTaskRun({ tenantId, traceId }: { tenantId: string; traceId: string }): Promise<{ answer: string; cost: Cost }> {
      const run = await deps.runs.find(tenantId, traceId);
      return { answer: run?.answer ?? '', cost: run?.cost ?? { tokens: 0, duration_ms: 0 } };
    },

    /**
     * Records an agent task that reached its time bound before its completion could record its own
     * end: its run (when preparation got as far as creating it) ends failed as any run does, with
     * `run.failed` and the stream's `error` and `done`, so its listeners and subscribers hear of it.
     */
    async failAgentTask({ workflowId, message, startedAt }: { workflowId: string; message: string; startedAt: number }): Promise<void> {
      const traceId = agentTaskTraceId(workflowId);
      const run = await deps.runs.unended(traceId);
      if (!run) return;
      const { question, ...owner } = run;
      // Agent tasks record their stream events (see prepareAgentTask); the end's events move past the numbers taken.
      const ctx = { traceId, ...owner, stream: false, recordEvents: true };
      await endRecorder.recordEnd(
        failedRun(
          { ctx, seq: 1, question, code: ErrorCodes.INTERNAL, message, tokens: 0, spent: NOTHING_SPENT, requestedAt: startedAt },
          new Date(),
        ),
      );
    },
  };
}

import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AppError, conflict, ErrorCodes } from '../common/errors';
import type { Agent } from '../common/schemas/agents';
import type { CompletionBody, CompletionReply } from '../common/schemas/completions';
import { TraceId } from '../common/search-attributes';
import { completionWorkflowId, startCompletion } from '../common/workflow-starts';
import { type ActiveSkill, historyMessages, resolveRoute, systemPromptFor, toolsFor } from '../completion/plan-run';
import { type CompletionInput, RUN_FAILURE_TYPE } from '../completion/run-input';
import type { CompletionOutcome } from '../workflows/completion';
import type { Principal } from './auth';
import type { Services } from './services';

export interface StartedRun {
  input: CompletionInput;
  workflowId: string;
  runId: string;
}

/** The session must exist in the tenant, belong to the agent and be active (archived: 10005). */
async function sessionOfAgent(services: Services, tenantId: string, agentId: string, sessionId: string) {
  const session = await services.sessions.getActive(tenantId, sessionId);
  if (session.agent_id !== agentId) {
    throw new AppError(ErrorCodes.NOT_FOUND, `session ${sessionId} does not belong to agent ${agentId}`, { resource: 'session', id: sessionId });
  }
  return session;
}

/** context_ids must be documents of the agent's knowledge bases (10004 otherwise). */
async function checkContextDocuments(services: Services, tenantId: string, agent: Agent, docIds: string[]) {
  await Promise.all(
    [...new Set(docIds)].map(async (docId) => {
      const doc = await services.documents.getDoc(tenantId, docId);
      if (!agent.kb_ids.includes(doc.kb_id)) {
        throw new AppError(ErrorCodes.NOT_FOUND, `document ${docId} is not in the agent's knowledge bases`, { resource: 'document', id: docId });
      }
    }),
  );
}

/** The agent's own skills and those activated on the session; a skill removed since is skipped. */
async function activeSkills(services: Services, tenantId: string, agent: Agent, sessionId: string): Promise<ActiveSkill[]> {
  const [ofSession, ofAgent] = await Promise.all([services.skills.activeForSession(tenantId, sessionId), services.skills.byIds(tenantId, agent.skills)]);
  const byId = new Map<string, ActiveSkill>();
  for (const skill of [...ofAgent, ...ofSession]) byId.set(skill.skill_id, skill);
  return [...byId.values()];
}

/**
 * Checks a completion request, builds the workflow's input and starts it. Everything the run
 * reads of the agent, session and skills is read here, once; a second completion on a session
 * whose run is still going is refused with 10005.
 */
export async function startRun(services: Services, principal: Principal, agentId: string, body: CompletionBody, traceId: string): Promise<StartedRun> {
  const { config } = services;
  const tenantId = principal.tenantId;
  // Every read this request needs, side by side; what they prove is checked as they land.
  const agentRead = services.agents.get(tenantId, agentId);
  const [agent, session, skills, turns] = await Promise.all([
    agentRead,
    sessionOfAgent(services, tenantId, agentId, body.session_id),
    agentRead.then((a) => activeSkills(services, tenantId, a, body.session_id)),
    services.sessions.recentTurns(tenantId, body.session_id, { maxMessages: config.HISTORY_MAX_MESSAGES, maxChars: config.HISTORY_MAX_CHARS }),
    services.files.assertExist(tenantId, body.attachments),
    agentRead.then((a) => checkContextDocuments(services, tenantId, a, body.context_ids)),
  ]);
  const { route, offline } = resolveRoute(body.route, agent.default_route, config.LLM_BASE_URL !== undefined);

  const input: CompletionInput = {
    traceId,
    tenantId,
    agentId,
    sessionId: session.session_id,
    userId: session.user_id,
    question: body.question,
    stream: body.stream,
    route,
    offline,
    model: route.usesModel
      ? {
          name: agent.model.model ?? config.LLM_MODEL,
          temperature: agent.model.temperature ?? config.LLM_TEMPERATURE,
          maxTokens: agent.model.max_tokens ?? config.LLM_MAX_TOKENS,
        }
      : null,
    systemPrompt: systemPromptFor(agent, skills, route),
    history: historyMessages(turns),
    tools: toolsFor(agent, skills, route, body.attachments.length > 0),
    kbIds: agent.kb_ids,
    contextIds: body.context_ids,
    attachmentIds: body.attachments,
    limits: {
      maxSteps: config.COMPLETION_MAX_STEPS,
      maxTokens: config.COMPLETION_MAX_TOKENS,
      attachmentMaxChars: config.ATTACHMENT_MAX_CHARS,
      modelCallTimeoutMs: config.LLM_TIMEOUT_MS,
      modelAttempts: config.LLM_MAX_ATTEMPTS,
    },
    requestedAt: Date.now(),
    firstSeq: 1,
  };

  // The run's record and its workflow start together; a refused start removes the record.
  let [, started] = await Promise.all([
    services.completionRuns.start({ traceId, tenantId, agentId, sessionId: session.session_id, route: route.text, stream: body.stream, offline }),
    startCompletion(services.temporal, config.TEMPORAL_TASK_QUEUE, input),
  ]);
  if (!started && (await previousRunHasAnswered(services, tenantId, session.session_id))) {
    started = await startCompletion(services.temporal, config.TEMPORAL_TASK_QUEUE, input);
  }
  if (!started) {
    await services.completionRuns.discard(traceId);
    throw conflict(`session ${session.session_id} already has a completion running; wait for it to finish`, {
      session_id: session.session_id,
      workflow_id: completionWorkflowId(session.session_id),
    });
  }
  return { input, ...started };
}

/** How long a request waits for a session's previous run to close once that run has answered. */
const CLOSING_RUN_WAIT_MS = 5_000;

/**
 * A client that got its answer (or a stream's `done`) may ask the next question while the previous
 * workflow is still closing. When the session's running workflow has already recorded its result,
 * wait for it to close instead of refusing; a run still working is refused (10005).
 */
async function previousRunHasAnswered(services: Services, tenantId: string, sessionId: string): Promise<boolean> {
  const handle = services.temporal.workflow.getHandle(completionWorkflowId(sessionId));
  const description = await handle.describe().catch(() => null);
  if (!description) return false;
  // Closed since the start was refused: try again.
  if (description.status.name !== 'RUNNING') return true;
  const previousTrace = description.typedSearchAttributes.get(TraceId);
  if (!previousTrace) return false;
  const previous = await services.completionRuns.get(tenantId, previousTrace).catch(() => null);
  if (!previous || previous.status === 'running') return false;
  const closed = await Promise.race([
    handle.result().then(() => true, () => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), CLOSING_RUN_WAIT_MS).unref()),
  ]);
  return closed;
}

/** The error a failed run ended with, as the spec's code (30001 model, 30002 tool timeout, ...). */
export function runError(err: unknown): AppError {
  if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure && err.cause.type === RUN_FAILURE_TYPE) {
    const code = (err.cause.details?.[0] as { code?: number } | undefined)?.code;
    if (code !== undefined && code !== 0 && KNOWN_CODES.has(code)) return new AppError(code as AppError['code'], err.cause.message);
  }
  return new AppError(ErrorCodes.INTERNAL, 'the completion failed inside the service');
}
const KNOWN_CODES = new Set<number>(Object.values(ErrorCodes));

/** Waits for the run's workflow and shapes its outcome as the reply. */
export async function awaitReply(services: Services, run: StartedRun): Promise<CompletionReply> {
  let outcome: CompletionOutcome;
  try {
    outcome = await services.temporal.workflow.getHandle<(input: CompletionInput) => Promise<CompletionOutcome>>(run.workflowId, run.runId).result();
  } catch (err) {
    throw runError(err);
  }
  return {
    session_id: run.input.sessionId,
    answer: outcome.answer,
    reference: outcome.reference,
    trace_id: run.input.traceId,
    cost: outcome.cost,
    route: run.input.route.text,
    model: outcome.model,
    offline: run.input.offline,
    stop_reason: outcome.stopReason,
    artifacts: outcome.artifacts,
  };
}

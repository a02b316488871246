import { type EventRecord, newEvent } from '../common/events';
import type { RunContext } from './run-input';

/** `agent.step`: the agent advanced one step (`action` says what it did; `confidence` 0-1). */
export const agentStepEvent = (ctx: RunContext, step: number, action: string, confidence: number, at: Date): EventRecord =>
  newEvent(
    'agent.step',
    ctx.tenantId,
    `${ctx.traceId}:${step}`,
    {
      session_id: ctx.sessionId,
      action,
      confidence,
      step,
      trace_id: ctx.traceId,
      agent_id: ctx.agentId,
    },
    at,
  );

import { ApplicationFailure, Context } from '@temporalio/activity';
import { type RunContext, stepConfidence } from '../completion/run-input';
import { type ChatModelClient, ChatModelError, type ChatRequest, type ChatResult } from '../llm/chat-model';
import type { EventRecord } from '../common/events';
import { type EventLog, newEvent } from '../stores/event-log';
import type { RunEventStore, StreamEvent } from '../stores/run-events';

export interface LlmActivityDeps {
  /** null: no model is configured (the API then routes every run to the offline mode). */
  chat: ChatModelClient | null;
  runEvents: RunEventStore;
  eventLog: EventLog;
  /** Least time between two `message` events of one stream (they carry the whole text so far). */
  messageIntervalMs?: number;
}

/** `agent.step`: the agent advanced one step (`action` says what it did; `confidence` 0-1). */
export const agentStepEvent = (ctx: RunContext, step: number, action: string, confidence: number, at: Date): EventRecord =>
  newEvent('agent.step', ctx.tenantId, `${ctx.traceId}:${step}`, {
    session_id: ctx.sessionId, action, confidence, step, trace_id: ctx.traceId, agent_id: ctx.agentId,
  }, at);

export interface CallModelInput {
  ctx: RunContext;
  seq: number;
  step: number;
  request: ChatRequest;
}


/** Activities that reach the language model. */
export function createLlmActivities({ chat, runEvents, eventLog, messageIntervalMs = 50 }: LlmActivityDeps) {
  return {
    /**
     * One model call. While streaming, the answer as it grows goes out as `message` events (the
     * whole text so far, at most one per messageIntervalMs, and always the final text). A 5xx,
     * 429, network failure or timeout is thrown for Temporal to retry; any other 4xx is not.
     */
    async callModel({ ctx, seq, step, request }: CallModelInput): Promise<{ result: ChatResult; nextSeq: number }> {
      if (!chat) throw ApplicationFailure.nonRetryable('no language model is configured', 'ModelRequestRejected');
      const { attempt } = Context.current().info;
      let next = seq;
      // Stream writes are chained so they land in order without holding up the model's stream.
      let writes: Promise<void> = Promise.resolve();
      const emit = (events: StreamEvent[]) => {
        writes = writes.then(async () => {
          next = await runEvents.append(ctx.traceId, next, events);
        });
      };
      if (ctx.stream) emit([{ event: 'thinking', data: { phase: attempt > 1 ? 'model_retry' : 'model', step, attempt } }]);

      let lastSent = '';
      let lastAt = 0;
      const onText = (text: string) => {
        Context.current().heartbeat();
        const now = Date.now();
        if (now - lastAt < messageIntervalMs) return;
        lastAt = now;
        lastSent = text;
        emit([{ event: 'message', data: { answer: text } }]);
      };

      let result: ChatResult;
      try {
        result = await chat.complete(request, { stream: ctx.stream, onText: ctx.stream ? onText : undefined, signal: Context.current().cancellationSignal });
      } catch (err) {
        await writes;
        if (err instanceof ChatModelError) {
          throw ApplicationFailure.create({
            message: err.message,
            type: err.retryable ? 'ModelUnavailable' : 'ModelRequestRejected',
            nonRetryable: !err.retryable,
          });
        }
        throw err;
      }
      if (ctx.stream && result.content !== '' && result.content !== lastSent) emit([{ event: 'message', data: { answer: result.content } }]);
      await writes;

      // A step that asks for tools is announced now (the run goes on); the answering step is
      // recorded with the run's other events when the run finishes.
      if (result.toolCalls.length > 0) {
        await eventLog.appendMany([
          agentStepEvent(ctx, step, `call_tools:${result.toolCalls.map((c) => c.name).join(',')}`, stepConfidence(result.finishReason), new Date()),
        ]);
      }
      return { result, nextSeq: next };
    },
  };
}

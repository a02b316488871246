import { z } from 'zod';
import { isoDate } from './common';
import { jsonText } from './json-text';
import { approvalId, cost, reference, STOP_REASONS, traceId } from './completions';
import { sessionId } from './sessions';

/**
 * When the event was recorded. The writers do not give it: the stream adds it from the event's
 * stored record, so it is the same on every read of the stream (a resume, a later GET …/events).
 */
const recorded = {
  timestamp: isoDate.meta({
    description: "when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these",
    example: '2026-11-23T08:00:00.123Z',
  }),
};

/**
 * The events of a completion stream (text/event-stream), one data schema per event name. The
 * writers (api/routes/completions.ts, activities, api/run-event-stream.ts) are typed by these (less
 * `timestamp`, which the stream adds), and the OpenAPI document describes each event with them.
 */
const streamEventData = {
  thinking: z
    .object({
      ...recorded,
      phase: z.enum(['accepted', 'queued', 'retrieval', 'model', 'model_retry']),
      trace_id: traceId.optional().meta({ description: '`accepted` only' }),
      route: z.string().optional().meta({ description: '`accepted` only: the route the run takes' }),
      offline: z.boolean().optional().meta({ description: '`accepted` only: true when no language model is configured' }),
      step: z.number().int().optional().meta({ description: '`model` / `model_retry`: the model call of the run, from 1' }),
      attempt: z.number().int().optional().meta({ description: '`model` / `model_retry`: the attempt of that call, from 1' }),
    })
    .meta({
      id: 'StreamEventThinking',
      description:
        'What the run is doing: `accepted` (the first event), `queued` (it waits for an earlier run of its session), `retrieval`, `model`, `model_retry`',
    }),
  tool_call: z
    .object({ ...recorded, tool: z.string(), args: z.record(z.string(), z.unknown()) })
    .meta({ id: 'StreamEventToolCall', description: 'The model called a tool with these arguments' }),
  approval_required: z
    .object({
      ...recorded,
      approval_id: approvalId,
      tool: z.string(),
      args: z.record(z.string(), z.unknown()),
      step: z.number().int(),
      expires_at: isoDate,
    })
    .meta({
      id: 'StreamEventApprovalRequired',
      description:
        "The model called a tool that needs a person's approval: the run waits (`waiting_approval`) for POST …/approvals/{approval_id}, at most until `expires_at` (then it counts as rejected)",
    }),
  approval_decided: z
    .object({
      ...recorded,
      approval_id: approvalId,
      tool: z.string(),
      status: z.enum(['approved', 'rejected', 'timed_out']),
      comment: z.string().nullable(),
    })
    .meta({
      id: 'StreamEventApprovalDecided',
      description:
        'A waiting tool call was decided: `approved` (it runs now), `rejected` or `timed_out` (the model is told it did not run)',
    }),
  tool_result: z
    .object({
      ...recorded,
      tool: z.string(),
      result: z.unknown().meta({ description: 'the tool\'s JSON result; a failed tool gives `{ "error": "..." }`' }),
    })
    .meta({ id: 'StreamEventToolResult' }),
  message: z
    .object({
      ...recorded,
      answer: z.string().optional().meta({
        description:
          'the whole answer so far of the current model step; always there with `stream_format: answer` (the default). With `delta`: only on the last message (the whole answer) and on a message that replaces the text (a new model step)',
      }),
      delta: z.string().optional().meta({
        description: '`stream_format: delta` only: the text to append to the answer so far; the message then carries no `answer`',
      }),
      reference: z.array(reference).optional().meta({ description: 'on the last message only' }),
    })
    .meta({ id: 'StreamEventMessage' }),
  error: z
    .object({ ...recorded, code: z.number().int().meta({ description: '30001, 30002 or 20001' }), message: z.string() })
    .meta({ id: 'StreamEventError', description: 'The run failed; always followed by `done`' }),
  done: z
    .object({
      ...recorded,
      session_id: sessionId,
      trace_id: traceId,
      cost: cost.optional(),
      stop_reason: z
        .enum([...STOP_REASONS, 'failed'])
        .optional()
        .meta({
          description: 'why the run ended: a StopReason, or `failed` after an `error` event; absent in streams written before it existed',
        }),
    })
    .meta({ id: 'StreamEventDone', description: 'The last event; `cost` is absent when the run ended without finishing its stream' }),
};

export type StreamEventName = keyof typeof streamEventData;
/** What a writer gives for each event: its data as sent, less the `timestamp` the stream adds. */
export type StreamEventData = { [K in StreamEventName]: Omit<z.infer<(typeof streamEventData)[K]>, 'timestamp'> };

const names = Object.keys(streamEventData) as StreamEventName[];
const componentName = (name: string) => `${name.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())}Event`;

/**
 * One frame as a client's SSE parser gives it: `event`, `id` (`<trace_id>:<n>`) and `data`, the
 * string of the `data:` line, which carries the event's JSON (its schema is the `contentSchema`).
 */
const frameOf = <K extends StreamEventName>(name: K) =>
  z
    .object({
      event: z.literal(name),
      id: z.string().meta({ description: '`<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume' }),
      data: jsonText(streamEventData[name], 'the `data:` line as sent: JSON text, to parse; `contentSchema` describes what it holds'),
    })
    .meta({ id: componentName(name) });

/** The text/event-stream of a completion: one schema per event name, told apart by `event`. */
export const completionEventStream = z
  .discriminatedUnion('event', names.map(frameOf) as unknown as [ReturnType<typeof frameOf>, ...ReturnType<typeof frameOf>[]])
  .meta({
    id: 'CompletionEvent',
    description: 'One server-sent event of a completion stream (its `event:`, `id:` and `data:` lines); see the operation description.',
  });

import { createHash } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { recordsEvents, type RunContext, type ToolBinding } from '../completion/run-input';
import { readToolArguments } from '../completion/tool-arguments';
import { whileHeartbeating } from './heartbeat';
import { canonicalJson } from '../common/canonical-json';
import type { ToolCall } from '../common/chat-model';
import { newEvent } from '../common/events';
import type { EventLog } from '../stores/event-log';
import type { FileStore } from '../stores/files';
import type { RunEventStore } from '../stores/run-events';
import { callHttpTool, ToolCallError, ToolTimeoutError } from '../upstream/http-tool';
import { McpCallError, McpTimeoutError } from '../upstream/mcp/mcp-client';
import { type McpToolDeps, runMcpTool } from './mcp-tools';
import { type RetrievalDeps, searchPassages } from './retrieval';

export interface ToolActivityDeps {
  retrieval: RetrievalDeps;
  files: FileStore;
  runEvents: RunEventStore;
  eventLog: EventLog;
  allowPrivateUrls: boolean;
  /** Where the agents' MCP servers are read from, and what they may reach. */
  mcp: McpToolDeps;
}

export interface CallToolInput {
  ctx: RunContext;
  seq: number;
  step: number;
  call: ToolCall;
  /** null: the model named a tool the run does not offer. */
  binding: ToolBinding | null;
  /** The retry policy's attempts: on the last one an upstream failure is answered, not thrown. */
  maxAttempts: number;
  kbIds: string[];
  contextIds: string[];
  attachmentIds: string[];
}

/** Equal arguments hash equally whatever order the model wrote their keys in. */
const argsHash = (args: unknown) => `sha256:${createHash('sha256').update(canonicalJson(args)).digest('hex')}`;

/** A tool's answer the model reads; `error` answers are fed back too, so the model can adjust. */
type ToolOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: string };

const MAX_RESULT_CHARS = 16_000;

/** Activities that run the tools a model asks for: built-in ones (knowledge search, attachments), skills' HTTP tools and MCP servers' tools. */
export function createToolActivities(deps: ToolActivityDeps) {
  const commonData = (ctx: RunContext) => ({ session_id: ctx.sessionId, trace_id: ctx.traceId, agent_id: ctx.agentId });
  const factKeyOf = (input: CallToolInput) => `${input.ctx.traceId}:${input.step}:${input.call.id}`;
  const recordToolError = (input: CallToolInput, error: string) =>
    deps.eventLog.appendMany([
      newEvent(
        'tool.error',
        input.ctx.tenantId,
        factKeyOf(input),
        { tool_name: input.call.name, error, ...commonData(input.ctx) },
        new Date(),
      ),
    ]);

  async function runBuiltin(input: CallToolInput, name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const { ctx } = input;
    switch (name) {
      case 'search_knowledge': {
        const query = typeof args.query === 'string' ? args.query.trim() : '';
        if (!query) return { ok: false, error: 'arguments.query must be a non-empty string' };
        const topK = Number.isInteger(args.top_k) ? Math.min(10, Math.max(1, args.top_k as number)) : 5;
        const passages = await searchPassages(deps.retrieval, ctx.tenantId, input.kbIds, input.contextIds, query, topK);
        return {
          ok: true,
          result: {
            passages: passages.map(({ index, doc_name, doc_id, content, similarity }) => ({
              index,
              doc_name,
              doc_id,
              content,
              similarity,
            })),
          },
        };
      }
      case 'read_attachment': {
        const fileId = typeof args.file_id === 'string' ? args.file_id : '';
        if (!input.attachmentIds.includes(fileId))
          return {
            ok: false,
            error: `no attachment ${fileId || '(none given)'} in this run; attached: ${input.attachmentIds.join(', ') || 'none'}`,
          };
        const [file] = await deps.files.getTexts(ctx.tenantId, [fileId]);
        return {
          ok: true,
          result: {
            file_id: fileId,
            name: file!.name,
            text: file!.text.slice(0, MAX_RESULT_CHARS),
            truncated: file!.text.length > MAX_RESULT_CHARS,
          },
        };
      }
      case 'current_time':
        return { ok: true, result: { now: new Date().toISOString(), timezone: 'UTC' } };
      default:
        return { ok: false, error: `unknown built-in tool ${name}` };
    }
  }

  async function runHttp(
    input: CallToolInput,
    binding: Extract<ToolBinding, { kind: 'http' }>,
    args: Record<string, unknown>,
  ): Promise<ToolOutcome> {
    const { attempt } = Context.current().info;
    try {
      const answer = await callHttpTool(binding.tool, args, {
        allowPrivateUrls: deps.allowPrivateUrls,
        signal: Context.current().cancellationSignal,
      });
      const body =
        answer.body && typeof answer.body === 'object' && !Array.isArray(answer.body)
          ? (answer.body as Record<string, unknown>)
          : { value: answer.body };
      return { ok: true, result: { status: answer.status, ...body } };
    } catch (err) {
      if (err instanceof ToolTimeoutError) {
        const message = `${input.call.name}: ${err.message}`;
        // The run ends with 30002 after the last attempt; the failure is recorded as tool.error first.
        if (attempt >= input.maxAttempts) await recordToolError(input, message);
        throw ApplicationFailure.retryable(message, 'ToolTimedOut');
      }
      if (err instanceof ToolCallError) {
        // An upstream 5xx is worth another attempt; on the last one the model hears of the failure.
        if ((err.status ?? 0) >= 500 && attempt < input.maxAttempts) throw ApplicationFailure.retryable(err.message, 'ToolUpstreamFailed');
        return { ok: false, error: err.message };
      }
      throw err;
    }
  }

  async function runMcp(
    input: CallToolInput,
    binding: Extract<ToolBinding, { kind: 'mcp' }>,
    args: Record<string, unknown>,
  ): Promise<ToolOutcome> {
    const { attempt } = Context.current().info;
    try {
      return await runMcpTool(deps.mcp, input.ctx, binding, args, Context.current().cancellationSignal);
    } catch (err) {
      if (err instanceof McpTimeoutError) {
        const message = `${input.call.name}: ${err.message}`;
        // As a skill tool's: the run ends with 30002 after the last attempt, recorded as tool.error first.
        if (attempt >= input.maxAttempts) await recordToolError(input, message);
        throw ApplicationFailure.retryable(message, 'ToolTimedOut');
      }
      if (err instanceof McpCallError) {
        // A network failure or a 5xx is worth another attempt; on the last one the model hears of it.
        if (err.retryable && attempt < input.maxAttempts) throw ApplicationFailure.retryable(err.message, 'ToolUpstreamFailed');
        return { ok: false, error: err.message };
      }
      throw err;
    }
  }

  return {
    /**
     * One tool call the model asked for. Records `tool.called` (and `tool.error` when it fails),
     * streams `tool_call` and `tool_result`, and returns the text the model reads back.
     */
    async callTool(input: CallToolInput): Promise<{ content: string; ok: boolean; nextSeq: number }> {
      const { ctx, call, step } = input;
      const read = readToolArguments(call.arguments);
      const args = 'args' in read ? read.args : {};
      let outcome: ToolOutcome | undefined = 'error' in read ? { ok: false, error: read.error } : undefined;
      await deps.eventLog.appendMany([
        newEvent(
          'tool.called',
          ctx.tenantId,
          factKeyOf(input),
          { tool_name: call.name, ...commonData(ctx), args_hash: argsHash(args), step },
          new Date(),
        ),
      ]);
      let seq = input.seq;
      if (recordsEvents(ctx))
        seq = await deps.runEvents.append(ctx.traceId, seq, [{ event: 'tool_call', data: { tool: call.name, args } }], {
          announce: ctx.stream,
        });

      if (!outcome) {
        const binding = input.binding;
        if (!binding) outcome = { ok: false, error: `there is no tool named ${call.name}` };
        else if (binding.kind === 'builtin') outcome = await runBuiltin(input, binding.name, args);
        else if (binding.kind === 'mcp') outcome = await whileHeartbeating(() => runMcp(input, binding, args));
        else outcome = await whileHeartbeating(() => runHttp(input, binding, args));
      }

      const result = outcome.ok ? outcome.result : { error: outcome.error };
      if (!outcome.ok) await recordToolError(input, outcome.error);
      if (recordsEvents(ctx))
        seq = await deps.runEvents.append(ctx.traceId, seq, [{ event: 'tool_result', data: { tool: call.name, result } }], {
          announce: ctx.stream,
        });
      return { content: JSON.stringify(result).slice(0, MAX_RESULT_CHARS), ok: outcome.ok, nextSeq: seq };
    },
  };
}

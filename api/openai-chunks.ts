import { AppError, ErrorCodes } from '../common/errors';
import type { ChatCompletionChunk, FinishReason, OpenAiUsage } from '../common/schemas/openai';
import type { MessageData } from '../common/stream-messages';
import { completionIdOf, finishReasonOf, usageOf } from '../completion/openai-replies';
import { openAiErrorOf } from './openai-errors';
import type { SentEvent, StreamFraming } from './run-event-stream';

/** What every chunk of one completion repeats. */
export interface ChunkStreamOf {
  traceId: string;
  created: number;
  model: string;
  /** `stream_options.include_usage`: `usage: null` on every chunk, and a last one with the run's usage. */
  includeUsage: boolean;
}

const dataLine = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

/**
 * A run's events as OpenAI's `chat.completion.chunk` lines (`data:` only, no event names, then
 * `data: [DONE]`), fed with `message` events in the `delta` format: only new text goes out. A model
 * step whose text starts over (after a tool call) cannot take back what was sent, so its text
 * follows on a new paragraph; the run's last message adds only what it has beyond the text sent.
 * Progress, tool and approval events are not shown: OpenAI's stream has no place for them.
 */
export function openAiChunkFraming(of: ChunkStreamOf): StreamFraming {
  const id = completionIdOf(of.traceId);
  let stepText = '';
  let sentText = false;
  let roleSent = false;
  let failed = false;

  const chunk = (delta: ChatCompletionChunk['choices'][0]['delta'], finish: FinishReason | null): string =>
    dataLine({
      id,
      object: 'chat.completion.chunk',
      created: of.created,
      model: of.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(of.includeUsage ? { usage: null } : {}),
    } satisfies ChatCompletionChunk);

  /** The role opens the first chunk, whatever it carries. */
  const opened = (text: string) => {
    if (roleSent) return text;
    roleSent = true;
    return chunk({ role: 'assistant', content: '' }, null) + text;
  };

  const newText = ({ delta, answer }: MessageData): string => {
    if (delta !== undefined) {
      stepText += delta;
      return delta;
    }
    if (answer === undefined) return '';
    if (answer.startsWith(stepText)) {
      const added = answer.slice(stepText.length);
      stepText = answer;
      return added;
    }
    stepText = answer;
    return sentText ? `\n\n${answer}` : answer;
  };

  const usageChunk = (usage: OpenAiUsage) =>
    dataLine({
      id,
      object: 'chat.completion.chunk',
      created: of.created,
      model: of.model,
      choices: [],
      usage,
    } satisfies ChatCompletionChunk);

  return {
    frame({ event, data }: SentEvent): string {
      switch (event) {
        case 'thinking':
          return (data as { phase?: string }).phase === 'accepted' ? opened('') : '';
        case 'message': {
          const text = newText(data);
          if (text === '') return '';
          sentText = true;
          return opened(chunk({ content: text }, null));
        }
        case 'error': {
          failed = true;
          const { code, message } = data as { code: number; message: string };
          const known = Object.values(ErrorCodes).includes(code as never) ? (code as AppError['code']) : ErrorCodes.INTERNAL;
          return dataLine(openAiErrorOf(new AppError(known, message), of.traceId));
        }
        case 'done': {
          if (failed) return 'data: [DONE]\n\n';
          const { stop_reason: stopReason, cost } = data as { stop_reason?: string; cost?: Parameters<typeof usageOf>[0] };
          const finish = opened(chunk({}, finishReasonOf(stopReason)));
          return `${finish}${of.includeUsage ? usageChunk(usageOf(cost)) : ''}data: [DONE]\n\n`;
        }
        default:
          return '';
      }
    },
  };
}

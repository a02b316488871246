import type { CompletionReply, Cost } from '../common/schemas/completions';
import type { ChatCompletion, FinishReason, OpenAiUsage } from '../common/schemas/openai';

/** A run's stop reason as OpenAI's finish reason: a run cut short by its limits is `length`. */
export const finishReasonOf = (stopReason: string | undefined): FinishReason =>
  stopReason === 'step_limit' || stopReason === 'token_limit' ? 'length' : 'stop';

/** A run's cost as OpenAI's usage (a run without the split counts its tokens in the total only). */
export const usageOf = (cost: Pick<Cost, 'tokens' | 'input_tokens' | 'output_tokens'> | undefined): OpenAiUsage => ({
  prompt_tokens: cost?.input_tokens ?? 0,
  completion_tokens: cost?.output_tokens ?? 0,
  total_tokens: cost?.tokens ?? 0,
});

/** The id of a run's completion and chunks: the trace id, under OpenAI's prefix. */
export const completionIdOf = (traceId: string) => `chatcmpl-${traceId}`;

/** A run's reply as OpenAI's chat completion of `model` (the agent id asked for). */
export const completionOf = (reply: CompletionReply, model: string, created: number): ChatCompletion => ({
  id: completionIdOf(reply.trace_id),
  object: 'chat.completion',
  created,
  model,
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: reply.answer, refusal: null },
      logprobs: null,
      finish_reason: finishReasonOf(reply.stop_reason),
    },
  ],
  usage: usageOf(reply.cost),
});

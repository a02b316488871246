import { ChatModelError } from '../../common/chat-model';
import { AppError, ErrorCodes } from '../../common/errors';
import type { ProviderConnection } from '../../common/model-provider';
import type { ModelChats } from './model-chats';

export interface ProviderCheckResult {
  latencyMs: number;
  /** The model that answered, as the provider named it. */
  model: string;
}

/**
 * The smallest call a provider allows: one short user message, one token of answer, no retry.
 * Its latency is the whole round trip; any failure is 30001 with the upstream's own explanation.
 */
export const createProviderCheck =
  (chats: Pick<ModelChats, 'forConnection'>) =>
  async (connection: ProviderConnection, model: string): Promise<ProviderCheckResult> => {
    const started = performance.now();
    try {
      const result = await chats
        .forConnection(connection)
        .complete({ model, messages: [{ role: 'user', content: 'ping' }], maxTokens: 1 }, { stream: false });
      return { latencyMs: Math.round(performance.now() - started), model: result.model };
    } catch (err) {
      if (!(err instanceof ChatModelError)) throw err;
      throw new AppError(ErrorCodes.LLM_FAILED, err.message, { ...(err.status !== undefined ? { upstream_status: err.status } : {}) });
    }
  };

import { type AppError, ErrorCodes } from '../common/errors';
import type { OpenAiError } from '../common/schemas/openai';

/** Paths whose callers are OpenAI clients: their errors use OpenAI's body, whatever raised them. */
export const isOpenAiPath = (path: string) => path === '/v1/openai' || path.startsWith('/v1/openai/');

/** OpenAI's `code` for the contract's codes it has one for (by HTTP status the clients raise their typed errors). */
function codeOf(error: AppError): string | null {
  switch (error.code) {
    case ErrorCodes.UNAUTHENTICATED:
      return 'invalid_api_key';
    case ErrorCodes.FORBIDDEN:
      return 'insufficient_permissions';
    case ErrorCodes.NOT_FOUND:
      return error.details?.resource === 'model' ? 'model_not_found' : 'not_found';
    case ErrorCodes.CONFLICT:
      return error.details?.running_trace_id !== undefined ? 'session_busy' : 'conflict';
    case ErrorCodes.RATE_LIMITED:
      return 'rate_limit_exceeded';
    case ErrorCodes.LLM_FAILED:
      return 'model_error';
    case ErrorCodes.TOOL_TIMEOUT:
      return 'tool_timeout';
    default:
      return null;
  }
}

function typeOf(error: AppError): string {
  if (error.code === ErrorCodes.RATE_LIMITED) return 'requests';
  return error.httpStatus >= 500 ? 'server_error' : 'invalid_request_error';
}

/** `body.messages.0.content` as OpenAI names the parameter: `messages.0.content`. */
const paramOf = (error: AppError): string | null => {
  const field = error.details?.field;
  return typeof field === 'string' ? field.replace(/^body\./, '') : null;
};

/** An error as OpenAI's body: `type`, `param` and `code` as OpenAI gives them, plus the contract's code and the trace id. */
export const openAiErrorOf = (error: AppError, traceId: string): OpenAiError => ({
  error: {
    message: error.message,
    type: typeOf(error),
    param: paramOf(error),
    code: codeOf(error),
    combo_code: error.code,
    trace_id: traceId,
  },
});

/**
 * Whether OpenAI's clients may send the request again: they retry 408, 409, 429 and 5xx unless told
 * `x-should-retry: false`. A run's own failure (the model after its retries, a tool's timeout, the
 * service) ran the agent already, tools included: running it again is the caller's choice. A busy
 * session and the rate limit pass.
 */
export const retryableByOpenAiClients = (error: AppError): boolean =>
  error.code === ErrorCodes.RATE_LIMITED || (error.code === ErrorCodes.CONFLICT && error.details?.running_trace_id !== undefined);

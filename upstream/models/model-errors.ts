import {
  APICallError,
  InvalidArgumentError,
  InvalidMessageRoleError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  LoadSettingError,
  NoSuchModelError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from 'ai';
import { ChatModelError } from '../../common/chat-model';
import { UnsafeUrlError } from '../../common/net/url-guard';
import { errorText, networkCode, upstreamMessage } from '../upstream-text';

interface ErrorContext {
  /** `chat model upstream <host>`: the start of every message. */
  who: string;
  /** Removes keys and cuts to a readable length. */
  safe: (message: string) => string;
  timedOut: boolean;
  timeoutMs: number;
}

const causeOf = (err: unknown): unknown => (err as { cause?: unknown } | null)?.cause;

const isRefusedBeforeSending = (err: unknown): boolean =>
  [
    UnsupportedFunctionalityError,
    InvalidPromptError,
    InvalidArgumentError,
    InvalidMessageRoleError,
    NoSuchModelError,
    LoadAPIKeyError,
    LoadSettingError,
  ].some((kind) => kind.isInstance(err));

/** undici's socket errors, or fetch's TypeError around one: a code names the network's reason. */
const isNetworkFailure = (err: unknown): boolean =>
  typeof (err as { code?: unknown } | null)?.code === 'string' || typeof (causeOf(err) as { code?: unknown } | null)?.code === 'string';

/**
 * What went wrong in a model call, as the activity's retry decision needs it: 429, 5xx, network
 * trouble, timeouts and answers that do not parse are worth another attempt; any other 4xx and a
 * refused address are not (the request, key or configuration is wrong).
 */
export function chatErrorOf(err: unknown, { who, safe, timedOut, timeoutMs }: ErrorContext): ChatModelError {
  if (timedOut) return new ChatModelError(`${who} did not answer within ${timeoutMs} ms`, true);
  if (err instanceof ChatModelError) return err;
  const unsafe =
    err instanceof UnsafeUrlError ? err : causeOf(err) instanceof UnsafeUrlError ? (causeOf(err) as UnsafeUrlError) : undefined;
  if (unsafe) return new ChatModelError(`${who} is not allowed: ${unsafe.message}`, false);
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    if (status === undefined) return new ChatModelError(`${who} could not be reached (${networkCode(causeOf(err) ?? err)})`, true);
    // A 2xx whose body broke off or could not be read: the upstream's momentary trouble.
    if (status < 300 && isNetworkFailure(causeOf(err)))
      return new ChatModelError(`${who} broke the connection while answering (${networkCode(causeOf(err))})`, true, status);
    if (status < 300) return new ChatModelError(`${who} answered with a body that is not JSON`, true, status);
    const detail = safe(upstreamMessage(err.responseBody ?? err.message));
    return new ChatModelError(`${who} answered HTTP ${status}${detail ? `: ${detail}` : ''}`, status === 429 || status >= 500, status);
  }
  // Refused by the SDK before anything was sent: the call as asked cannot work with this provider or model.
  if (isRefusedBeforeSending(err)) return new ChatModelError(`${who} cannot take this call: ${safe((err as Error).message)}`, false);
  if (JSONParseError.isInstance(err)) return new ChatModelError(`${who} sent a stream event that is not JSON`, true);
  if (TypeValidationError.isInstance(err) || InvalidResponseDataError.isInstance(err))
    return new ChatModelError(`${who} answered in a shape its API does not define: ${safe(err.message)}`, true);
  // Errors of Node's own realm fail `instanceof Error` under some runners (and the SDK's own checks then): duck-typed.
  const error = err as { name?: unknown; message?: unknown; stack?: unknown } | null;
  const isError = err instanceof Error || typeof error?.stack === 'string';
  // A provider's error object inside a stream (`{"error": {...}}` frames): the model's trouble, not ours.
  if (!isError) return new ChatModelError(`${who} reported an error mid-stream: ${safe(errorText(err))}`, true);
  const message = typeof error?.message === 'string' ? error.message : '';
  // fetch's "fetch failed" (no connection) and undici's "terminated" (a connection broken while reading).
  if (error?.name === 'TypeError' && message === 'fetch failed')
    return new ChatModelError(`${who} could not be reached (${networkCode(err)})`, true);
  if (error?.name === 'TypeError' && message === 'terminated')
    return new ChatModelError(`${who} broke the connection while answering (${networkCode(err)})`, true);
  return new ChatModelError(`${who} failed: ${safe(message)}`, true);
}

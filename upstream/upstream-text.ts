/**
 * Turning an HTTP upstream's failure into a message that is safe to show: the upstream's own
 * explanation, without keys, with only the host named, cut to a readable length.
 */
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An `error` field as text: a string, or an object's message, else its JSON. */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isObject(error) && typeof error['message'] === 'string') return error['message'];
  return JSON.stringify(error) ?? 'unknown error';
}

/** The upstream's own explanation: OpenAI's error.message, Cohere's message, a detail, or the raw text. */
export function upstreamMessage(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (isObject(body)) {
      const candidates = [body['error'] !== undefined ? errorText(body['error']) : undefined, body['message'], body['detail']];
      const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
      if (found) return found;
    }
  } catch {
    // not JSON: the text itself
  }
  return text;
}

/** One line, at most `max` characters. */
export function truncate(message: string, max: number): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * Upstreams sometimes quote the key they were given (OpenAI's 401 shows a masked form of it).
 * Remove the exact key and anything shaped like one.
 */
export function redact(message: string, apiKey: string | undefined): string {
  let safe = message;
  if (apiKey) safe = safe.split(apiKey).join('[redacted]');
  return safe.replace(/\b(?:sk|pk|rk|key|api|jina)[-_][A-Za-z0-9*_.-]{6,}/gi, '[redacted]');
}

/** Only the host goes into messages: the full URL may carry credentials or a key parameter. */
export function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : undefined;
  } catch {
    return undefined;
  }
}

// Duck-typed: fetch's errors come from Node's own realm, where `instanceof Error` may not hold
// (DOMException under some test runners).
export function isTimeout(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

/** ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET...: fetch hides the reason in `cause`, undici's request does not. */
export function networkCode(err: unknown): string {
  const { cause, code, name } = (err ?? {}) as { cause?: { code?: unknown }; code?: unknown; name?: unknown };
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof code === 'string') return code;
  return typeof name === 'string' ? name : 'unknown error';
}

/** The sign-in exchange: an API key (or a console token, to renew it) for a short-lived console token. */
import { Combo, type ConsoleToken } from '@combo/client';

export type { ConsoleToken };

/** A client of its own for the one call: the bearer here is the key being exchanged, not the session's token. */
export function exchangeConsoleToken(baseURL: string, bearer: string, signal?: AbortSignal): Promise<ConsoleToken> {
  const client = new Combo({ baseURL, apiKey: bearer, maxRetries: 1, timeout: 30_000 });
  return client.auth.consoleToken({}, { signal });
}

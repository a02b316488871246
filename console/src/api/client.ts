/** The official client for the signed-in session: one per console token, renewed with it. */
import { Combo } from '@combo/client';
import { createContext, useContext } from 'react';

/** The API is the origin that served the console (`/console` and `/v1` are the same service). */
export const apiBaseURL = (): string => window.location.origin;

export function createClient(token: string): Combo {
  return new Combo({ baseURL: apiBaseURL(), apiKey: token, maxRetries: 1, timeout: 60_000 });
}

export const ApiContext = createContext<Combo | null>(null);

/** The client of the signed-in session (only inside the signed-in shell). */
export function useApi(): Combo {
  const client = useContext(ApiContext);
  if (!client) throw new Error('useApi outside a signed-in session');
  return client;
}

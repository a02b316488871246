/**
 * TEMPORARY: calls and fields the official client (`@combo/client`) does not have yet. The lead
 * replaces this file once the client is regenerated (`npm run clients:generate`) with the console
 * token exchange and personal API keys in it; nothing else in the console calls the API around
 * the client. Each function below is then one client call:
 *
 * - `exchangeConsoleToken`  → the generated `POST /v1/auth/console-token` method
 * - `OwnedApiKey`, `ApiKeyListParams` → the regenerated `ApiKey` (with `owner_id`) and list params
 * - `fetchCostsToday` → `client.costs.get({ group_by: 'day', since, until })` (the service has it; the client not yet)
 */
import { type ApiKey, type ApiKeysListParams, Combo, type CostSummary } from '@combo/client';

/** `POST /v1/auth/console-token`: a short-lived JWT for an API key (or for a console token, to renew it). */
export interface ConsoleToken {
  token: string;
  token_type: 'Bearer';
  /** ISO 8601 */
  expires_at: string;
  expires_in: number;
  tenant_id: string;
  user_id: string;
  roles: string[];
  key_id: string;
}

/** Exchanges `bearer` (an API key, or a console token to renew) through the client's request machinery (envelope, typed errors). */
export function exchangeConsoleToken(baseURL: string, bearer: string, signal?: AbortSignal): Promise<ConsoleToken> {
  const client = new Combo({ baseURL, apiKey: bearer, maxRetries: 1, timeout: 30_000 });
  return client.request<ConsoleToken>({ method: 'POST', path: '/v1/auth/console-token', body: {} }, { signal });
}

/** API keys are personal: each names its owner (older servers answer keys without it). */
export type OwnedApiKey = ApiKey & { owner_id?: string };

/** `GET /v1/api-keys` with the admins' `owner_id` filter. */
export type ApiKeyListParams = ApiKeysListParams & { owner_id?: string };

export function listApiKeys(client: Combo, params: ApiKeyListParams) {
  return client.apiKeys.list(params);
}

/** `GET /v1/costs` with `group_by=day`: the current period's summary and today's (UTC) group. */
export interface CostsToday {
  summary: CostSummary;
  today: { day: string; tokens: number; runs: number };
}

export async function fetchCostsToday(client: Combo, now = new Date()): Promise<CostsToday> {
  const day = now.toISOString().slice(0, 10);
  const tomorrow = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
  const report = await client.request<CostSummary & { groups?: Array<{ day?: string; tokens: number; runs: number }> }>({
    method: 'GET',
    path: '/v1/costs',
    query: { group_by: 'day', since: day, until: tomorrow },
  });
  // Days without runs are left out of the groups.
  const group = report.groups?.find((g) => g.day === day);
  return { summary: report, today: { day, tokens: group?.tokens ?? 0, runs: group?.runs ?? 0 } };
}

import { invalid } from '../../common/errors';
import {
  costQuery,
  costReport,
  costSummary,
  DEFAULT_COST_RANGE_DAYS,
  MAX_COST_RANGE_DAYS,
  setThresholdBody,
} from '../../common/schemas/costs';
import type { CostGrouping } from '../../stores/cost-runs';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Costs';
const DAY_MS = 86_400_000;

/** The range of costs by agent or by day: `until` now and `since` DEFAULT_COST_RANGE_DAYS before it unless given. */
function rangeOf(query: { since?: string; until?: string }, now: Date): { since: Date; until: Date } {
  const until = query.until !== undefined ? new Date(query.until) : now;
  const since = query.since !== undefined ? new Date(query.since) : new Date(until.getTime() - DEFAULT_COST_RANGE_DAYS * DAY_MS);
  if (since.getTime() >= until.getTime()) throw invalid('query.until: must be after since', { field: 'query.until' });
  if (until.getTime() - since.getTime() > MAX_COST_RANGE_DAYS * DAY_MS) {
    const field = query.since !== undefined ? 'query.since' : 'query.until';
    throw invalid(`${field}: since to until spans at most ${MAX_COST_RANGE_DAYS} days`, { field });
  }
  return { since, until };
}

export const costRoutes = ({ commands: { costs } }: Services) => [
  defineRoute({
    method: 'get',
    path: '/v1/costs',
    operationId: 'getCosts',
    tag,
    summary: "The tenant's completion costs in a period, and its threshold; optionally by agent or by day",
    description:
      `Tokens (in all, input and output), money and durations of the completion runs recorded in the period (${costs.periodUnit === 'day' ? 'a UTC day, `YYYY-MM-DD`' : 'a UTC calendar month, `YYYY-MM`'}; the current ` +
      'one unless `period` is given). A run counts once, in the period it ended in; the worker adds a finished run within ' +
      'COST_AGGREGATE_INTERVAL_MS (default 0.5 s) of its end.\n\n' +
      '`group_by` adds, beside that summary, the runs that ended from `since` (inclusive) to `until` (exclusive) summed per ' +
      '`agent` or per `day` (UTC days, `YYYY-MM-DD`; days without runs are not listed), with `group_by`, `since` and `until` ' +
      `as applied. \`until\` defaults to now and \`since\` to ${DEFAULT_COST_RANGE_DAYS} days before it; each is an ISO 8601 timestamp ` +
      `or a date (its 00:00 UTC, so \`since=2026-11-01&until=2026-12-01\` is November). At most ${MAX_COST_RANGE_DAYS} days; ` +
      '`since` must be before `until` (10001 naming the field), and `since` / `until` need `group_by`. Runs record their agent ' +
      'since this was added: older ones count under `agent_id` null. Without `group_by` the reply is the summary alone, as before.',
    query: costQuery,
    response: costReport,
    handler: async ({ principal, query }) => {
      if (query.period !== undefined && !costs.isPeriod(query.period)) {
        throw invalid(`query.period: periods here are ${costs.periodUnit === 'day' ? 'days, YYYY-MM-DD' : 'months, YYYY-MM'}`, {
          field: 'query.period',
        });
      }
      if (!query.group_by) {
        const stray = query.since !== undefined ? 'query.since' : query.until !== undefined ? 'query.until' : undefined;
        if (stray) throw invalid(`${stray}: only with group_by (agent or day)`, { field: stray });
        return costs.summary(principal.tenantId, query.period);
      }
      const grouping: CostGrouping = { by: query.group_by, ...rangeOf(query, new Date()) };
      const [summary, groups] = await Promise.all([
        costs.summary(principal.tenantId, query.period),
        costs.groups(principal.tenantId, grouping),
      ]);
      return { ...summary, group_by: grouping.by, since: grouping.since.toISOString(), until: grouping.until.toISOString(), groups };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/costs/threshold',
    operationId: 'setCostThreshold',
    tag,
    access: 'admin',
    summary: "Set the tenant's threshold per period, in tokens, in money or both",
    description:
      "When a period's tokens reach `threshold_tokens`, `cost.threshold_exceeded` is recorded once for that period " +
      '(data: tenant_id, period, amount (the tokens), threshold, unit `tokens`); when its money (`amount`, at the prices configured ' +
      "for the runs' models) reaches `threshold_amount`, once more with unit `amount` (data `amount`: the money). A period already " +
      'over a newly set threshold records it now. Each field given is set, each left out stays as it was (at least one is required); ' +
      '`null` turns that threshold off for the tenant, the installation default (COST_THRESHOLD_TOKENS, COST_THRESHOLD_AMOUNT) included. ' +
      "Replies with the current period's summary.",
    body: setThresholdBody,
    response: costSummary,
    handler: ({ principal, body }) =>
      costs.setThreshold(principal.tenantId, { tokens: body.threshold_tokens, amount: body.threshold_amount }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/costs/threshold',
    operationId: 'resetCostThreshold',
    tag,
    access: 'admin',
    summary: "Remove the tenant's own threshold: the installation default applies again",
    description:
      'Undoes PUT /v1/costs/threshold (a number or `null`, in either unit): the installation defaults (COST_THRESHOLD_TOKENS, ' +
      'COST_THRESHOLD_AMOUNT) apply, or no threshold when there is none (`threshold_source` and `threshold_amount_source` say ' +
      "which). A period already over one records the event now. Replies with the current period's summary.",
    response: costSummary,
    handler: ({ principal }) => costs.clearThreshold(principal.tenantId),
  }),
];

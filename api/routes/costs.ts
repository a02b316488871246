import { invalid } from '../../common/errors';
import { costQuery, costSummary, setThresholdBody } from '../../common/schemas/costs';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Costs';

export const costRoutes = ({ costs }: Services) => [
  defineRoute({
    method: 'get',
    path: '/v1/costs',
    operationId: 'getCosts',
    tag,
    summary: "The tenant's completion costs in a period, and its threshold",
    description:
      `Tokens and durations of the completion runs recorded in the period (${costs.periodUnit === 'day' ? 'a UTC day, `YYYY-MM-DD`' : 'a UTC calendar month, `YYYY-MM`'}; the current ` +
      'one unless `period` is given). A run counts once, in the period it ended in; the worker adds a finished run within ' +
      'COST_AGGREGATE_INTERVAL_MS (default 0.5 s) of its end.',
    query: costQuery,
    response: costSummary,
    handler: ({ principal, query }) => {
      if (query.period !== undefined && !costs.isPeriod(query.period)) {
        throw invalid(`query.period: periods here are ${costs.periodUnit === 'day' ? 'days, YYYY-MM-DD' : 'months, YYYY-MM'}`, {
          field: 'query.period',
        });
      }
      return costs.summary(principal.tenantId, query.period);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/costs/threshold',
    operationId: 'setCostThreshold',
    tag,
    access: 'admin',
    summary: "Set the tenant's token threshold per period",
    description:
      "When a period's tokens reach the threshold, `cost.threshold_exceeded` is recorded once for that period " +
      '(data: tenant_id, period, amount, threshold, unit `tokens`); a period already over a newly set threshold records it now. ' +
      '`null` turns the threshold off for the tenant, the installation default (COST_THRESHOLD_TOKENS) included. ' +
      "Replies with the current period's summary.",
    body: setThresholdBody,
    response: costSummary,
    handler: ({ principal, body }) => costs.setThreshold(principal.tenantId, body.threshold_tokens),
  }),
];

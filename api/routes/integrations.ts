import { deletedResult, namedPageQuery } from '../../common/schemas/common';
import {
  createIntegrationBody,
  integration,
  integrationPage,
  integrationParams,
  integrationWithSecret,
  rotateIntegrationBody,
} from '../../common/schemas/integrations';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Integrations';

const howInboundCallsAreSigned =
  'The sending system (or the relay in front of it) POSTs its JSON to `webhook_url`: the inbound path with ' +
  '`?integration_id=<integration_id>` (most systems let the URL carry a query; GitHub, GitLab and Gerrit do). An ' +
  '`X-Combo-Integration: <integration_id>` header is accepted instead. Each call carries X-Combo-Event-Id, ' +
  'X-Combo-Timestamp (Unix seconds, within INBOUND_TIMESTAMP_TOLERANCE_S, default 300, of the server clock) and ' +
  'X-Combo-Signature: `sha256=` + lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the secret.';

export const integrationRoutes = ({ integrations }: Services) => [
  defineRoute({
    method: 'post',
    path: '/v1/integrations',
    operationId: 'createIntegration',
    tag,
    access: 'admin',
    summary: 'Set up inbound webhooks from one system (channel)',
    description:
      `Generates the shared secret inbound calls of this channel are signed with; it is shown in this reply only. ${howInboundCallsAreSigned} ` +
      'A tenant may have several integrations of one channel (two GitHub organisations, each with its own secret); an event ' +
      'trigger naming `integration_id` hears only its own, one without hears them all.',
    body: createIntegrationBody,
    response: integrationWithSecret,
    handler: ({ principal, body }) => integrations.create(principal.tenantId, body),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/integrations',
    operationId: 'listIntegrations',
    tag,
    access: 'admin',
    summary: "List the tenant's integrations (without secrets)",
    query: namedPageQuery,
    response: integrationPage,
    handler: ({ principal, query }) => integrations.list(principal.tenantId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/integrations/{integration_id}',
    operationId: 'getIntegration',
    tag,
    access: 'admin',
    summary: 'Get one integration (without its secret)',
    params: integrationParams,
    response: integration,
    handler: ({ principal, params }) => integrations.get(principal.tenantId, params.integration_id),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/integrations/{integration_id}',
    operationId: 'deleteIntegration',
    tag,
    access: 'admin',
    summary: 'Delete an integration',
    description: 'Inbound calls naming it are refused (10002) from now on.',
    params: integrationParams,
    response: deletedResult,
    handler: async ({ principal, params }) => {
      await integrations.delete(principal.tenantId, params.integration_id);
      return { deleted: true as const };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/integrations/{integration_id}/rotate',
    operationId: 'rotateIntegrationSecret',
    tag,
    access: 'admin',
    summary: 'Replace the shared secret',
    description:
      'Generates a new secret, shown in this reply only, which verifies at once. The replaced secret keeps verifying for ' +
      '`grace_seconds` (default 3600, 0 to stop at once) so the sender can be switched over; a secret replaced earlier ' +
      'stops verifying now.',
    params: integrationParams,
    body: rotateIntegrationBody,
    response: integrationWithSecret,
    handler: ({ principal, params, body }) => integrations.rotate(principal.tenantId, params.integration_id, body.grace_seconds),
  }),
];

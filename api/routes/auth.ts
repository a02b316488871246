import { forbidden } from '../../common/errors';
import { consoleToken, consoleTokenBody } from '../../common/schemas/api-keys';
import { defineRoute } from '../route';
import type { Services } from '../services';

export const authRoutes = ({ consoleTokens }: Services) => [
  defineRoute({
    method: 'post',
    path: '/v1/auth/console-token',
    operationId: 'createConsoleToken',
    tag: 'API keys',
    summary: 'Exchange an API key (or a console token, to renew it) for a short-lived console token',
    description:
      'The web console signs in with this: it sends an API key once and keeps the answered JWT in memory, calling again with the token ' +
      'before `expires_at` to renew it. The token carries the tenant, the key owner as subject, the roles and the key it came from; ' +
      'revoking that key ends every token made from it. Signed with a key the service manages (CONSOLE_TOKEN_SIGNING_KEY or one it generates), ' +
      "independent of JWT_SECRET / JWT_PUBLIC_KEY. An identity provider's token is not exchanged (10003): the console can use it as it is.",
    body: consoleTokenBody,
    response: consoleToken,
    handler: ({ principal }) => {
      if (principal.keyId === undefined)
        throw forbidden("console tokens are made from an API key; use the identity provider's token as it is");
      return consoleTokens.issue({
        tenantId: principal.tenantId,
        userId: principal.ownerId,
        role: principal.role,
        keyId: principal.keyId,
        keyExpiresAt: principal.keyExpiresAt ?? null,
      });
    },
  }),
];

import { z } from 'zod';
import { deletedResult, pageOf, pageQuery, resourceId } from '../../common/schemas/common';
import {
  createSubscriptionBody,
  deadLetterQuery,
  delivery,
  deliveryId,
  deliveryPage,
  deliveryQuery,
  replayBody,
  replayStarted,
  rotateSecretBody,
  subscription,
  subscriptionId,
  subscriptionWithSecret,
  updateSubscriptionBody,
} from '../../common/schemas/webhooks';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Outbound webhooks';
const subscriptionParams = z.object({ subscription_id: subscriptionId }).strict();
const deliveryParams = z.object({ delivery_id: deliveryId }).strict();
const replayParams = z.object({ replay_id: resourceId('rpl', 'replay id') }).strict();
const subscriptionPage = pageOf(subscription, 'WebhookSubscriptionPage');

export const webhookRoutes = ({ webhooks, commands }: Services) => {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/webhook/subscriptions',
      operationId: 'createWebhookSubscription',
      tag,
      access: 'admin',
      summary: 'Subscribe a URL to outbound events',
      description:
        'Every event of the tenant named in `events` is POSTed to `url` with the headers X-Combo-Signature ' +
        '(`sha256=` + hex HMAC-SHA256 of "<timestamp>.<raw body>" with the secret), X-Combo-Timestamp (Unix seconds) and ' +
        'X-Combo-Event-Id. A 2xx within 2 s is success; otherwise attempts follow 30 s, 2 min, 10 min and 1 h after each ' +
        'failure, then the delivery goes to the dead-letter queue. The secret is shown in this reply only. With `signing: ' +
        'standard_webhooks`, deliveries also carry the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and ' +
        '`webhook-signature`, which the standardwebhooks libraries verify.',
      body: createSubscriptionBody,
      response: subscriptionWithSecret,
      handler: ({ principal, body }) => commands.subscriptions.create(principal.tenantId, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook/subscriptions',
      operationId: 'listWebhookSubscriptions',
      tag,
      access: 'admin',
      summary: "List the tenant's subscriptions (without secrets)",
      query: pageQuery,
      response: subscriptionPage,
      handler: ({ principal, query }) => webhooks.listSubscriptions(principal.tenantId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook/subscriptions/{subscription_id}',
      operationId: 'getWebhookSubscription',
      tag,
      access: 'admin',
      summary: 'Get one subscription',
      params: subscriptionParams,
      response: subscription,
      handler: ({ principal, params }) => webhooks.getSubscription(principal.tenantId, params.subscription_id),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/webhook/subscriptions/{subscription_id}',
      operationId: 'updateWebhookSubscription',
      tag,
      access: 'admin',
      summary: 'Update a subscription (fields present replace the stored ones)',
      params: subscriptionParams,
      body: updateSubscriptionBody,
      response: subscription,
      handler: ({ principal, params, body }) => commands.subscriptions.update(principal.tenantId, params.subscription_id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhook/subscriptions/{subscription_id}',
      operationId: 'deleteWebhookSubscription',
      tag,
      access: 'admin',
      summary: 'Delete a subscription',
      description: 'Deliveries still waiting for a retry end without another attempt.',
      params: subscriptionParams,
      response: deletedResult,
      handler: async ({ principal, params }) => {
        await webhooks.deleteSubscription(principal.tenantId, params.subscription_id);
        return { deleted: true as const };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook/subscriptions/{subscription_id}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      tag,
      access: 'admin',
      summary: 'Replace the signing secret',
      description:
        'Generated when the body names none; shown in this reply only. Attempts starting 2 s from now on sign with it. With ' +
        '`grace_seconds`, attempts until the grace ends carry both signatures, `X-Combo-Signature: sha256=<new>,sha256=<old>`, ' +
        'then the new one alone (`previous_secret_valid_until` says until when); a secret replaced by an earlier rotation stops at once. ' +
        'With `standard_webhooks` signing, `webhook-signature` likewise carries `v1,<new> v1,<old>`, and a given secret must be ' +
        '`whsec_` + base64 of 24-64 bytes (10001 otherwise).',
      params: subscriptionParams,
      body: rotateSecretBody,
      response: subscriptionWithSecret,
      handler: ({ principal, params, body }) =>
        webhooks.rotateSecret(principal.tenantId, params.subscription_id, { secret: body.secret, graceSeconds: body.grace_seconds }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook/subscriptions/{subscription_id}/test',
      operationId: 'testWebhookSubscription',
      tag,
      access: 'admin',
      summary: 'Send a test event',
      description:
        'Delivers a `webhook.test` event (data: `subscription_id`, `message`) to this subscription only, on the usual schedule. Poll the returned delivery.',
      params: subscriptionParams,
      response: delivery,
      handler: ({ ctx, principal, params }) => commands.webhooks.sendTest(principal.tenantId, params.subscription_id, ctx.state.traceId),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook/subscriptions/{subscription_id}/deliveries',
      operationId: 'listSubscriptionDeliveries',
      tag,
      access: 'admin',
      summary: "A subscription's deliveries with every attempt, newest first",
      params: subscriptionParams,
      query: pageQuery,
      response: deliveryPage,
      handler: ({ principal, params, query }) => commands.subscriptions.deliveries(principal.tenantId, params.subscription_id, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook/deliveries',
      operationId: 'listWebhookDeliveries',
      tag,
      access: 'admin',
      summary: 'Deliveries with every attempt (status, latency, error), filterable by event, subscription, status and time',
      query: deliveryQuery,
      response: deliveryPage,
      handler: ({ principal, query }) => webhooks.listDeliveries(principal.tenantId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook/deliveries/{delivery_id}',
      operationId: 'getWebhookDelivery',
      tag,
      access: 'admin',
      summary: 'One delivery with every attempt',
      params: deliveryParams,
      response: delivery,
      handler: ({ principal, params }) => webhooks.getDelivery(principal.tenantId, params.delivery_id),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook/dead-letters',
      operationId: 'listDeadLetters',
      tag,
      access: 'admin',
      summary: 'The dead-letter queue: deliveries whose five attempts all failed',
      description:
        'Newest first. A letter stays here once replayed by hand, its `replayed_by` naming the replay; `replayed=false` lists those still to handle.',
      query: deadLetterQuery,
      response: deliveryPage,
      handler: ({ principal, query }) =>
        webhooks.listDeliveries(principal.tenantId, {
          ...query,
          status: 'dead',
          replayed: query.replayed === undefined ? undefined : query.replayed === 'true',
        }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook/dead-letters/{delivery_id}/replay',
      operationId: 'replayDeadLetter',
      tag,
      access: 'admin',
      summary: 'Replay a dead letter by hand',
      description:
        'A new delivery of the same event (same `event_id`) to the same subscription, with a fresh schedule; the letter ' +
        'stays in the queue with `replayed_by` naming it. Replaying one dead letter twice returns the same replay. 10005 when ' +
        'the delivery is not dead.',
      params: deliveryParams,
      response: delivery,
      handler: ({ ctx, principal, params }) =>
        commands.webhooks.replayDeadLetter(principal.tenantId, params.delivery_id, ctx.state.traceId),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook/replays',
      operationId: 'replayWebhookEvents',
      tag,
      access: 'admin',
      summary: 'Replay historical events by time range',
      description:
        "Re-delivers the tenant's recorded events with `since` <= timestamp < `until` (optionally only some event names or one subscription) to the subscriptions that ask for them, with their original `event_id`s. Runs as a Temporal workflow; poll GET /v1/webhook/replays/{replay_id}.",
      body: replayBody,
      response: replayStarted,
      handler: ({ principal, body }) => commands.webhooks.startReplay(principal.tenantId, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook/replays/{replay_id}',
      operationId: 'getWebhookReplay',
      tag,
      access: 'admin',
      summary: 'Progress of a historical replay',
      params: replayParams,
      response: replayStarted,
      handler: ({ principal, params }) => commands.webhooks.replayStatus(principal.tenantId, params.replay_id),
    }),
  ];
};

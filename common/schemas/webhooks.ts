import { z } from 'zod';
import { eventName } from '../events';
import { isStandardWebhooksSecret, STANDARD_WEBHOOKS_SECRET_RULE } from '../standard-webhooks-secret';
import { isoDate, pageOf, pageQuery, resourceId } from './common';

export const subscriptionId = resourceId('whs', 'webhook subscription id');
export const deliveryId = z
  .string()
  .regex(/^dlv_[A-Za-z0-9]{1,64}$/, 'must be a dlv_ id')
  .meta({ description: 'delivery id' });

const secret = z
  .string()
  .min(16, 'at least 16 characters')
  .max(256)
  .meta({
    description:
      'shared signing secret; generated when absent (`whsec_` + random characters; with `standard_webhooks` signing, `whsec_` + base64 ' +
      'of 32 random bytes). Shown only in the reply that sets it.',
  });

const webhookSigning = z.enum(['combo', 'standard_webhooks']).meta({
  id: 'WebhookSigning',
  description:
    'how deliveries are signed. `combo` (the default): the X-Combo-Signature headers alone. `standard_webhooks`: also the ' +
    'Standard Webhooks headers (https://www.standardwebhooks.com) `webhook-id` (the event id), `webhook-timestamp` and ' +
    '`webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, space-separated during a rotation\'s ' +
    `grace), so consumers can verify with a standardwebhooks library. The secret must then be ${STANDARD_WEBHOOKS_SECRET_RULE} ` +
    '(generated secrets are); an existing subscription switches only when its secret already is (rotate-secret gives one)',
});

const events = z
  .array(eventName)
  .min(1)
  .max(20)
  .refine((list) => new Set(list).size === list.length, 'event names must not repeat');

export const createSubscriptionBody = z
  .object({
    url: z.string().max(2000).meta({ description: 'http(s) URL; private and loopback addresses are refused unless ALLOW_PRIVATE_URLS' }),
    events,
    secret: secret.optional(),
    description: z.string().max(500).default(''),
    enabled: z.boolean().default(true),
    signing: webhookSigning.default('combo'),
  })
  .strict()
  .refine((b) => b.signing !== 'standard_webhooks' || b.secret === undefined || isStandardWebhooksSecret(b.secret), {
    message: `must be ${STANDARD_WEBHOOKS_SECRET_RULE} when signing is standard_webhooks`,
    path: ['secret'],
  })
  .meta({ id: 'CreateWebhookSubscriptionRequest' });

export const updateSubscriptionBody = z
  .object({
    url: z.string().max(2000),
    events,
    description: z.string().max(500),
    enabled: z.boolean(),
    signing: webhookSigning,
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field to update')
  .meta({ id: 'UpdateWebhookSubscriptionRequest' });

/** A replaced signing secret keeps signing for at most a week. */
const MAX_GRACE_SECONDS = 604_800;

export const rotateSecretBody = z
  .object({
    secret: secret.optional(),
    grace_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_SECONDS)
      .default(0)
      .meta({
        description:
          `how long deliveries keep carrying the replaced secret's signature beside the new one, 0-${MAX_GRACE_SECONDS} seconds ` +
          '(default 0: the new secret alone from now on)',
      }),
  })
  .strict()
  .meta({ id: 'RotateWebhookSecretRequest' });

export const subscription = z
  .object({
    subscription_id: subscriptionId,
    url: z.string(),
    events: z.array(eventName),
    description: z.string(),
    enabled: z.boolean(),
    signing: webhookSigning,
    secret_last4: z.string().meta({ description: 'last four characters of the secret, to tell secrets apart' }),
    previous_secret_valid_until: isoDate.nullable().meta({
      description: 'until when deliveries also carry a signature made with the secret replaced by the last rotation; null when they do not',
    }),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .meta({ id: 'WebhookSubscription' });

export const subscriptionWithSecret = subscription
  .extend({ secret: z.string().meta({ description: 'the signing secret; shown only in this reply' }) })
  .meta({ id: 'WebhookSubscriptionWithSecret' });

const deliveryStatus = z
  .enum(['pending', 'delivered', 'dead'])
  .meta({ id: 'DeliveryStatus', description: '`dead`: all five attempts failed; the delivery is in the dead-letter queue' });

const deliveryAttempt = z
  .object({
    attempt: z.number().int().min(1).max(5),
    at: isoDate,
    ok: z.boolean(),
    status_code: z.number().int().nullable().meta({ description: 'HTTP status, null when no answer came' }),
    latency_ms: z.number().int(),
    error: z.string().nullable(),
  })
  .meta({ id: 'DeliveryAttempt' });

export const delivery = z
  .object({
    delivery_id: deliveryId,
    subscription_id: subscriptionId,
    event_id: z.string(),
    event: z.string(),
    status: deliveryStatus,
    attempt_count: z.number().int(),
    attempts: z.array(deliveryAttempt),
    workflow_id: z.string().meta({ description: 'the Temporal workflow that delivers it' }),
    replay_of: z.string().nullable().meta({ description: 'the dead letter this delivery replays' }),
    replay_id: z.string().nullable().meta({ description: 'the historical replay that made it' }),
    replayed_by: z.string().nullable().meta({
      description:
        'on a dead letter: the delivery that last replayed it by hand (POST /v1/webhook/dead-letters/{delivery_id}/replay); null when it has not been',
    }),
    created_at: isoDate,
    delivered_at: isoDate.nullable(),
    dead_at: isoDate.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryPage = pageOf(delivery, 'WebhookDeliveryPage');

const createdRange = {
  since: z.iso.datetime({ offset: true }).optional().meta({ description: 'deliveries created at or after this time' }),
  until: z.iso.datetime({ offset: true }).optional().meta({ description: 'deliveries created before this time' }),
};

export const deliveryQuery = pageQuery
  .extend({
    event_id: z.string().max(100).optional(),
    event: z.string().max(100).optional().meta({ description: 'the event name, e.g. `session.created` or `webhook.test`' }),
    subscription_id: subscriptionId.optional(),
    status: deliveryStatus.optional(),
    ...createdRange,
  })
  .strict();

export const deadLetterQuery = pageQuery
  .extend({
    event: deliveryQuery.shape.event,
    subscription_id: subscriptionId.optional(),
    replayed: z
      .enum(['true', 'false'])
      .optional()
      .meta({ description: '`false`: only the letters not replayed by hand yet; `true`: only those that were (see `replayed_by`)' }),
    ...createdRange,
  })
  .strict();

export const replayBody = z
  .object({
    since: z.iso.datetime({ offset: true }).meta({ description: 'inclusive lower bound on the event timestamp' }),
    until: z.iso.datetime({ offset: true }).meta({ description: 'exclusive upper bound on the event timestamp' }),
    events: z.array(eventName).min(1).max(20).optional().meta({ description: 'only these event names' }),
    subscription_id: subscriptionId.optional().meta({ description: 'only this subscription' }),
  })
  .strict()
  .refine((b) => Date.parse(b.since) < Date.parse(b.until), { message: 'must be after since', path: ['until'] })
  .meta({ id: 'WebhookReplayRequest' });

export const replayStarted = z
  .object({
    replay_id: z.string(),
    workflow_id: z.string(),
    status: z.enum(['running', 'completed', 'failed']),
    deliveries_started: z.number().int().nullable().meta({
      description:
        'deliveries started: so far while running (null when just started, or when its workflow does not answer within 2 s), all of them once completed; null when failed',
    }),
  })
  .meta({ id: 'WebhookReplay' });

export type WebhookSigning = z.infer<typeof webhookSigning>;
export type CreateSubscriptionBody = z.infer<typeof createSubscriptionBody>;
export type UpdateSubscriptionBody = z.infer<typeof updateSubscriptionBody>;
export type Subscription = z.infer<typeof subscription>;
export type Delivery = z.infer<typeof delivery>;
export type DeliveryAttempt = z.infer<typeof deliveryAttempt>;
export type ReplayBody = z.infer<typeof replayBody>;
export type ReplayStarted = z.infer<typeof replayStarted>;

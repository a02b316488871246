import { z } from 'zod';
import { INBOUND_CHANNELS } from '../inbound-event';
import { isoDate, pageOf, resourceId } from './common';

export const integrationId = resourceId('int', 'integration id');

const INTEGRATION_CHANNELS = [...INBOUND_CHANNELS, 'generic'] as const;
export type IntegrationChannel = (typeof INTEGRATION_CHANNELS)[number];

/** A rotated-out secret keeps verifying for at most a week. */
const MAX_GRACE_SECONDS = 604_800;

const integrationChannel = z
  .enum(INTEGRATION_CHANNELS)
  .meta({ description: 'the inbound channel (`/v1/webhook/{channel}`), or `generic` for `/v1/webhook/generic/{trigger_id}`' });

export const createIntegrationBody = z
  .object({
    channel: integrationChannel,
    name: z.string().trim().min(1).max(100).optional().meta({ description: 'a label; defaults to the channel' }),
  })
  .strict()
  .meta({ id: 'CreateIntegrationRequest' });

export const rotateIntegrationBody = z
  .object({
    grace_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_SECONDS)
      .default(3600)
      .meta({ description: `how long the previous secret keeps verifying, 0-${MAX_GRACE_SECONDS} seconds (default 3600)` }),
  })
  .strict()
  .meta({ id: 'RotateIntegrationSecretRequest' });

export const integration = z
  .object({
    integration_id: integrationId,
    channel: integrationChannel,
    name: z.string(),
    webhook_url: z.string().meta({
      description:
        'the URL to configure in the sending system: the inbound path with `?integration_id=`. For `generic`, replace ' +
        "`{trigger_id}` with the trigger's id.",
    }),
    secret_last4: z.string().meta({ description: 'last four characters of the current secret, to tell secrets apart' }),
    previous_secret_valid_until: isoDate
      .nullable()
      .meta({ description: 'until when the secret replaced by the last rotation still verifies; null when it no longer does' }),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .meta({ id: 'Integration' });

export const integrationWithSecret = integration
  .extend({ secret: z.string().meta({ description: 'the shared signing secret (HMAC key); shown only in this reply' }) })
  .meta({ id: 'IntegrationWithSecret' });

export const integrationPage = pageOf(integration, 'IntegrationPage');
export const integrationParams = z.object({ integration_id: integrationId }).strict();

export type CreateIntegrationBody = z.infer<typeof createIntegrationBody>;
export type Integration = z.infer<typeof integration>;
export type IntegrationWithSecret = z.infer<typeof integrationWithSecret>;

export const inboundPayload = z
  .record(z.string(), z.unknown())
  .meta({ id: 'InboundWebhookPayload', description: "the sending system's JSON object, as it documents it" });

export const inboundAccepted = z
  .object({
    event_id: z.string().meta({ description: 'the X-Combo-Event-Id' }),
    duplicate: z.boolean().meta({ description: 'true: this integration had already received this event id; nothing was started' }),
    source: integrationChannel,
    event: z.string().meta({
      description:
        'the normalised event name (`push`, `pull_request.opened`, `message`, ...), `unknown` when the channel does not recognise the payload',
    }),
    project: z.string().nullable(),
    actor: z.string().nullable(),
    url: z.string().nullable(),
    received_at: isoDate,
    tasks: z
      .array(
        z.object({
          trigger_id: z.string(),
          workflow_id: z.string(),
          started: z
            .boolean()
            .meta({ description: 'false: the trigger already had its task for this event, or `error` says why none was started' }),
          error: z
            .string()
            .optional()
            .meta({ description: 'why no task was started: an input of the trigger names a path this event lacks' }),
        }),
      )
      .meta({ description: 'one agent task per matching event trigger' }),
  })
  .meta({ id: 'InboundWebhookAccepted' });

export type InboundAccepted = z.infer<typeof inboundAccepted>;

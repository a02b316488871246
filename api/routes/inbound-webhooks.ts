import { z } from 'zod';
import { AppError, ErrorCodes } from '../../common/errors';
import { inboundAccepted, inboundPayload, type IntegrationChannel } from '../../common/schemas/integrations';
import { triggerId } from '../../common/schemas/triggers';
import { INBOUND_CHANNELS, type InboundChannel } from '../../common/inbound-event';
import type { AppContext } from '../context';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Inbound webhooks';

const isInboundChannel = (value: string): value is InboundChannel => (INBOUND_CHANNELS as readonly string[]).includes(value);

const channelParams = z
  .object({
    channel: z
      .string()
      .max(100)
      .meta({ description: `one of ${INBOUND_CHANNELS.join(', ')}; another is 10004` }),
  })
  .strict();
const genericParams = z.object({ trigger_id: triggerId }).strict();
// Not strict: a sending system may add query parameters of its own to the configured URL.
const inboundQuery = z.object({
  integration_id: z
    .string()
    .max(100)
    .optional()
    .meta({ description: 'the integration (`int_…`) whose secret signs the call; or the X-Combo-Integration header' }),
});

const verification =
  'The caller is the integration named by `?integration_id=` (or the X-Combo-Integration header); its channel must be ' +
  'this one. Headers: X-Combo-Event-Id (1-200 characters, unique per event), X-Combo-Timestamp (Unix seconds, within ' +
  'INBOUND_TIMESTAMP_TOLERANCE_S, default 300, of the server clock), X-Combo-Signature (`sha256=` + lowercase hex ' +
  'HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the integration\'s secret; during a rotation\'s grace the previous ' +
  "secret verifies too). A missing or unknown integration, another channel's integration, a bad timestamp and a wrong " +
  'signature all answer 10002 "signature verification failed"; a missing event id is 10001. An event id the ' +
  'integration has already received is acknowledged with `duplicate: true` and starts nothing. The signature covers the ' +
  'bytes as sent: a body compressed by the sender (Content-Encoding gzip, deflate or br) is signed compressed, and bytes ' +
  'that are not valid in the declared charset (UTF-8 by default) still verify (they read as U+FFFD). The body is a JSON ' +
  'object of at most MAX_JSON_BODY_BYTES, compressed and decompressed, nested at most 64 levels. Text the stores cannot ' +
  'hold (NUL, lone surrogates) is removed from the stored and dispatched copy (keys and values); the event is not ' +
  "refused. Signed calls count against the integration's rate ceiling (RATE_LIMIT_INBOUND_PER_MIN, default 600/min; " +
  'per trigger on the generic channel); refused ones count separately, per integration and client address, so forged ' +
  'calls cannot use up the ceiling of signed ones.';

export const inboundWebhookRoutes = ({ commands }: Services) => {
  const receive = (ctx: AppContext, channel: IntegrationChannel, named: string | undefined, triggerId?: string) =>
    commands.inbound.receive({
      channel,
      integrationId: named ?? (ctx.get('x-combo-integration') || undefined),
      ...(triggerId ? { triggerId } : {}),
      eventId: ctx.get('x-combo-event-id'),
      timestamp: ctx.get('x-combo-timestamp'),
      signature: ctx.get('x-combo-signature'),
      contentEncoding: ctx.get('content-encoding'),
      charset: ctx.request.charset,
      headers: ctx.headers,
      rawBody: ctx.state.rawBody ?? Buffer.alloc(0),
      traceId: ctx.state.traceId,
      ...(ctx.state.inboundVerified ? { onVerified: ctx.state.inboundVerified } : {}),
    });

  return [
    defineRoute({
      method: 'post',
      path: '/v1/webhook/{channel}',
      operationId: 'receiveInboundWebhook',
      tag,
      access: 'none',
      rawBody: { documented: inboundPayload },
      summary: 'Receive an event from an external system',
      description:
        `Channels: ${INBOUND_CHANNELS.join(', ')} (review-a: Gerrit; git-a: GitLab; git-b: GitHub, kind in X-GitHub-Event; ` +
        'git-c: Gitea, kind in X-Gitea-Event; workchat-a: Lark/Feishu events; workchat-b: DingTalk robot messages and ' +
        'contact events). The body is normalised into an event (name, project, actor, link) and every enabled event trigger ' +
        `of the tenant on this channel that matches it starts one agent task. ${verification}`,
      params: channelParams,
      query: inboundQuery,
      response: inboundAccepted,
      handler: async ({ ctx, params, query }) => {
        if (!isInboundChannel(params.channel)) {
          throw new AppError(ErrorCodes.NOT_FOUND, `no inbound channel ${params.channel}; channels: ${INBOUND_CHANNELS.join(', ')}`);
        }
        return receive(ctx, params.channel, query.integration_id);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook/generic/{trigger_id}',
      operationId: 'receiveGenericWebhook',
      tag,
      access: 'none',
      rawBody: { documented: inboundPayload },
      summary: 'Receive an event for one custom (generic) trigger',
      description:
        "Signed with the tenant's `generic` integration. The body is free-form; its top-level strings `event`, `project`, " +
        '`actor` and `url` fill the normalised event (an unnamed event is `generic`), and only the trigger in the path is ' +
        `considered (10004 when the tenant has no such trigger). ${verification}`,
      params: genericParams,
      query: inboundQuery,
      response: inboundAccepted,
      handler: ({ ctx, params, query }) => receive(ctx, 'generic', query.integration_id, params.trigger_id),
    }),
  ];
};

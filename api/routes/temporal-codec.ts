import { errorEnvelope } from '../../common/schemas/envelope';
import { temporalPayloads } from '../../common/schemas/temporal-payloads';
import type { AppContext } from '../context';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Temporal codec';

const namespaceOf = (ctx: AppContext) => ctx.get('x-namespace') || undefined;

const DESCRIPTION =
  "Temporal's remote codec protocol, for an operator's Temporal UI (its codec endpoint set to `<API>/v1/codec`, passing the user's access token) or CLI (`--codec-endpoint`, `--codec-auth`): with TEMPORAL_PAYLOAD_KEYS set, the service's workflow payloads are encrypted in Temporal, and this turns them back (decode) or encrypts (encode). Admins only (an API key or a token of the configured identity provider); browsers only from TEMPORAL_UI_URL's origin (CORS). `X-Namespace`, when sent, must be TEMPORAL_NAMESPACE. Without keys the payloads come back as they are. See docs/operations.md.";

export const temporalCodecRoutes = (services: Services) =>
  (['encode', 'decode'] as const).map((way) =>
    defineRoute({
      method: 'post',
      path: `/v1/codec/${way}`,
      operationId: way === 'encode' ? 'encodeTemporalPayloads' : 'decodeTemporalPayloads',
      tag,
      summary: way === 'encode' ? 'Encrypt Temporal payloads (remote codec)' : 'Decrypt Temporal payloads (remote codec)',
      description: DESCRIPTION,
      access: 'admin',
      body: temporalPayloads,
      response: temporalPayloads,
      bare: { error: errorEnvelope },
      handler: ({ ctx, body }) => services.commands.temporalPayloads[way](body, namespaceOf(ctx)),
    }),
  );

import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { forbidden, invalid, notFound, unauthenticated } from '../common/errors';
import { envelopeOf, errorEnvelope } from '../common/schemas/envelope';
import type { Principal } from './auth';
import type { AppContext, AppState } from './context';
import { IDEMPOTENCY_KEY_PATTERN, type IdempotencyGuard, readIdempotencyKey } from './idempotency';
import { deprecationHeaders } from './middleware/deprecation';
import { findInputProblem, problemMessage } from './request-text';

type MaybePromise<T> = T | Promise<T>;
type AnyObject = z.ZodType<Record<string, unknown>>;
type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

/** `member` (default): any authenticated caller of the tenant; `admin`: administrators only; `none`: public. */
type Access = 'none' | 'member' | 'admin';

interface RouteInput<P, Q, B> {
  ctx: AppContext;
  principal: Principal;
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  /** The request's Idempotency-Key, on routes declaring `idempotency: 'handler'` only (elsewhere repeats never reach the handler). */
  idempotencyKey: string | undefined;
}

/**
 * One declaration per endpoint: its zod schemas validate the request, type the handler and
 * describe the endpoint in the OpenAPI document. The handler returns `data`; the envelope is added
 * here. `raw` handlers write ctx.body themselves (documents, HTML, streams).
 */
export interface RouteDef<
  P extends AnyObject | undefined,
  Q extends AnyObject | undefined,
  B extends z.ZodType | undefined,
  R extends z.ZodType | 'raw',
> {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access?: Access;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The body is multipart/form-data: `body` validates its text fields, files are on
   * ctx.request.files, and `documented` (fields and files) describes it in the OpenAPI document.
   */
  multipart?: { documented: z.ZodType };
  /**
   * The body is read as the bytes received (no decoding or inflating, same size limit as JSON
   * bodies) onto ctx.state.rawBody and not parsed: the handler checks them first (inbound webhook
   * signatures are computed over them), then parses. `documented` describes the body.
   */
  rawBody?: { documented: z.ZodType };
  response: R;
  /**
   * The response is `response` itself, without the envelope, and errors have the `error` body
   * instead of the envelope's (middleware/errors.ts renders them: another API's surface, such as
   * the OpenAI-compatible one).
   */
  bare?: { error: z.ZodType };
  /**
   * The endpoint may answer HTTP 202 with code 0 and this `data` (work accepted that goes on); its
   * handler then answers with `answerAccepted` and returns STREAMED.
   */
  accepted?: z.ZodType;
  /** The endpoint may answer text/event-stream (documented by this schema); its handler then returns STREAMED. */
  eventStream?: z.ZodType;
  /** The endpoint can fail upstream: 502 (30001, the model) and 504 (30002, a tool timed out). */
  upstreamErrors?: boolean;
  /** Error statuses beyond the common ones (each answered with the error envelope), by their description. */
  otherErrors?: Record<number, string>;
  /**
   * Every authenticated POST takes an `Idempotency-Key`: by default a repeat gets the first response
   * again and never reaches the handler. `handler`: nothing is kept or replayed; the handler gets the
   * key and makes repeats safe itself (a stream cannot be kept: a repeat attaches to the same run).
   */
  idempotency?: 'handler';
  /** Marks the interface deprecated: `X-Deprecated: true` and `X-Deprecated-Sunset: <date>`. */
  deprecated?: { sunset: string };
  /** Returns `data` (or STREAMED), directly or as a promise: a handler with nothing to wait for need not be async. */
  handler(input: RouteInput<P, Q, B>): MaybePromise<(R extends z.ZodType ? z.infer<R> : void) | typeof STREAMED>;
}

/** Returned by a handler that has answered with a stream of its own (ctx.body set): no envelope. */
export const STREAMED = Symbol('streamed');

/** HTTP 202, code 0: the work was accepted and goes on (the route declares `accepted`). */
export function answerAccepted(ctx: AppContext, data: unknown): typeof STREAMED {
  ctx.status = 202;
  ctx.body = { code: 0, data, message: 'ok' };
  return STREAMED;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any, any>;

export const defineRoute = <
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | 'raw' = 'raw',
>(
  def: RouteDef<P, Q, B, R>,
): AnyRoute => def;

/** What zod-to-openapi takes as a route's params or query schema. */
type RouteParameter = NonNullable<RouteConfig['request']>['params'];

const koaPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ':$1');

/**
 * The issue to name. A value no branch of a union takes (an `approval` object with a bad field,
 * where null would also do) is named by the branch whose shape it has: the one whose issues all lie
 * below its root.
 */
function closestIssue(issue: z.core.$ZodIssue): { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  if (issue.code !== 'invalid_union') return { issue, path: issue.path };
  const shaped = issue.errors.find((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0));
  if (!shaped) return { issue, path: issue.path };
  const inner = closestIssue(shaped[0]!);
  return { issue: inner.issue, path: [...issue.path, ...inner.path] };
}

function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  // Text the stores cannot hold is refused whatever field it is in, before the schema sees it.
  const problem = findInputProblem(value);
  if (problem) {
    const field = [where, ...problem.path].join('.');
    throw invalid(`${field}: ${problemMessage(problem.reason)}`, { field });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { issue, path: issuePath } = closestIssue(result.error.issues[0]!);
  // An unknown field is named itself, not its parent object.
  const path = issue.code === 'unrecognized_keys' ? [...issuePath, issue.keys[0]] : issuePath;
  const field = [where, ...path.map(String)].join('.');
  const message = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
  throw invalid(`${field}: ${message}`, { field });
}

/** What a path parameter names, for its 10004 (the stores' own not-found errors use the same words). */
const RESOURCE_OF_PARAM: Record<string, string> = {
  agent_id: 'agent',
  session_id: 'session',
  message_id: 'message',
  doc_id: 'document',
  kb_id: 'knowledge base',
  key_id: 'api key',
  cron_id: 'cron job',
  file_id: 'file',
  integration_id: 'integration',
  provider_id: 'model provider',
  skill_id: 'skill',
  trigger_id: 'event trigger',
  subscription_id: 'webhook subscription',
  delivery_id: 'webhook delivery',
  replay_id: 'replay',
  trace_id: 'completion',
};

/**
 * A path names a resource: one that does not match any (malformed id, unknown channel, a NUL
 * included) answers 10004 like a well-formed id that names nothing.
 */
function parseParamsOrNotFound<T extends z.ZodType>(schema: T, params: Record<string, string>): z.infer<T> {
  const result = findInputProblem(params) ? undefined : schema.safeParse(params);
  if (result?.success) return result.data;
  const name = result
    ? String(result.error.issues[0]!.path[0] ?? '')
    : (Object.keys(params).find((k) => findInputProblem(params[k])) ?? '');
  throw notFound(RESOURCE_OF_PARAM[name] ?? name.replace(/_id$/, ''), params[name] ?? '');
}

function authorize(state: AppState, access: Access): Principal | undefined {
  if (access === 'none') return state.principal;
  if (state.authError) throw state.authError;
  if (!state.principal) throw unauthenticated();
  if (access === 'admin' && state.principal.role !== 'admin') throw forbidden('this operation needs the admin role');
  return state.principal;
}

function hasBody(ctx: AppContext): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

/**
 * GET answers' envelopes, serialized once per data object: a read cache hands the same object to
 * every request while it is fresh, so those requests send the same text without serializing it
 * again. Keyed weakly: the text goes when the cache lets go of its object.
 */
const envelopeTexts = new WeakMap<object, string>();
function envelopeText(data: unknown): string {
  if (typeof data !== 'object' || data === null) return JSON.stringify({ code: 0, data, message: 'ok' });
  let text = envelopeTexts.get(data);
  if (text === undefined) {
    text = JSON.stringify({ code: 0, data, message: 'ok' });
    envelopeTexts.set(data, text);
  }
  return text;
}

interface BodyParsers {
  json: Middleware<AppState>;
  /** Reads the unparsed bytes (routes with `rawBody`). */
  rawBytes: Middleware<AppState>;
  multipart: Middleware<AppState>;
}

/** What the app gives every route: body parsers and the Idempotency-Key guard (absent in tests of bare routes). */
export interface RouteMounting {
  bodyParsers?: BodyParsers;
  idempotency?: IdempotencyGuard;
}

/** POSTs of a caller take an Idempotency-Key; calls without credentials (inbound webhooks) have no one to scope it to. */
const takesIdempotencyKey = (route: AnyRoute) => route.method === 'post' && (route.access ?? 'member') !== 'none';

/**
 * Credentials, path and query are checked before the body is read, so a refused caller never
 * makes the process buffer an upload. Body parsers run only on routes that declare a body.
 */
export function mountRoute(router: Router<AppState>, route: AnyRoute, { bodyParsers, idempotency }: RouteMounting = {}): void {
  const access = route.access ?? 'member';
  // Only a JSON envelope can be kept for repeats: a POST that may answer otherwise handles its key itself.
  if (takesIdempotencyKey(route) && (route.response === 'raw' || route.eventStream) && route.idempotency !== 'handler')
    throw new TypeError(`${route.operationId}: a POST answering other than JSON needs idempotency: 'handler'`);
  const bodyParser = route.multipart ? bodyParsers?.multipart : route.rawBody ? bodyParsers?.rawBytes : bodyParsers?.json;
  const parsers = (route.body || route.rawBody) && bodyParser ? [bodyParser] : [];
  // Most calls send no query string: its parse (defaults filled in) is made once. Handlers never change their input.
  let noQuery: { parsed: unknown } | undefined;
  const parseQuery = (ctx: AppContext): unknown => {
    if (!route.query) return undefined;
    if (ctx.querystring !== '') return parseOrThrow(route.query, ctx.query, 'query');
    return (noQuery ??= { parsed: parseOrThrow(route.query, {}, 'query') }).parsed;
  };
  /** Credentials, path, query and Content-Type, checked before any body is read. */
  const checkRequest = (ctx: AppContext): void => {
    if (route.deprecated) deprecationHeaders(ctx, route.deprecated.sunset);
    ctx.state.checked = {
      principal: authorize(ctx.state, access),
      params: route.params ? parseParamsOrNotFound(route.params, ctx.params as Record<string, string>) : undefined,
      query: parseQuery(ctx),
      idempotencyKey: takesIdempotencyKey(route) ? readIdempotencyKey(ctx) : undefined,
    };
    if (route.body || route.rawBody) {
      if (route.multipart) {
        if (!ctx.is('multipart/form-data')) throw invalid('Content-Type must be multipart/form-data');
      } else if (hasBody(ctx) && !ctx.is('application/json')) {
        throw invalid('Content-Type must be application/json');
      }
    }
  };
  const handle = (ctx: AppContext): Promise<void> => {
    const { principal, params, query, idempotencyKey } = ctx.state.checked!;
    // A request that fails validation has run nothing: its key is not claimed.
    const body: unknown = route.body ? parseOrThrow(route.body, ctx.request.body ?? {}, 'body') : undefined;
    const handlesKey = route.idempotency === 'handler';
    const respond = async () => {
      const input = {
        ctx,
        principal: principal as Principal,
        params,
        query,
        body,
        idempotencyKey: handlesKey ? idempotencyKey : undefined,
      };
      const data: unknown = await route.handler(input);
      if (route.response === 'raw' || data === STREAMED) return;
      if (route.bare) {
        ctx.body = data;
      } else if (route.method === 'get') {
        ctx.type = 'application/json';
        ctx.body = envelopeText(data);
      } else {
        ctx.body = { code: 0, data, message: 'ok' };
      }
    };
    if (idempotencyKey && principal && idempotency && !handlesKey) return idempotency.respondOnce(ctx, idempotencyKey, principal, respond);
    return respond();
  };
  // One middleware per route (checks, body parser, handler), so the router runs one layer for it.
  // Not async without a parser: koa-compose turns a synchronous throw into a rejected promise.
  const [parser] = parsers;
  const endpoint: Middleware<AppState> = parser
    ? (ctx) => {
        checkRequest(ctx);
        return parser(ctx, () => handle(ctx)) as Promise<unknown>;
      }
    : (ctx) => {
        checkRequest(ctx);
        return handle(ctx);
      };
  router[route.method](koaPath(route.path), endpoint);
}

const errorResponses = {
  400: 'invalid parameters (10001)',
  401: 'missing or invalid credentials (10002)',
  403: 'insufficient permission (10003)',
  404: 'resource does not exist (10004)',
  409: 'resource conflict (10005)',
  429: 'rate limit exceeded (10006); see Retry-After',
  500: 'internal error (20001)',
} as const;

const upstreamErrorResponses = {
  502: 'the language model failed after its retries (30001)',
  504: 'a tool timed out (30002)',
} as const;

const rateLimitHeaders = z.object({
  'X-RateLimit-Limit': z.string().meta({ description: 'ceiling of the window' }),
  'X-RateLimit-Remaining': z.string().meta({ description: 'requests left in the window' }),
  'X-RateLimit-Reset': z.string().meta({ description: 'end of the window, Unix seconds' }),
});

const idempotencyKeyOf = (description: string) =>
  z.object({
    'Idempotency-Key': z.string().regex(IDEMPOTENCY_KEY_PATTERN).optional().meta({ description }),
  });

/** The Idempotency-Key of routes whose repeats get the first response again. */
const replayedKey = idempotencyKeyOf(
  'Makes retrying safe: the same key with the same request (method, path, canonical JSON body; for multipart the ' +
    "fields and each file part's SHA-256) within IDEMPOTENCY_KEY_TTL_HOURS (24 h) answers the first response again, " +
    'with `Idempotent-Replayed: true`, and does nothing again. A first response with a 5xx status is not kept. ' +
    'Keys are per tenant and caller (API key or console user); 1 to 255 printable ASCII characters (else 10001).',
);

/** The Idempotency-Key of routes that handle it themselves (`idempotency: 'handler'`). */
const handledKey = idempotencyKeyOf(
  'Makes retrying safe: the same key with the same request within IDEMPOTENCY_KEY_TTL_HOURS (24 h) answers from the ' +
    'run the first one started (a stream attaches to it) rather than starting another. Keys are per tenant and caller ' +
    '(API key or console user); 1 to 255 printable ASCII characters (else 10001).',
);

const replayedHeader = {
  'Idempotent-Replayed': z
    .literal('true')
    .optional()
    .meta({ description: "present when this is the kept first response to the request's Idempotency-Key" }),
};

const idempotencyConflict =
  'resource conflict (10005); also an Idempotency-Key used with another request, or whose first request is still ' +
  'being processed (with Retry-After)';

export function registerRoute(registry: OpenAPIRegistry, route: AnyRoute): void {
  const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
  const body = (route.body ?? route.rawBody?.documented) as z.ZodType | undefined;
  const keyed = takesIdempotencyKey(route);
  const replays = keyed && route.idempotency !== 'handler';
  const successHeaders = replays ? rateLimitHeaders.extend(replayedHeader) : rateLimitHeaders;
  const config: RouteConfig = {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    deprecated: route.deprecated ? true : undefined,
    security: (route.access ?? 'member') === 'none' ? [] : [{ bearer: [] }],
    request: {
      params: route.params as RouteParameter,
      query: route.query as RouteParameter,
      headers: keyed ? (replays ? replayedKey : handledKey) : undefined,
      body: body
        ? { content: route.multipart ? { 'multipart/form-data': { schema: route.multipart.documented } } : json(body), required: true }
        : undefined,
    },
    responses: {
      200: {
        description: 'success (code 0)',
        headers: successHeaders,
        content:
          route.response === 'raw' && !route.eventStream
            ? undefined
            : {
                ...(route.response === 'raw' ? {} : json(route.bare ? (route.response as z.ZodType) : envelopeOf(route.response))),
                ...(route.eventStream ? { 'text/event-stream': { schema: route.eventStream } } : {}),
              },
      },
      ...(route.accepted
        ? { 202: { description: 'accepted, still running (code 0)', headers: successHeaders, content: json(envelopeOf(route.accepted)) } }
        : {}),
      ...Object.fromEntries(
        Object.entries({
          ...errorResponses,
          ...(keyed ? { 409: idempotencyConflict } : {}),
          ...(route.upstreamErrors ? upstreamErrorResponses : {}),
          ...route.otherErrors,
        }).map(([status, description]) => [status, { description, content: json(route.bare?.error ?? errorEnvelope) }]),
      ),
    },
  };
  registry.registerPath(config);
}

import { createHash } from 'node:crypto';
import { Stream } from 'node:stream';
import { canonicalJson } from '../common/canonical-json';
import { AppError, conflict, invalid } from '../common/errors';
import type { Logger } from '../common/logger';
import type { IdempotencyKeyStore, KeptResponse, KeyClaim } from '../stores/idempotency-keys';
import type { Principal } from './auth';
import type { AppContext } from './context';
import { errorBody } from './middleware/errors';
import type { UploadedFile } from './middleware/upload-body';

/** How errors and the OpenAPI document name the header. */
const KEY_FIELD = 'header.Idempotency-Key';
/** 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Headers a repeat gets again with the first response's status and body. */
const KEPT_HEADERS = ['Content-Type', 'Location'];

/** The request's Idempotency-Key; undefined without one, 10001 naming the header when malformed. */
export function readIdempotencyKey(ctx: AppContext): string | undefined {
  const value = ctx.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value))
    throw invalid(`${KEY_FIELD}: must be 1 to 255 printable ASCII characters`, { field: KEY_FIELD });
  return value;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** A file part by what it holds, never by where formidable put it. */
const describeFile = (file: UploadedFile) => ({
  name: file.originalFilename,
  type: file.mimetype,
  sha256: sha256(file.contents ?? Buffer.alloc(0)),
});

/**
 * What makes two requests "the same": method, path and query, and the body as canonical JSON (key
 * order does not matter); for multipart the fields and each file part's SHA-256, never the raw
 * bytes, since a client picks a new boundary on every send.
 */
function requestFingerprint(ctx: AppContext): string {
  const files = (ctx.request.files ?? {}) as Record<string, UploadedFile | UploadedFile[]>;
  return sha256(
    canonicalJson({
      method: ctx.method,
      path: ctx.path,
      query: ctx.query,
      body: (ctx.request.body as unknown) ?? null,
      files: Object.fromEntries(Object.entries(files).map(([field, parts]) => [field, [parts].flat().map(describeFile)])),
      raw: ctx.state.rawBody ? sha256(ctx.state.rawBody) : null,
    }),
  );
}

/** A JSON body (the envelope, or a route's bare JSON) can be kept and sent again; a stream or raw bytes cannot. */
const isKeptJson = (body: unknown) => body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && !(body instanceof Stream);

const keptHeaders = (ctx: AppContext) =>
  Object.fromEntries(KEPT_HEADERS.filter((name) => ctx.response.get(name)).map((name) => [name, ctx.response.get(name)]));

/**
 * Runs a POST once per Idempotency-Key (per tenant and principal): the first request runs and its
 * response is kept (sealed), a repeat of the same request gets that response again with
 * `Idempotent-Replayed: true`. A 5xx (or an unexpected fault) is not kept, so a retry runs again.
 */
export function createIdempotencyGuard({ keys, log }: { keys: IdempotencyKeyStore; log: Logger }) {
  /** The request has had its effect whatever happens here: a failure to record it is logged, not answered. */
  async function settle(ctx: AppContext, claim: KeyClaim, response: KeptResponse | null): Promise<void> {
    try {
      if (response) await keys.complete(claim, response);
      else await keys.release(claim);
    } catch (err) {
      log.warn('idempotency key not settled; repeats answer 10005 until the claim is abandoned', {
        trace_id: ctx.state.traceId,
        error: String(err),
      });
    }
  }

  return {
    async respondOnce(ctx: AppContext, key: string, principal: Principal, respond: () => Promise<void>): Promise<void> {
      const scope = { tenantId: principal.tenantId, principal: `${principal.via}:${principal.userId}`, key };
      const claimed = await keys.claim(scope, requestFingerprint(ctx));
      if (claimed.outcome === 'replay') {
        ctx.status = claimed.response.status;
        ctx.body = claimed.response.body;
        for (const [name, value] of Object.entries(claimed.response.headers)) ctx.set(name, value);
        ctx.set('Idempotent-Replayed', 'true');
        return;
      }
      if (claimed.outcome === 'in_progress') {
        ctx.set('Retry-After', '1');
        throw conflict('a request with this Idempotency-Key is still being processed; retry later', { field: KEY_FIELD });
      }
      if (claimed.outcome === 'mismatch') {
        throw conflict(`${KEY_FIELD}: this key was used with another request (method, path or body); a new request needs a new key`, {
          field: KEY_FIELD,
        });
      }
      try {
        await respond();
      } catch (err) {
        const kept = err instanceof AppError && err.httpStatus < 500;
        await settle(
          ctx,
          claimed.claim,
          kept ? { status: err.httpStatus, headers: keptHeaders(ctx), body: errorBody(err, ctx.state.traceId) } : null,
        );
        throw err;
      }
      const kept = ctx.status < 500 && isKeptJson(ctx.body);
      await settle(ctx, claimed.claim, kept ? { status: ctx.status, headers: keptHeaders(ctx), body: ctx.body } : null);
    },
  };
}

export type IdempotencyGuard = ReturnType<typeof createIdempotencyGuard>;

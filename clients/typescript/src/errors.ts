/**
 * Errors of the client. An error the service answers is typed by the envelope's `code` (not the HTTP
 * status), each an `APIError`: `ValidationError` (10001) ... `UpstreamTimeoutError` (30002). A code
 * this version does not know (or a reply without the envelope, e.g. a proxy's error page) is an
 * `APIError` itself.
 * The client's own failures are `APIConnectionError` (and its `APITimeoutError`), and the caller's
 * `AbortSignal` firing is `APIUserAbortError`.
 */

/** Base of every error the client throws. */
export class ComboError extends Error {
  /** The envelope's `code` (10001-30002); undefined for the client's own failures. */
  readonly code: number | undefined;
  /** The HTTP status; undefined when no response came. */
  readonly status: number | undefined;
  /** The envelope's `data` (`trace_id`, `field`, ...); `{}` when there is none. */
  readonly data: Record<string, unknown>;
  /** The request's trace id (`data.trace_id`, else the `X-Trace-Id` header). */
  readonly traceId: string | undefined;
  /** The response's headers, when a response came. */
  readonly headers: Headers | undefined;

  constructor(
    message: string,
    init: { code?: number; status?: number; data?: Record<string, unknown>; traceId?: string; headers?: Headers; cause?: unknown } = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.data = init.data ?? {};
    this.traceId = init.traceId ?? (typeof this.data.trace_id === 'string' ? this.data.trace_id : undefined);
    this.headers = init.headers;
  }
}

/** An error the service answered (a typed subclass per envelope code; this class itself for a code this version does not know, or a reply without the envelope). */
export class APIError extends ComboError {}

/** 10001: invalid parameters; `field` names the offending one (`body.name`, `query.page_size`, ...). */
export class ValidationError extends APIError {
  get field(): string | undefined {
    return typeof this.data.field === 'string' ? this.data.field : undefined;
  }
}
/** 10002: missing or invalid credentials (also an inbound call whose signature does not verify). */
export class AuthenticationError extends APIError {}
/** 10003: the credentials do not allow this (e.g. an admin-only route with a member key). */
export class PermissionDeniedError extends APIError {}
/** 10004: nothing of that id (or another tenant's). */
export class NotFoundError extends APIError {}
/** 10005: conflict with the resource's state (archived session, running run, reused idempotency key, ...). */
export class ConflictError extends APIError {
  get field(): string | undefined {
    return typeof this.data.field === 'string' ? this.data.field : undefined;
  }
}
/** 10006: over the rate limit; `retryAfter` is the server's `Retry-After`, in seconds. */
export class RateLimitError extends APIError {
  get retryAfter(): number | undefined {
    const value = this.headers?.get('retry-after');
    const seconds = value == null ? NaN : Number(value);
    return Number.isFinite(seconds) ? seconds : undefined;
  }
}
/** 20001: an internal error of the service (also a run that failed inside it). */
export class InternalServerError extends APIError {}
/** 30001: the language model failed after its attempts. */
export class UpstreamModelError extends APIError {}
/** 30002: a tool timed out after its attempts. */
export class UpstreamTimeoutError extends APIError {}

/** No response: the connection failed or was dropped. */
export class APIConnectionError extends ComboError {
  constructor(message = 'Connection error.', init: { cause?: unknown } = {}) {
    super(message, init);
  }
}
/** No response within the timeout. */
export class APITimeoutError extends APIConnectionError {
  constructor(message = 'Request timed out.', init: { cause?: unknown } = {}) {
    super(message, init);
  }
}
/** The caller's `AbortSignal` fired. */
export class APIUserAbortError extends ComboError {
  constructor(message = 'Request was aborted.', init: { cause?: unknown } = {}) {
    super(message, init);
  }
}
/** `verifyWebhook` refused a delivery (signature, timestamp or body). */
export class WebhookVerificationError extends ComboError {}

type ErrorClass = new (message: string, init: ConstructorParameters<typeof ComboError>[1]) => ComboError;

/** The error class of each envelope code, and the HTTP status the service answers it with. */
const BY_CODE: Record<number, { cls: ErrorClass; status: number }> = {
  10001: { cls: ValidationError, status: 400 },
  10002: { cls: AuthenticationError, status: 401 },
  10003: { cls: PermissionDeniedError, status: 403 },
  10004: { cls: NotFoundError, status: 404 },
  10005: { cls: ConflictError, status: 409 },
  10006: { cls: RateLimitError, status: 429 },
  20001: { cls: InternalServerError, status: 500 },
  30001: { cls: UpstreamModelError, status: 502 },
  30002: { cls: UpstreamTimeoutError, status: 504 },
};

/**
 * The typed error of an envelope code. `status` defaults to the status the service answers that code
 * with (a run's failure reported by a stream's `error` event has no HTTP status of its own).
 */
export function errorFromCode(
  code: number | undefined,
  message: string,
  init: { status?: number; data?: Record<string, unknown>; traceId?: string; headers?: Headers } = {},
): ComboError {
  const known = code === undefined ? undefined : BY_CODE[code];
  const Cls = known?.cls ?? APIError;
  return new Cls(message, { ...init, code, status: init.status ?? known?.status });
}

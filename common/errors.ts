/**
 * The spec's error code table, one place. Every error a client sees is an AppError carrying
 * one of these codes; its HTTP status comes from this table and nowhere else.
 */
export const ErrorCodes = {
  OK: 0,
  INVALID_PARAMETERS: 10001,
  UNAUTHENTICATED: 10002,
  FORBIDDEN: 10003,
  NOT_FOUND: 10004,
  CONFLICT: 10005,
  RATE_LIMITED: 10006,
  INTERNAL: 20001,
  LLM_FAILED: 30001,
  TOOL_TIMEOUT: 30002,
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export const httpStatusOf: Record<ErrorCode, number> = {
  0: 200,
  10001: 400,
  10002: 401,
  10003: 403,
  10004: 404,
  10005: 409,
  10006: 429,
  20001: 500,
  30001: 502,
  30002: 504,
};

export class AppError extends Error {
  readonly httpStatus: number;

  constructor(
    readonly code: Exclude<ErrorCode, 0>,
    message: string,
    /** Extra, client-safe detail (e.g. the offending field). Never secrets or stack traces. */
    readonly details?: Record<string, unknown>,
    /** Only where a protocol demands another status for the same code (readiness probes: 503). */
    httpStatus?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.httpStatus = httpStatus ?? httpStatusOf[code];
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) =>
  new AppError(ErrorCodes.INVALID_PARAMETERS, message, details);
export const unauthenticated = (message = 'missing or invalid credentials') => new AppError(ErrorCodes.UNAUTHENTICATED, message);
export const forbidden = (message = 'insufficient permission') => new AppError(ErrorCodes.FORBIDDEN, message);
export const notFound = (resource: string, id: string) =>
  new AppError(ErrorCodes.NOT_FOUND, `${resource} ${id} does not exist`, { resource, id });
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError(ErrorCodes.CONFLICT, message, details);

import type { Middleware } from 'koa';
import { AppError, ErrorCodes } from '../../common/errors';
import { isOpenAiPath, openAiErrorOf, retryableByOpenAiClients } from '../openai-errors';
import type { Logger } from '../../common/logger';
import type { AppState } from '../context';

interface HttpishError {
  name?: string;
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
}

/** Errors raised by koa-body / co-body / formidable carry an HTTP status; turn them into 10001. */
function fromHttpError(err: HttpishError, maxJsonBytes: number): AppError | undefined {
  const status = err.status ?? err.statusCode;
  if (status === 413 || err.type === 'entity.too.large') {
    return new AppError(ErrorCodes.INVALID_PARAMETERS, `request body exceeds ${maxJsonBytes} bytes`);
  }
  if (status === 415) return new AppError(ErrorCodes.INVALID_PARAMETERS, 'unsupported Content-Type');
  if (status === 400 && (err.name === 'SyntaxError' || err.type === 'entity.parse.failed')) {
    return new AppError(ErrorCodes.INVALID_PARAMETERS, 'malformed JSON body');
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError(ErrorCodes.INVALID_PARAMETERS, 'bad request');
  }
  return undefined;
}

/** The envelope of a client-facing failure (also what a repeat of an Idempotency-Key gets again). */
export const errorBody = (error: AppError, traceId: string) => ({
  code: error.code,
  data: { ...error.details, trace_id: traceId },
  message: error.message,
});

/** Renders every failure as the spec's envelope; unknown errors become 20001 with the trace id only. */
export function errorEnvelope(log: Logger, maxJsonBytes: number): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const appError = err instanceof AppError ? err : fromHttpError(err as HttpishError, maxJsonBytes);
      if (!appError)
        log.error('unhandled error', { trace_id: ctx.state.traceId, path: ctx.path, error: String((err as Error)?.stack ?? err) });
      const error = appError ?? new AppError(ErrorCodes.INTERNAL, 'internal error');
      ctx.status = error.httpStatus;
      if (isOpenAiPath(ctx.path)) {
        // OpenAI's clients read OpenAI's error body, from the auth check and rate limit on.
        ctx.body = openAiErrorOf(error, ctx.state.traceId);
        if (!retryableByOpenAiClients(error)) ctx.set('x-should-retry', 'false');
        return;
      }
      ctx.body = errorBody(error, ctx.state.traceId);
    }
  };
}

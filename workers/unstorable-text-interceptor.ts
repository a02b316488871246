import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';
import { MongoServerError } from 'mongodb';

/**
 * FerretDB's answer to text PostgreSQL cannot hold (U+0000: SQLSTATE 22P05). Requests are refused
 * and outside text cleaned before it gets there; this catches any other path that carries some.
 */
const isUnstorableText = (err: unknown): boolean =>
  err instanceof MongoServerError && /\b22P05\b|unsupported Unicode escape sequence/.test(err.message);

/** The failure type of an activity that tried to store text the database cannot hold. */
const UNSTORABLE_TEXT_FAILURE = 'UnstorableText';

/**
 * Text the store refuses (a NUL reaching PostgreSQL behind FerretDB) is refused again on every
 * attempt: such a failure is made non-retryable here, once for every activity, so the run fails
 * at once and records its error instead of retrying for minutes.
 */
const inbound: ActivityInterceptors['inbound'] = {
  async execute(input, next) {
    try {
      return await next(input);
    } catch (err) {
      if (!isUnstorableText(err)) throw err;
      throw ApplicationFailure.create({
        message: 'the text could not be stored (it holds a NUL character)',
        type: UNSTORABLE_TEXT_FAILURE,
        nonRetryable: true,
        cause: err as Error,
      });
    }
  },
};

export const unstorableTextInterceptors = (): ActivityInterceptors => ({ inbound });

import { type Client, isGrpcServiceError, ScheduleNotFoundError } from '@temporalio/client';
import { msNumberToTs, tsToMs } from '@temporalio/common/lib/time';

/** The most due times Temporal lists per call (its scheduler's own limit). */
const LISTED_PER_CALL = 1000;

// gRPC's NOT_FOUND: the schedule does not exist.
const GRPC_NOT_FOUND = 5;

/**
 * A schedule's due times in [since, until), computed by Temporal from the schedule's own spec (its
 * cron expression read in its time zone), so they are exactly the times it runs. At most `limit`
 * are returned; `more` says whether the range holds others past them. Throws ScheduleNotFoundError.
 */
export async function dueTimesBetween(
  temporal: Client,
  scheduleId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<{ times: Date[]; more: boolean }> {
  // Temporal lists the times t with start < t <= end: shifting both by a millisecond makes it [since, until).
  const end = until.getTime() - 1;
  const times: Date[] = [];
  let after = since.getTime() - 1;
  for (;;) {
    let listed;
    try {
      listed = await temporal.workflowService.listScheduleMatchingTimes({
        namespace: temporal.options.namespace,
        scheduleId,
        startTime: msNumberToTs(after),
        endTime: msNumberToTs(end),
      });
    } catch (err) {
      if (isGrpcServiceError(err) && (err.code as number) === GRPC_NOT_FOUND) throw new ScheduleNotFoundError(err.message, scheduleId);
      throw err;
    }
    const page = (listed.startTime ?? []).map((ts) => new Date(tsToMs(ts)));
    for (const t of page) {
      if (times.length === limit) return { times, more: true };
      times.push(t);
    }
    if (page.length < LISTED_PER_CALL) return { times, more: false };
    after = page[page.length - 1]!.getTime();
  }
}

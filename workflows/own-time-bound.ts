import { CancellationScope, isCancellation } from '@temporalio/workflow';

/**
 * The workflow's own timer (CancellationScope.withTimeout) cancelled its work: a cancellation that
 * reached it while the workflow itself is not cancelled (a person's cancel is not a time bound).
 */
export const ownTimeBoundReached = (err: unknown): boolean => isCancellation(err) && !CancellationScope.current().consideredCancelled;

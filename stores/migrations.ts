import type { Db } from 'mongodb';
import { periodOf } from '../common/cost-periods';
import { COST_RUNS, type CostRunDoc } from './cost-runs';

/**
 * Data migrations the worker runs in the background on every start (workers/main.ts), beside the
 * indexes both processes ensure (ensureIndexes). Each is idempotent and safe to run in several
 * processes at once.
 */

/** Runs dated per write by `dateUndatedCostRuns`. */
const DATING_BATCH = 500;

/**
 * Gives every cost run recorded before days were kept its UTC day (from `at`), a batch per write,
 * in `_id` order so each run is read once. Processes racing write the same values. Returns how many
 * runs it dated.
 */
export async function dateUndatedCostRuns(db: Db): Promise<number> {
  const runs = db.collection<CostRunDoc>(COST_RUNS);
  let dated = 0;
  let after: string | undefined;
  for (;;) {
    const batch = await runs
      .find({ day: { $exists: false }, ...(after !== undefined ? { _id: { $gt: after } } : {}) }, { projection: { _id: 1, at: 1 } })
      .sort({ _id: 1 })
      .limit(DATING_BATCH)
      .toArray();
    if (batch.length === 0) return dated;
    const byDay = new Map<string, string[]>();
    for (const run of batch) {
      const day = periodOf(run.at, 'day');
      byDay.set(day, [...(byDay.get(day) ?? []), run._id]);
    }
    for (const [day, ids] of byDay) await runs.updateMany({ _id: { $in: ids }, day: { $exists: false } }, { $set: { day } });
    dated += batch.length;
    after = batch[batch.length - 1]!._id;
  }
}

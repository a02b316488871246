import type { Db } from 'mongodb';

/** `inbound_refused`: inbound calls whose signature did not verify, counted apart from signed ones. */
export type RateFamily = 'completions' | 'uploads' | 'default' | 'inbound' | 'inbound_refused';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  /** Whole seconds until the window ends (at least 1). */
  retryAfter: number;
}

interface CounterDoc {
  _id: string;
  bucket: string;
  count: number;
  expires_at: Date;
}

interface BucketState {
  windowStart: number;
  local: number;
  others: number;
  lastSync: number;
  syncing?: Promise<void>;
}

export interface RateLimiterOptions {
  limits: Record<RateFamily, number>;
  /** A process re-reads the shared counts when its view is older than this (0: before every request). */
  syncMs: number;
  /** Distinguishes this process's counter documents from other processes'. */
  processId: string;
  windowMs?: number;
  onSyncError?: (err: unknown) => void;
}

/**
 * Fixed one-minute windows per (key, family), shared by every API process through the database.
 * Each process writes only its own counter document per window (no two writers on one document,
 * which FerretDB v1 does not make atomic) and sums the others' documents. Between syncs a process
 * counts locally, so a key can exceed its ceiling only by what it sends to other processes within
 * one sync interval.
 */
export function createRateLimiter(db: Db, options: RateLimiterOptions) {
  const counters = db.collection<CounterDoc>('rate_limits');
  const windowMs = options.windowMs ?? 60_000;
  const states = new Map<string, BucketState>();

  async function sync(bucket: string, state: BucketState): Promise<void> {
    const windowEnd = state.windowStart + windowMs;
    state.lastSync = Date.now();
    await counters.updateOne(
      { _id: `${bucket}|${options.processId}` },
      { $set: { bucket, count: state.local, expires_at: new Date(windowEnd + windowMs) } },
      { upsert: true },
    );
    const docs = await counters.find({ bucket }, { projection: { count: 1 } }).toArray();
    state.others = docs.filter((d) => d._id !== `${bucket}|${options.processId}`).reduce((sum, d) => sum + d.count, 0);
  }

  /**
   * One sync at a time per bucket. When the database does not answer, the process keeps counting
   * on its own (fails open) rather than failing every request, health and readiness included.
   */
  function syncOnce(bucket: string, state: BucketState): Promise<void> {
    state.syncing ??= sync(bucket, state)
      .catch((err: unknown) => options.onSyncError?.(err))
      .finally(() => {
        state.syncing = undefined;
      });
    return state.syncing;
  }

  function prune(currentWindow: number) {
    if (states.size < 10_000) return;
    for (const [key, state] of states) if (state.windowStart < currentWindow) states.delete(key);
  }

  const decision = (allowed: boolean, state: BucketState, limit: number, now: number): RateDecision => {
    const windowEnd = state.windowStart + windowMs;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - state.local - state.others),
      resetAt: Math.ceil(windowEnd / 1000),
      retryAfter: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
    };
  };

  return {
    /**
     * Counts one request and decides. Answers at once (no promise) when the current view decides:
     * the hot path of every request waits on nothing then; a promise only when the counts are
     * shared first (the first request of a window here, or every request at syncMs 0).
     */
    take(rateKey: string, family: RateFamily, now = Date.now()): RateDecision | Promise<RateDecision> {
      const limit = options.limits[family];
      const windowStart = now - (now % windowMs);
      const bucket = `${rateKey}|${family}|${windowStart}`;
      let state = states.get(bucket);
      if (!state) {
        prune(windowStart);
        state = { windowStart, local: 0, others: 0, lastSync: 0 };
        states.set(bucket, state);
      }
      const stale = now - state.lastSync >= options.syncMs;
      if (stale && (options.syncMs === 0 || state.lastSync === 0)) {
        // First request of the window here (or exact mode): count it, share it, then decide.
        const counted = state;
        counted.local += 1;
        return syncOnce(bucket, counted).then(() => {
          const allowed = counted.local + counted.others <= limit;
          if (!allowed) counted.local -= 1;
          return decision(allowed, counted, limit, now);
        });
      }
      // Decide on the current view; a stale view is refreshed in the background.
      const allowed = state.local + state.others < limit;
      if (allowed) state.local += 1;
      // syncOnce reports a failed sync itself (onSyncError); the catch is for a reporter that throws.
      if (stale) syncOnce(bucket, state).catch(() => undefined);
      return decision(allowed, state, limit, now);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

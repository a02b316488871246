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
  /** This process's count as last written to the shared store. */
  published: number;
  others: number;
  /** When the sync that read `others` started (0: never read): the view is at least this recent. */
  viewAt: number;
  /** When the last sync failed (0: none): the process then counts on its own for a while. */
  failedAt: number;
  syncing?: Promise<void>;
  /** A sync queued behind the one in flight, for requests counted after that one wrote. */
  nextSync?: Promise<void>;
}

export interface RateLimiterOptions {
  limits: Record<RateFamily, number>;
  /**
   * A process re-reads the shared counts when its view is older than this (0: before every request),
   * and publishes its own counts at least this often, requests or none.
   */
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
 * counts locally. It publishes what it counted at least every syncMs (a timer, so a process that
 * stops receiving requests still publishes its last counts), re-reads the others' in the background
 * once its view is syncMs old and waits for a fresh read once it is 2 × syncMs old. So a process
 * misses at most what the others admitted in the last 3 × syncMs (plus database latency): the
 * bound docs/configuration.md states for RATE_LIMIT_SYNC_MS. At syncMs 0 no window passes its ceiling.
 */
export function createRateLimiter(db: Db, options: RateLimiterOptions) {
  const counters = db.collection<CounterDoc>('rate_limits');
  const windowMs = options.windowMs ?? 60_000;
  const states = new Map<string, BucketState>();

  async function publish(bucket: string, state: BucketState): Promise<void> {
    const windowEnd = state.windowStart + windowMs;
    const count = state.local;
    await counters.updateOne(
      { _id: `${bucket}|${options.processId}` },
      { $set: { bucket, count, expires_at: new Date(windowEnd + windowMs) } },
      { upsert: true },
    );
    state.published = count;
  }

  async function sync(bucket: string, state: BucketState): Promise<void> {
    const started = Date.now();
    await publish(bucket, state);
    const docs = await counters.find({ bucket }, { projection: { count: 1 } }).toArray();
    state.others = docs.filter((d) => d._id !== `${bucket}|${options.processId}`).reduce((sum, d) => sum + d.count, 0);
    state.viewAt = started;
  }

  /**
   * One sync at a time per bucket. When the database does not answer, the process keeps counting
   * on its own (fails open) rather than failing every request, health and readiness included.
   */
  function syncOnce(bucket: string, state: BucketState): Promise<void> {
    state.syncing ??= sync(bucket, state)
      .catch((err: unknown) => {
        state.failedAt = Date.now();
        options.onSyncError?.(err);
      })
      .finally(() => {
        state.syncing = undefined;
      });
    return state.syncing;
  }

  /**
   * A sync that writes this process's count as it is now: one in flight may have written it before
   * the caller counted its request, so the caller then waits for the next one (shared by every
   * request counted meanwhile). At syncMs 0 each request's count is written before the others' are
   * read, so of two processes' requests at least one sees the other: no window passes its ceiling.
   */
  function syncIncludingNow(bucket: string, state: BucketState): Promise<void> {
    if (!state.syncing) return syncOnce(bucket, state);
    state.nextSync ??= state.syncing.then(() => {
      state.nextSync = undefined;
      return syncOnce(bucket, state);
    });
    return state.nextSync;
  }

  function prune(currentWindow: number) {
    if (states.size < 10_000) return;
    for (const [key, state] of states) if (state.windowStart < currentWindow) states.delete(key);
  }

  /** Publishes (and re-reads) every bucket of a current window whose count changed since it was last written. */
  async function flush(now: number): Promise<void> {
    const pending: Array<Promise<void>> = [];
    for (const [bucket, state] of states) {
      if (state.windowStart + windowMs <= now) {
        // A past window: its count no longer decides anything (the document expires on its own).
        if (!state.syncing) states.delete(bucket);
      } else if (state.local !== state.published) pending.push(syncIncludingNow(bucket, state));
    }
    await Promise.all(pending);
  }

  // At syncMs 0 every counted request is written before it is decided: nothing waits to be published.
  const flushTimer =
    options.syncMs > 0
      ? setInterval(() => {
          // syncOnce reports a failed sync itself (onSyncError); the catch is for a reporter that throws.
          flush(Date.now()).catch(() => undefined);
        }, options.syncMs).unref()
      : undefined;

  let closing: Promise<void> | undefined;

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
        state = { windowStart, local: 0, published: 0, others: 0, viewAt: 0, failedAt: 0 };
        states.set(bucket, state);
      }
      const viewAge = now - state.viewAt;
      // The first request of the window here, or one after a while without any (the view is twice
      // the interval old), waits for a fresh view; after a failed sync the process counts on its own
      // for an interval rather than make every request wait on the database.
      const mustWait = options.syncMs === 0 || (viewAge >= 2 * options.syncMs && now - state.failedAt >= options.syncMs);
      if (mustWait) {
        // Count it, share it, then decide. Exact mode (0) shares this very count; otherwise the
        // sync under way serves (what it missed is published within the interval).
        const counted = state;
        counted.local += 1;
        const shared = options.syncMs === 0 ? syncIncludingNow(bucket, counted) : syncOnce(bucket, counted);
        return shared.then(() => {
          const allowed = counted.local + counted.others <= limit;
          if (!allowed) counted.local -= 1;
          return decision(allowed, counted, limit, now);
        });
      }
      // Decide on the current view; a stale view is refreshed in the background.
      const allowed = state.local + state.others < limit;
      if (allowed) state.local += 1;
      // syncOnce reports a failed sync itself (onSyncError); the catch is for a reporter that throws.
      if (viewAge >= options.syncMs) syncOnce(bucket, state).catch(() => undefined);
      return decision(allowed, state, limit, now);
    },

    /** Stops the periodic publishing and publishes what this process counted since its last sync (once). */
    close(): Promise<void> {
      clearInterval(flushTimer);
      closing ??= (async () => {
        await Promise.all([...states.values()].map((state) => state.nextSync ?? state.syncing ?? Promise.resolve()));
        await flush(Date.now());
      })();
      return closing;
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

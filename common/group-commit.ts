/** What one call of a group came to: its own value, or its own error. */
export type GroupOutcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

export interface GroupCommitOptions<I, O> {
  /** Groups of one key handled at once; calls arriving while that many run wait and go together in the next group. */
  concurrency: number;
  /** Weight a group may reach (a call heavier than this alone still goes, alone). */
  maxWeight: number;
  weight: (input: I) => number;
  /**
   * Handles one group of calls of one key with a single request, answering each call in order. A
   * throw fails every call of the group alike.
   */
  run: (key: string, inputs: I[]) => Promise<Array<GroupOutcome<O>>>;
}

interface Waiting<I, O> {
  input: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: a call made while nothing of its key runs goes at once, alone (no waiting window,
 * so an idle process adds no latency); calls made while `concurrency` groups of their key run wait,
 * and all of them (up to `maxWeight`) go together as the next group when one ends. Under load many
 * concurrent callers (documents being parsed) then share one request, each answered on its own.
 */
export function createGroupCommit<I, O>({ concurrency, maxWeight, weight, run }: GroupCommitOptions<I, O>) {
  const lanes = new Map<string, { running: number; waiting: Array<Waiting<I, O>> }>();

  function pump(key: string): void {
    const lane = lanes.get(key);
    if (!lane) return;
    while (lane.running < concurrency && lane.waiting.length > 0) {
      const group: Array<Waiting<I, O>> = [];
      let total = 0;
      while (lane.waiting.length > 0 && (group.length === 0 || total + weight(lane.waiting[0]!.input) <= maxWeight)) {
        const next = lane.waiting.shift()!;
        total += weight(next.input);
        group.push(next);
      }
      lane.running++;
      Promise.resolve()
        .then(() =>
          run(
            key,
            group.map((g) => g.input),
          ),
        )
        .then(
          (outcomes) =>
            group.forEach((g, i) => {
              const outcome = outcomes[i];
              if (!outcome) g.reject(new Error('a grouped request answered fewer calls than it was given'));
              else if (outcome.ok) g.resolve(outcome.value);
              else g.reject(outcome.error);
            }),
          (err: unknown) => group.forEach((g) => g.reject(err)),
        )
        .finally(() => {
          lane.running--;
          if (lane.running === 0 && lane.waiting.length === 0) lanes.delete(key);
          else pump(key);
        });
    }
  }

  return {
    submit(key: string, input: I): Promise<O> {
      return new Promise<O>((resolve, reject) => {
        let lane = lanes.get(key);
        if (!lane) lanes.set(key, (lane = { running: 0, waiting: [] }));
        lane.waiting.push({ input, resolve, reject });
        pump(key);
      });
    },
  };
}

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { watchMemory } from '../../workers/memory-figures';
import { eventually } from '../support/consumer';

/** A full collection on demand (what `--expose-gc` gives), without a flag on the test runner. */
function fullCollection(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('the worker memory figures', () => {
  it('report the heap left by the last full collection, not the garbage allocated since', async () => {
    const memory = watchMemory();
    try {
      fullCollection();
      const before = await eventually(async () => {
        const figures = memory.figures();
        return figures.full_gcs > 0 ? figures : undefined;
      }, 5_000);
      // Garbage: allocated and dropped, counted in the heap in use until a full collection.
      let garbage: Array<{ i: number; text: string }> | null = Array.from({ length: 300_000 }, (_, i) => ({ i, text: `item ${i}` }));
      expect(garbage.length).toBe(300_000);
      garbage = null;
      const piledUp = memory.figures();
      expect(piledUp.heap_used_bytes - before.heap_after_full_gc_bytes!).toBeGreaterThan(5 * 1024 * 1024);
      fullCollection();
      const after = await eventually(async () => {
        const figures = memory.figures();
        return figures.full_gcs > before.full_gcs ? figures : undefined;
      }, 5_000);
      expect(after.heap_after_full_gc_bytes).toBeLessThan(piledUp.heap_used_bytes - 5 * 1024 * 1024);
      expect(after.heap_after_full_gc_bytes).toBeLessThanOrEqual(after.heap_committed_bytes);
      expect(after.rss_bytes).toBeGreaterThan(after.heap_after_full_gc_bytes!);
    } finally {
      memory.stop();
    }
  });
});

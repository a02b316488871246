import { createProgressReporter } from '../../activities/document-progress';
import type { DocumentProgress } from '../../stores/documents';

// Jest's clock: the quiet time and the store's slow writes pass exactly when the test says so.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store whose writes land after `delayMs` each, recording what landed in which order. */
function recordingStore(answers: boolean[] = [], delayMs = 0) {
  const landed: DocumentProgress[] = [];
  let calls = 0;
  const write = async (fields: DocumentProgress) => {
    const answer = answers[calls++] ?? true;
    if (delayMs > 0) await pause(delayMs);
    landed.push(fields);
    return answer;
  };
  return { landed, write, calls: () => calls };
}

describe('parse progress writes', () => {
  it('writes nothing for a parse that ends within the quiet time, and hands every field to the final write', async () => {
    const store = recordingStore();
    const progress = createProgressReporter(store.write, 1_000);
    const started = new Date('2026-11-23T10:00:00Z');
    progress.report({ stage: 'extracting', started_at: started });
    await jest.advanceTimersByTimeAsync(999);
    progress.report({ stage: 'embedding', chunks_total: 37, token_count: 4_200 });
    progress.report({ chunks_indexed: 32 });
    expect(await progress.stop()).toBe(true);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(store.calls()).toBe(0);
    expect(progress.latest).toEqual({ stage: 'embedding', started_at: started, chunks_total: 37, token_count: 4_200, chunks_indexed: 32 });
  });

  it('writes what was reported once the quiet time is over, then each report in order with all fields so far', async () => {
    const store = recordingStore([], 15);
    const progress = createProgressReporter(store.write, 1_000);
    progress.report({ stage: 'extracting' });
    await jest.advanceTimersByTimeAsync(1_000);
    expect(store.calls()).toBe(1);
    await jest.advanceTimersByTimeAsync(15);
    expect(store.landed).toEqual([{ stage: 'extracting' }]);

    // Slow writes, reported back to back: they land one after the other, never out of order.
    progress.report({ stage: 'embedding', chunks_total: 10 });
    progress.report({ chunks_indexed: 4 });
    progress.report({ chunks_indexed: 8 });
    const settled = progress.settled();
    await jest.advanceTimersByTimeAsync(45);
    expect(await settled).toBe(true);
    expect(store.landed.slice(1)).toEqual([
      { stage: 'embedding', chunks_total: 10 },
      { stage: 'embedding', chunks_total: 10, chunks_indexed: 4 },
      { stage: 'embedding', chunks_total: 10, chunks_indexed: 8 },
    ]);
    await progress.stop();
    progress.report({ chunks_indexed: 10 });
    await jest.advanceTimersByTimeAsync(100);
    expect(store.calls()).toBe(4);
  });

  it('says when a write found no document being parsed, and writes nothing more', async () => {
    const store = recordingStore([true, false]);
    const progress = createProgressReporter(store.write, 1_000);
    progress.report({ stage: 'extracting' });
    await jest.advanceTimersByTimeAsync(1_000);
    progress.report({ stage: 'embedding' });
    expect(await progress.settled()).toBe(false);
    progress.report({ chunks_indexed: 1 });
    expect(await progress.stop()).toBe(false);
    expect(store.calls()).toBe(2);
  });

  it('writes everything at once when asked, quiet time or not', async () => {
    const store = recordingStore();
    const progress = createProgressReporter(store.write, 60_000);
    progress.report({ stage: 'embedding', chunks_total: 12 });
    progress.report({ chunks_indexed: 4 });
    expect(await progress.writeNow()).toBe(true);
    expect(store.landed).toEqual([{ stage: 'embedding', chunks_total: 12, chunks_indexed: 4 }]);
    await progress.stop();
  });

  it('starts no write when nothing was reported by the end of the quiet time', async () => {
    const store = recordingStore();
    const progress = createProgressReporter(store.write, 1_000);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(store.calls()).toBe(0);
    progress.report({ stage: 'extracting' });
    expect(await progress.settled()).toBe(true);
    expect(store.landed).toEqual([{ stage: 'extracting' }]);
    await progress.stop();
  });
});

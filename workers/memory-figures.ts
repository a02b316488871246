import { constants, type NodeGCPerformanceDetail, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

/** The worker process's memory as its health endpoint reports it (bytes). */
export interface MemoryFigures {
  rss_bytes: number;
  /** The JavaScript heap V8 holds from the system, garbage waiting for a collection included. */
  heap_committed_bytes: number;
  heap_used_bytes: number;
  /**
   * The heap still in use after the last full (mark-compact) collection: what the process keeps,
   * whatever garbage builds up between collections; null until the first one.
   */
  heap_after_full_gc_bytes: number | null;
  full_gcs: number;
}

/**
 * Watches the process's full garbage collections. RSS alone cannot tell growth from garbage: V8
 * lets the heap grow to a multiple of what survived the last full collection before the next one
 * (more under a high allocation rate), so a busy worker's RSS climbs and falls by hundreds of MiB
 * while what it keeps stays put. The heap after each full collection shows a leak as a leak.
 */
export function watchMemory(): { figures(): MemoryFigures; stop(): void } {
  let afterFullGc: number | null = null;
  let fullGcs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: NodeGCPerformanceDetail }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      fullGcs++;
      // Read as the entry is delivered (just after the collection): what has been allocated since is small.
      afterFullGc = getHeapStatistics().used_heap_size;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    figures() {
      const usage = process.memoryUsage();
      return {
        rss_bytes: usage.rss,
        heap_committed_bytes: usage.heapTotal,
        heap_used_bytes: usage.heapUsed,
        heap_after_full_gc_bytes: afterFullGc,
        full_gcs: fullGcs,
      };
    },
    stop: () => observer.disconnect(),
  };
}

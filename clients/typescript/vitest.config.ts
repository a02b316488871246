import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/** Files in path order, so that test/zz-surface.test.ts (every method was called) runs last. */
class PathOrder extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return Promise.resolve([...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId)));
  }
}

// One process, files one after another and sharing their modules: the live tests record which client
// methods they called (test/support/client.ts) and the last file checks that every one was.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    isolate: false,
    fileParallelism: false,
    sequence: { sequencer: PathOrder },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

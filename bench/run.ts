import { benchApi } from './api';
import { benchCompletions } from './completions';
import { benchIsolation } from './isolation';
import { benchKnowledge } from './knowledge';
import { benchLists } from './lists';
import { benchStreams } from './streams';
import { benchWebhooks } from './webhooks';

/** `npm run bench -- <name>...` (or `all`): each benchmark measures its own baseline in the same run. */
const benchmarks: Record<string, () => Promise<void>> = {
  api: benchApi,
  webhooks: benchWebhooks,
  knowledge: benchKnowledge,
  completions: benchCompletions,
  isolation: benchIsolation,
  lists: benchLists,
  streams: benchStreams,
};

async function main() {
  const asked = process.argv.slice(2);
  const names = asked.includes('all') ? Object.keys(benchmarks) : asked;
  const unknown = names.filter((n) => !benchmarks[n]);
  if (names.length === 0 || unknown.length > 0) {
    process.stderr.write(`usage: npm run bench -- <all|${Object.keys(benchmarks).join('|')}>...\n`);
    process.exit(2);
  }
  for (const name of names) await benchmarks[name]!();
}

main().catch((err) => {
  process.stderr.write(`benchmark failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});

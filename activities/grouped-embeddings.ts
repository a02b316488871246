import { createGroupCommit, type GroupOutcome } from '../common/group-commit';
import type { EmbeddingProvider } from '../upstream/embeddings';

const settle = (work: Promise<number[][]>): Promise<GroupOutcome<number[][]>> =>
  work.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );

/**
 * The embedding calls of documents parsed side by side in this process, merged per model into
 * upstream calls of up to `maxTexts` texts (group commit: a call made while `concurrency` calls of
 * its model are under way waits for the next shared one; one made when fewer are goes at once). Many
 * small documents then cost a few upstream round trips instead of one each. A merged call that fails
 * is made again document by document, so an input the upstream refuses fails only its own document.
 */
export function createGroupedEmbeddings({ maxTexts, concurrency }: { maxTexts: number; concurrency: number }) {
  const providers = new Map<string, EmbeddingProvider>();
  const calls = createGroupCommit<string[], number[][]>({
    concurrency,
    maxWeight: maxTexts,
    weight: (texts) => texts.length,
    async run(model, inputs) {
      const provider = providers.get(model)!;
      if (inputs.length === 1) return [await settle(provider.embed(inputs[0]!))];
      try {
        const texts = inputs.flat();
        const vectors = await provider.embed(texts);
        if (vectors.length !== texts.length) throw new Error('the upstream answered another number of vectors');
        let offset = 0;
        return inputs.map((texts) => ({ ok: true as const, value: vectors.slice(offset, (offset += texts.length)) }));
      } catch {
        return Promise.all(inputs.map((texts) => settle(provider.embed(texts))));
      }
    },
  });
  return {
    /** Vectors of `texts` in order, as `provider.embed` answers them. */
    embed(provider: EmbeddingProvider, texts: string[]): Promise<number[][]> {
      providers.set(provider.model, provider);
      return calls.submit(provider.model, texts);
    },
  };
}

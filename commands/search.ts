import type { SearchBody, SearchResult } from '../common/schemas/knowledge';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import { searchChunks } from '../knowledge/search';
import type { ChunkIndex } from '../stores/chunk-index';
import type { KnowledgeBaseStore } from '../stores/knowledge-bases';

/** Searching knowledge bases: the tenant's bases named in the request (10004 for any other), then one hybrid search over them. */
export function createSearchCommands(deps: { knowledgeBases: KnowledgeBaseStore; chunkIndex: ChunkIndex; catalog: KnowledgeCatalog }) {
  return {
    async search(tenantId: string, body: SearchBody): Promise<SearchResult> {
      const kbs = await deps.knowledgeBases.getMany(tenantId, body.kb_ids);
      return searchChunks(deps, tenantId, kbs, body);
    },
  };
}

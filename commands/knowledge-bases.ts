import { invalid } from '../common/errors';
import type { CreateKnowledgeBaseBody, KnowledgeBase, UpdateKnowledgeBaseBody } from '../common/schemas/knowledge';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import { getParser } from '../knowledge/parsers';
import type { KnowledgeBaseStore } from '../stores/knowledge-bases';

/** 10001 naming `field` for a parser this installation does not have. */
export function checkParser(id: string, field: string): void {
  if (!getParser(id)) throw invalid(`${field}: unknown parser ${id}; GET /v1/kb/parsers lists them`, { field });
}

/** Knowledge bases: created with a parser and an embedding model this installation has, changed with a consistent chunking. */
export function createKnowledgeBaseCommands({
  knowledgeBases,
  catalog,
}: {
  knowledgeBases: KnowledgeBaseStore;
  catalog: KnowledgeCatalog;
}) {
  /** A dimension is recorded at creation: the local model's is fixed, a remote one's is asked once. */
  async function embeddingFor(model: string | undefined) {
    const chosen = model ?? catalog.defaultModel;
    const embedder = catalog.embedder(chosen);
    if (!embedder)
      throw invalid(`body.embedding_model: ${chosen} is not offered here; GET /v1/kb/embedding-models lists them`, {
        field: 'body.embedding_model',
      });
    if (embedder.dimension === 0) await embedder.embed(['dimension probe']);
    return { model: embedder.model, dimension: embedder.dimension };
  }

  return {
    async create(tenantId: string, body: CreateKnowledgeBaseBody): Promise<KnowledgeBase> {
      checkParser(body.parser_id, 'body.parser_id');
      const { embedding_model: model, ...rest } = body;
      return knowledgeBases.create(tenantId, rest, await embeddingFor(model));
    },

    /** Fields present replace the stored ones; the overlap stays below the chunk size, whichever of them changes. */
    async update(tenantId: string, kbId: string, body: UpdateKnowledgeBaseBody): Promise<KnowledgeBase> {
      if (body.parser_id) checkParser(body.parser_id, 'body.parser_id');
      const current = await knowledgeBases.getDoc(tenantId, kbId);
      if ((body.overlap_tokens ?? current.overlap_tokens) >= (body.chunk_tokens ?? current.chunk_tokens)) {
        throw invalid('body.overlap_tokens: must be below chunk_tokens', { field: 'body.overlap_tokens' });
      }
      return knowledgeBases.update(tenantId, kbId, body);
    },
  };
}

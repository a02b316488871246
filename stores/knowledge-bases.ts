import type { Db } from 'mongodb';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { CreateKnowledgeBaseBody, KnowledgeBase, UpdateKnowledgeBaseBody } from '../common/schemas/knowledge';
import { findPage, type NamedPageRequest, tenantNamed } from './pagination';
import { createReadCache } from './read-cache';

export interface KnowledgeBaseDoc extends Omit<KnowledgeBase, 'kb_id' | 'document_count' | 'created_at' | 'updated_at'> {
  _id: string;
  tenant_id: string;
  created_at: Date;
  updated_at: Date;
}

/** `readCacheTtlMs`: how long a search may reuse a knowledge base's settings read by this process. */
export function createKnowledgeBaseStore(db: Db, { readCacheTtlMs = 0 }: { readCacheTtlMs?: number } = {}) {
  const bases = db.collection<KnowledgeBaseDoc>('knowledge_bases');
  const readCache = createReadCache<KnowledgeBaseDoc>(readCacheTtlMs);
  const documents = db.collection<{ kb_id: string; tenant_id: string }>('documents');

  const present = async ({ _id, tenant_id, created_at, updated_at, ...rest }: KnowledgeBaseDoc): Promise<KnowledgeBase> => ({
    kb_id: _id,
    ...rest,
    document_count: await documents.countDocuments({ tenant_id, kb_id: _id }),
    created_at: created_at.toISOString(),
    updated_at: updated_at.toISOString(),
  });

  async function getDoc(tenantId: string, kbId: string): Promise<KnowledgeBaseDoc> {
    const doc = await bases.findOne({ _id: kbId, tenant_id: tenantId });
    if (!doc) throw notFound('knowledge base', kbId);
    return doc;
  }

  return {
    getDoc,

    /** The knowledge base, or null when it is gone (or another tenant's); never from the read cache. */
    find: (tenantId: string, kbId: string): Promise<KnowledgeBaseDoc | null> => bases.findOne({ _id: kbId, tenant_id: tenantId }),

    async create(
      tenantId: string,
      body: Omit<CreateKnowledgeBaseBody, 'embedding_model'>,
      embedding: { model: string; dimension: number },
    ): Promise<KnowledgeBase> {
      const now = new Date();
      const doc: KnowledgeBaseDoc = {
        _id: newId('kb'),
        tenant_id: tenantId,
        ...body,
        embedding_model: embedding.model,
        dimension: embedding.dimension,
        created_at: now,
        updated_at: now,
      };
      await bases.insertOne(doc);
      return present(doc);
    },

    async list(tenantId: string, query: NamedPageRequest) {
      const docs = await findPage(bases, tenantNamed(tenantId, query), query, (d) => d);
      return { ...docs, items: await Promise.all(docs.items.map(present)) };
    },

    get: async (tenantId: string, kbId: string) => present(await getDoc(tenantId, kbId)),

    /**
     * Every id must be one of the tenant's knowledge bases; another tenant's is reported as missing.
     * Served from the read cache: searches repeat these reads on every request.
     */
    async getMany(tenantId: string, kbIds: string[]): Promise<KnowledgeBaseDoc[]> {
      return Promise.all([...new Set(kbIds)].map((id) => readCache.get(`${tenantId}|${id}`, () => getDoc(tenantId, id))));
    },

    async update(tenantId: string, kbId: string, changes: UpdateKnowledgeBaseBody): Promise<KnowledgeBase> {
      const doc = await bases.findOneAndUpdate(
        { _id: kbId, tenant_id: tenantId },
        { $set: { ...changes, updated_at: new Date() } },
        { returnDocument: 'after' },
      );
      if (!doc) throw notFound('knowledge base', kbId);
      readCache.invalidateTenant(tenantId);
      return present(doc);
    },

    async delete(tenantId: string, kbId: string): Promise<void> {
      const { deletedCount } = await bases.deleteOne({ _id: kbId, tenant_id: tenantId });
      readCache.invalidateTenant(tenantId);
      if (deletedCount === 0) throw notFound('knowledge base', kbId);
    },
  };
}

export type KnowledgeBaseStore = ReturnType<typeof createKnowledgeBaseStore>;

import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../common/config';
import type { ChunkIndex } from '../stores/chunk-index';
import type { DocumentDoc, DocumentStore, NewDocument } from '../stores/documents';
import type { KnowledgeBaseStore } from '../stores/knowledge-bases';
import { ingestWorkflowId, startDocumentIngest } from './workflow-starts';

export interface DocumentCommandDeps {
  temporal: Client;
  config: Config;
  documents: DocumentStore;
  knowledgeBases: KnowledgeBaseStore;
  chunkIndex: ChunkIndex;
}

/** Documents of knowledge bases: each upload is parsed by its own workflow; deletes stop it and take its chunks out. */
export function createDocumentCommands({ temporal, config, documents, knowledgeBases, chunkIndex }: DocumentCommandDeps) {
  /** Stops a parse still running, so it writes no chunk after the delete. */
  async function stopIngest(docId: string): Promise<void> {
    try {
      await temporal.workflow.getHandle(ingestWorkflowId(docId)).terminate('document deleted');
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) && !/already completed|not found/i.test(String(err))) throw err;
    }
  }

  async function remove(tenantId: string, docId: string): Promise<void> {
    await documents.delete(tenantId, docId);
    await stopIngest(docId);
    await chunkIndex.deleteWhere({ tenant_id: tenantId, doc_id: docId });
  }

  return {
    /** Stores the upload and starts its parse; a parse that cannot start takes the upload back. */
    async upload(input: NewDocument, traceId: string): Promise<DocumentDoc> {
      const doc = await documents.create(input);
      try {
        await startDocumentIngest(
          temporal,
          config.TEMPORAL_TASK_QUEUE,
          { tenantId: input.tenantId, kbId: input.kbId, docId: doc._id, timeoutMs: config.DOCUMENT_INGEST_TIMEOUT_MS },
          traceId,
        );
      } catch (err) {
        await documents.delete(input.tenantId, doc._id).catch(() => undefined);
        throw err;
      }
      return doc;
    },

    remove,

    /** Documents first, so a failure part-way leaves a knowledge base that can be deleted again. */
    async removeKnowledgeBase(tenantId: string, kbId: string): Promise<void> {
      await knowledgeBases.getDoc(tenantId, kbId);
      for (;;) {
        const page = await documents.list(tenantId, kbId, { page: 1, page_size: 100 });
        if (page.items.length === 0) break;
        for (const doc of page.items) await remove(tenantId, doc.doc_id);
      }
      await chunkIndex.deleteWhere({ tenant_id: tenantId, kb_id: kbId });
      await knowledgeBases.delete(tenantId, kbId);
    },
  };
}

import { z } from 'zod';
import { deletedResult, namedPageQuery, pageQuery } from '../../common/schemas/common';
import {
  createKnowledgeBaseBody,
  docId,
  document,
  documentChunkPage,
  documentPage,
  documentQuery,
  kbId,
  knowledgeBase,
  knowledgeBasePage,
  reparseBody,
  searchBody,
  searchResult,
  updateKnowledgeBaseBody,
  uploadBody,
  uploadFields,
} from '../../common/schemas/knowledge';
import { SUPPORTED_FORMATS } from '../../knowledge/extract';
import { listParsers } from '../../knowledge/parsers';
import { presentDocument } from '../../stores/documents';
import { uploadedFile } from '../middleware/upload-body';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Knowledge bases';
const kbParams = z.object({ kb_id: kbId }).strict();
const docParams = z.object({ doc_id: docId }).strict();

const parserList = z.object({ items: z.array(z.object({ parser_id: z.string(), description: z.string() })) }).meta({ id: 'ParserList' });
const embeddingModelList = z
  .object({ default: z.string(), items: z.array(z.object({ model: z.string(), dimension: z.number().int().nullable() })) })
  .meta({ id: 'EmbeddingModelList' });

export const knowledgeRoutes = (services: Services) => {
  const { knowledgeBases, documents, catalog, commands } = services;

  return [
    defineRoute({
      method: 'get',
      path: '/v1/kb/parsers',
      operationId: 'listParsers',
      tag,
      summary: 'Parsers a document can be split with',
      response: parserList,
      handler: () => ({ items: listParsers().map((p) => ({ parser_id: p.id, description: p.description })) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/kb/embedding-models',
      operationId: 'listEmbeddingModels',
      tag,
      summary: 'Embedding models a knowledge base can use',
      response: embeddingModelList,
      handler: () => ({
        default: catalog.defaultModel,
        items: catalog.models().map((model) => ({ model, dimension: catalog.embedder(model)!.dimension || null })),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/kb',
      operationId: 'createKnowledgeBase',
      tag,
      summary: 'Create a knowledge base',
      body: createKnowledgeBaseBody,
      response: knowledgeBase,
      handler: ({ principal, body }) => commands.knowledgeBases.create(principal.tenantId, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/kb',
      operationId: 'listKnowledgeBases',
      tag,
      summary: "List the tenant's knowledge bases",
      query: namedPageQuery,
      response: knowledgeBasePage,
      handler: ({ principal, query }) => knowledgeBases.list(principal.tenantId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/kb/{kb_id}',
      operationId: 'getKnowledgeBase',
      tag,
      summary: 'Get one knowledge base',
      params: kbParams,
      response: knowledgeBase,
      handler: ({ principal, params }) => knowledgeBases.get(principal.tenantId, params.kb_id),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/kb/{kb_id}',
      operationId: 'updateKnowledgeBase',
      tag,
      summary: 'Update a knowledge base (fields present replace the stored ones)',
      description: 'The embedding model is fixed at creation; chunking settings apply to documents uploaded afterwards.',
      params: kbParams,
      body: updateKnowledgeBaseBody,
      response: knowledgeBase,
      handler: ({ principal, params, body }) => commands.knowledgeBases.update(principal.tenantId, params.kb_id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/kb/{kb_id}',
      operationId: 'deleteKnowledgeBase',
      tag,
      summary: 'Delete a knowledge base with its documents and chunks',
      params: kbParams,
      response: deletedResult,
      handler: async ({ principal, params }) => {
        await commands.documents.removeKnowledgeBase(principal.tenantId, params.kb_id);
        return { deleted: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/kb/{kb_id}/documents',
      operationId: 'listDocuments',
      tag,
      summary: "List a knowledge base's documents",
      description: 'Newest first; `status` filters by parsing state.',
      params: kbParams,
      query: documentQuery,
      response: documentPage,
      handler: async ({ principal, params, query }) => {
        await knowledgeBases.getDoc(principal.tenantId, params.kb_id);
        return documents.list(principal.tenantId, params.kb_id, query);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/document',
      operationId: 'uploadDocument',
      tag,
      multipart: { documented: uploadBody },
      summary: 'Upload a document into a knowledge base',
      description:
        `multipart/form-data with \`file\`, \`kb_id\` and optionally \`parser_id\`. At most MAX_UPLOAD_BYTES ` +
        `(default 50 MiB). Formats: ${SUPPORTED_FORMATS.map((f) => f.format).join(', ')}. The reply has status \`parsing\` ` +
        'and chunk_count 0; poll GET /v1/document/{doc_id} until `ready` or `failed`. Counts against the 10-per-minute upload limit.',
      body: uploadFields,
      response: document,
      handler: async ({ ctx, principal, body: fields }) => {
        const file = uploadedFile(ctx);
        const doc = await commands.documents.upload(
          {
            tenantId: principal.tenantId,
            kbId: fields.kb_id,
            ...(fields.parser_id ? { parserId: fields.parser_id } : {}),
            fileName: file.originalFilename ?? 'upload',
            contentType: file.mimetype ?? 'application/octet-stream',
            bytes: file.contents,
          },
          ctx.state.traceId,
        );
        // The record as created (`parsing`, no chunks), not re-read: the parse may have moved on already.
        return presentDocument(doc);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/document/{doc_id}',
      operationId: 'getDocument',
      tag,
      summary: 'Get a document and its parsing progress',
      params: docParams,
      response: document,
      handler: ({ principal, params }) => documents.get(principal.tenantId, params.doc_id),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/document/{doc_id}/chunks',
      operationId: 'listDocumentChunks',
      tag,
      summary: "A document's chunks in document order (chunk viewer)",
      description:
        'Each chunk with its id, `position` (0-based order in the document), text and what the index keeps of where it sits: ' +
        'section path (headings), role, page, token count. Ordered by position, oldest first; `page` / `page_size` (1-100, ' +
        'default 20) as other lists, page n holding positions (n-1)·page_size to n·page_size-1, read as a range of positions, so ' +
        'a page deep into a huge document answers as fast as the first. The chunks listed are those `chunk_count` counts: a ' +
        "`ready` document's; during a reparse (and after one that failed) the previous parse's, which answer searches; a " +
        'document still being parsed for the first time answers the chunks indexed so far (`total` grows as the parse goes; ' +
        "a chunk shows up within a second of being indexed), and a failed one has none. Another tenant's document, or an " +
        'unknown one: 10004.',
      params: docParams,
      query: pageQuery,
      response: documentChunkPage,
      handler: ({ principal, params, query }) => commands.documents.chunks(principal.tenantId, params.doc_id, query),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/document/{doc_id}/reparse',
      operationId: 'reparseDocument',
      tag,
      summary: 'Parse a document again',
      description:
        "Parses the stored file again as a new parse (`parse` one more), with `parser_id` or the document's own parser and the " +
        "knowledge base's current chunk_tokens and overlap_tokens. The reply is the document back at `parsing` / `queued`; poll it " +
        "as after an upload. The previous parse's chunks keep answering searches until the new parse succeeds, then they are " +
        'replaced; if it fails, the document is `failed` with the reason and they stay searchable. 10005 while the document is being ' +
        'parsed. Ends with `document.parsed` or `document.failed`. Counts against the upload limit.',
      params: docParams,
      body: reparseBody,
      response: document,
      handler: async ({ ctx, principal, params, body }) => {
        return presentDocument(
          await commands.documents.reparse(
            principal.tenantId,
            params.doc_id,
            { parserId: body.parser_id },
            ctx.state.traceId,
            ctx.state.signal,
          ),
        );
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/document/{doc_id}',
      operationId: 'deleteDocument',
      tag,
      summary: 'Delete a document; its chunks leave the index',
      description: 'A parse still running is stopped first.',
      params: docParams,
      response: deletedResult,
      handler: async ({ principal, params }) => {
        await commands.documents.remove(principal.tenantId, params.doc_id);
        return { deleted: true as const };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/chunk/search',
      operationId: 'searchChunks',
      tag,
      summary: 'Hybrid (vector + full-text) search over knowledge bases',
      description:
        'Candidates come from one Elasticsearch query (kNN on the chunk embeddings and BM25 on the text, filtered to the ' +
        "caller's tenant and the given knowledge bases). similarity = (wv·vector_similarity + wk·term_similarity) / (wv + wk); " +
        'candidates below similarity_threshold are dropped, the best rerank_top_n are re-scored by the reranker and ordered ' +
        'by that score, and top_k are returned. All knowledge bases of one search must share an embedding model.',
      body: searchBody,
      response: searchResult,
      handler: ({ principal, body }) => commands.search.search(principal.tenantId, body),
    }),
  ];
};

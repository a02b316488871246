import { z } from 'zod';
import { isoDate, metadataMap, pageOf, pageQuery, referenceTo, resourceId } from './common';

export const kbId = resourceId('kb', 'knowledge base id');
export const docId = resourceId('doc', 'document id');
const parserId = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a parser id such as naive, laws, paper or patent')
  .meta({ description: 'chunking parser; GET /v1/kb/parsers lists them', example: 'naive' });

const chunking = {
  chunk_tokens: z.number().int().min(64).max(4096).meta({ description: 'largest chunk, in cl100k tokens (64-4096)' }),
  overlap_tokens: z
    .number()
    .int()
    .min(0)
    .max(1024)
    .meta({ description: 'tokens repeated between neighbouring chunks by splitting parsers (0-1024, below chunk_tokens)' }),
};
const overlapBelowChunk = (b: { chunk_tokens?: number; overlap_tokens?: number }) =>
  b.chunk_tokens === undefined || b.overlap_tokens === undefined || b.overlap_tokens < b.chunk_tokens;

export const createKnowledgeBaseBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(2000).default(''),
    embedding_model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'one of GET /v1/kb/embedding-models; the installation default when absent. Fixed once created.' }),
    parser_id: parserId.default('naive').meta({ description: 'parser of uploads that name none' }),
    chunk_tokens: chunking.chunk_tokens.default(512),
    overlap_tokens: chunking.overlap_tokens.default(64),
    metadata: metadataMap.default({}),
  })
  .strict()
  .refine(overlapBelowChunk, { path: ['overlap_tokens'], message: 'must be below chunk_tokens' })
  .meta({ id: 'CreateKnowledgeBaseRequest' });

export const updateKnowledgeBaseBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(2000),
    parser_id: parserId,
    chunk_tokens: chunking.chunk_tokens,
    overlap_tokens: chunking.overlap_tokens,
    metadata: metadataMap,
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field to update')
  .refine(overlapBelowChunk, { path: ['overlap_tokens'], message: 'must be below chunk_tokens' })
  .meta({ id: 'UpdateKnowledgeBaseRequest', description: 'Chunking changes apply to documents uploaded afterwards.' });

export const knowledgeBase = z
  .object({
    kb_id: kbId,
    name: z.string(),
    description: z.string(),
    embedding_model: z.string(),
    dimension: z.number().int().meta({ description: 'vector size of embedding_model, recorded at creation' }),
    parser_id: z.string(),
    chunk_tokens: z.number().int(),
    overlap_tokens: z.number().int(),
    metadata: z.record(z.string(), z.string()),
    document_count: z.number().int(),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .meta({ id: 'KnowledgeBase' });

const documentStatus = z.enum(['parsing', 'ready', 'failed']).meta({
  id: 'DocumentStatus',
  description: '`parsing` from upload until the chunks are searchable; then `ready`, or `failed` with `error`.',
});

const documentFailure = z
  .object({
    reason: z.enum(['unsupported', 'encrypted', 'corrupt', 'empty', 'too_large', 'embedding_failed', 'indexing_failed', 'timed_out']).meta({
      description:
        '`unsupported`: not one of the supported formats (or its parser was removed); `encrypted`: password-protected; ' +
        '`corrupt`: the file cannot be read, or its extraction and splitting ran over the time limit (PARSE_TIMEOUT_MS); ' +
        '`too_large`: a DOCX or XLSX that unpacks past ZIP_MAX_UNCOMPRESSED_BYTES or ZIP_MAX_COMPRESSION_RATIO (a zip bomb), ' +
        'or a file whose extraction needs more memory than a parsing thread has (PARSE_THREAD_MEMORY_MB); ' +
        '`empty`: no text to index; `embedding_failed`: the embedding model refused the chunks or is not configured; ' +
        '`indexing_failed`: the index, the database or the embedding upstream stayed unavailable through every retry; `timed_out`: still being parsed after DOCUMENT_INGEST_TIMEOUT_MS.',
    }),
    message: z.string().meta({ description: 'What went wrong, fit to show the uploader.' }),
  })
  .meta({ id: 'DocumentFailure' });

const ingestStage = z.enum(['queued', 'extracting', 'embedding', 'done', 'failed']);

export const document = z
  .object({
    doc_id: docId,
    kb_id: kbId,
    name: z.string().meta({ description: 'the uploaded file name' }),
    content_type: z.string(),
    format: z.string().nullable().meta({ description: 'detected format (text, markdown, html, pdf, docx, csv, xlsx, json)' }),
    size_bytes: z.number().int(),
    parser_id: z.string(),
    status: documentStatus,
    chunk_count: z.number().int().meta({
      description:
        "chunks searchable so far (during a reparse, and after one that failed, the previous parse's, which answer until a parse succeeds)",
    }),
    parse: z
      .number()
      .int()
      .min(1)
      .meta({ description: "which parse `status` and `progress` describe: 1 for the upload's, one more for every reparse" }),
    error: documentFailure.nullable(),
    progress: z
      .object({
        stage: ingestStage,
        fraction: z.number().min(0).max(1).meta({ description: 'share of the work done, 0 to 1' }),
        chunks_total: z.number().int().nullable().meta({ description: 'chunks the parser produced; null until split' }),
        chunks_indexed: z.number().int(),
        token_count: z.number().int().meta({ description: 'tokens over all chunks (cl100k)' }),
        started_at: isoDate.nullable(),
        finished_at: isoDate.nullable(),
      })
      .meta({
        id: 'DocumentProgress',
        description: 'Written as the parse goes once it has run for a second; a shorter parse records it all with its outcome.',
      }),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .meta({ id: 'Document' });

export const uploadFields = z
  .object({
    kb_id: kbId,
    parser_id: parserId.optional().meta({ description: "parser for this document; the knowledge base's parser_id when absent" }),
  })
  .strict();

export const reparseBody = z
  .object({
    parser_id: parserId.optional().meta({ description: "parser for the new parse; the document's own parser_id when absent" }),
  })
  .strict()
  .meta({ id: 'ReparseDocumentRequest' });

/** The multipart body as documented; the file part is checked by the upload handler. */
export const uploadBody = uploadFields
  .extend({ file: z.string().meta({ format: 'binary', description: 'the document (text, Markdown, HTML, PDF, DOCX, CSV, XLSX or JSON)' }) })
  .meta({ id: 'UploadDocumentRequest' });

export const documentQuery = pageQuery.extend({ status: documentStatus.optional() });

export const searchBody = z
  .object({
    question: z.string().trim().min(1).max(2000),
    kb_ids: z.array(referenceTo('kb', 'knowledge base id')).min(1).max(32),
    doc_ids: z
      .array(referenceTo('doc', 'document id'))
      .max(256)
      .optional()
      .meta({ description: 'restrict the search to these documents of the knowledge bases' }),
    top_k: z.number().int().min(1).max(100).default(8).meta({ description: 'chunks returned (1-100, default 8)' }),
    similarity_threshold: z
      .number()
      .min(0)
      .max(1)
      .default(0.2)
      .meta({ description: 'chunks whose combined similarity is below this are dropped (0-1, default 0.2)' }),
    vector_similarity_weight: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ description: 'weight of the vector (cosine) part, 0-1; default 0.7, or 1 - keyword_weight when only that is given' }),
    keyword_weight: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ description: 'weight of the term (BM25) part, 0-1; default 0.3, or 1 - vector_similarity_weight when only that is given' }),
    rerank_top_n: z.number().int().min(0).max(200).default(10).meta({
      description:
        'best candidates (by combined similarity) re-scored by the reranker; they lead the order by the mean of similarity and rerank_score, then top_k are taken; 0 turns reranking off (0-200, default 10)',
    }),
    highlight: z.boolean().default(true).meta({ description: 'return matched terms wrapped in <em>' }),
  })
  .strict()
  .refine((b) => (b.vector_similarity_weight ?? 0.7) + (b.keyword_weight ?? 0.3) > 0, {
    path: ['vector_similarity_weight'],
    message: 'vector_similarity_weight and keyword_weight cannot both be 0',
  })
  .meta({ id: 'ChunkSearchRequest' });

const searchedChunk = z
  .object({
    chunk_id: z.string(),
    content: z.string(),
    doc_id: docId,
    doc_name: z.string(),
    kb_id: kbId,
    position: z.number().int().meta({ description: '0-based order of the chunk in its document' }),
    section_path: z.array(z.string()),
    role: z.string().nullable(),
    page: z.number().int().nullable(),
    similarity: z.number().meta({ description: 'combined: (wv·vector + wk·term) / (wv + wk)' }),
    vector_similarity: z.number().meta({ description: 'cosine similarity of question and chunk, clamped to 0-1' }),
    term_similarity: z.number().meta({ description: 'BM25 score relative to the best BM25 score among the candidates, 0-1' }),
    rerank_score: z.number().nullable().meta({ description: 'reranker score, 0-1; null when the chunk was not re-scored' }),
    highlight: z
      .string()
      .nullable()
      .meta({ description: 'the content (or, when only its headings matched, the section path) with matched terms in <em>' }),
  })
  .meta({ id: 'SearchedChunk' });

export const searchResult = z
  .object({
    chunks: z.array(searchedChunk),
    total: z.number().int().meta({ description: 'candidates at or above similarity_threshold (before top_k)' }),
    doc_aggs: z
      .array(z.object({ doc_id: docId, doc_name: z.string(), count: z.number().int() }))
      .meta({ description: 'candidates per document, most first' }),
    embedding_model: z.string(),
    reranker: z.string().nullable(),
  })
  .meta({ id: 'ChunkSearchResult' });

const documentChunk = z
  .object({
    chunk_id: z.string().meta({ description: 'the id search answers with (`SearchedChunk.chunk_id`)' }),
    position: z.number().int().min(0).meta({ description: '0-based order of the chunk in its document; the list is ordered by it' }),
    content: z.string().meta({ description: 'the chunk text as indexed: what search matches, quotes and gives the model' }),
    section_path: z.array(z.string()).meta({
      description:
        'headings (or structural labels such as `Article 3`, `Claim 2`) from the document root down to the chunk; empty when none',
    }),
    role: z
      .string()
      .nullable()
      .meta({ description: "the parser's role for the chunk (`abstract`, `claim`, `reference`, `qa`, `row`, ...); null when none" }),
    page: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'page (PDF) or sheet (XLSX) the chunk starts on, 1-based; null for formats without pages' }),
    tokens: z.number().int().min(0).meta({ description: 'tokens of `content` (cl100k)' }),
    parse: z.number().int().min(1).meta({ description: "the document's parse that wrote the chunk (1: the upload's)" }),
  })
  .meta({ id: 'DocumentChunk' });

export const knowledgeBasePage = pageOf(knowledgeBase, 'KnowledgeBasePage');
export const documentPage = pageOf(document, 'DocumentPage');
export const documentChunkPage = pageOf(documentChunk, 'DocumentChunkPage');

export type CreateKnowledgeBaseBody = z.infer<typeof createKnowledgeBaseBody>;
export type UpdateKnowledgeBaseBody = z.infer<typeof updateKnowledgeBaseBody>;
export type KnowledgeBase = z.infer<typeof knowledgeBase>;
export type KnowledgeDocument = z.infer<typeof document>;
export type DocumentFailure = z.infer<typeof documentFailure>;
export type SearchBody = z.infer<typeof searchBody>;
export type SearchResult = z.infer<typeof searchResult>;
export type DocumentChunk = z.infer<typeof documentChunk>;
export type SearchedChunk = z.infer<typeof searchedChunk>;

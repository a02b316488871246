/**
 * Data hooks of the Knowledge section: knowledge bases (paged, create, edit, delete), their
 * documents (paged, filtered by status on the server, reparse, delete), a document and its chunks
 * (the chunk viewer), the parsers and embedding models to choose from, and chunk search.
 */
import type {
  ChunkSearchRequest,
  CreateKnowledgeBaseRequest,
  Document,
  DocumentStatus,
  KnowledgeBase,
  UpdateKnowledgeBaseRequest,
} from '@combo/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useApi } from './client';
import { usePagedList } from './paging';

const KEY = ['knowledge'] as const;
const KBS = [...KEY, 'kbs'] as const;
const DOCS = [...KEY, 'documents'] as const;
const DOC = [...KEY, 'document'] as const;

/** How often a document still `parsing` is looked at again, where the page shows it. */
export const PARSING_POLL_MS = 2_000;

export function useKnowledgeBases(name?: string) {
  const client = useApi();
  return usePagedList<KnowledgeBase>([...KBS, 'list', name ?? null], (page) =>
    client.knowledgeBases.list({ ...page, ...(name ? { name } : {}) }),
  );
}

/** The first 100 knowledge bases (the search playground's choice). */
export function useKnowledgeBaseChoices() {
  const client = useApi();
  return useQuery({
    queryKey: [...KBS, 'choices'],
    queryFn: () => client.knowledgeBases.list({ page_size: 100 }),
  });
}

export function useKnowledgeBase(kbId: string) {
  const client = useApi();
  return useQuery({ queryKey: [...KBS, 'one', kbId], queryFn: () => client.knowledgeBases.get(kbId) });
}

export function useParsers() {
  const client = useApi();
  return useQuery({ queryKey: [...KEY, 'parsers'], queryFn: () => client.parsers.list(), staleTime: 300_000 });
}

export function useEmbeddingModels() {
  const client = useApi();
  return useQuery({ queryKey: [...KEY, 'embedding-models'], queryFn: () => client.embeddingModels.list(), staleTime: 300_000 });
}

export function useCreateKnowledgeBase() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateKnowledgeBaseRequest) => client.knowledgeBases.create(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KBS }),
  });
}

export function useUpdateKnowledgeBase(kbId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateKnowledgeBaseRequest) => client.knowledgeBases.update(kbId, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KBS }),
  });
}

export function useDeleteKnowledgeBase() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (kbId: string) => client.knowledgeBases.delete(kbId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** A knowledge base's documents, page by page, filtered by status on the server. */
export function useDocuments(kbId: string, status: DocumentStatus | '') {
  const client = useApi();
  return usePagedList<Document>([...DOCS, kbId, status], (page) => client.documents.list(kbId, { ...page, ...(status ? { status } : {}) }));
}

/** One document, looked at again while it is parsing. */
export function useDocument(docId: string) {
  const client = useApi();
  return useQuery({
    queryKey: [...DOC, docId],
    queryFn: () => client.documents.get(docId),
    refetchInterval: (query) => (query.state.data?.status === 'parsing' ? PARSING_POLL_MS : false),
  });
}

export function useDeleteDocument() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (docId: string) => client.documents.delete(docId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useReparseDocument() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ docId, parserId }: { docId: string; parserId?: string }) =>
      client.documents.reparse(docId, parserId ? { parser_id: parserId } : {}),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...KEY] }),
  });
}

/** After the upload queue saw a document uploaded or parsed: the lists and counts that show it. */
export function useRefreshDocuments() {
  const queryClient = useQueryClient();
  return useCallback(
    (document: Document) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: [...DOCS, document.kb_id] }),
        queryClient.invalidateQueries({ queryKey: [...DOC, document.doc_id] }),
        queryClient.invalidateQueries({ queryKey: KBS }),
      ]),
    [queryClient],
  );
}

/** One page of a document's chunks in document order (`GET /v1/document/{doc_id}/chunks`). */
export function useChunkPage(docId: string, page: number, pageSize: number, parsing: boolean) {
  const client = useApi();
  return useQuery({
    queryKey: [...KEY, 'chunks', docId, { page, page_size: pageSize }],
    queryFn: () => client.documents.listChunks(docId, { page, page_size: pageSize }),
    placeholderData: keepPreviousData,
    // A first parse shows its chunks as they are indexed.
    refetchInterval: parsing ? PARSING_POLL_MS : false,
  });
}

export function useChunkSearch() {
  const client = useApi();
  return useMutation({ mutationFn: (body: ChunkSearchRequest) => client.chunks.search(body) });
}

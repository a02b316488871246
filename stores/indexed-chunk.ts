/*
 * A chunk's document in Elasticsearch, apart from the index that writes it (chunk-index.ts) and the
 * query that reads it (hybrid-query.ts), so that both import it and neither the other's type.
 */

/** One chunk as indexed in Elasticsearch; `_id` is the chunk id. */
export interface IndexedChunk {
  chunk_id: string;
  tenant_id: string;
  kb_id: string;
  doc_id: string;
  doc_name: string;
  position: number;
  section_path: string[];
  /** The section path as searchable text: headings match even though the content is below them. */
  section_text: string;
  role: string | null;
  page: number | null;
  tokens: number;
  content: string;
  embedding: number[];
  /** The document's parse that wrote it (1: the upload's); absent on chunks indexed before reparses existed. */
  parse: number;
  /** A reparse's chunk not searchable yet: the previous parse's chunks answer until the reparse succeeds. */
  staged: boolean;
}

/**
 * Knowledge → a document's chunks in document order (`GET /v1/document/{doc_id}/chunks`, paged on
 * the server): position, page, section path, role, tokens and the text as indexed. `?position=n`
 * opens the page holding chunk n and marks it (the search playground links its hits so).
 */
import type { DocumentChunk } from '@combo/client';
import { useEffect, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useChunkPage, useDocument } from '../../api/knowledge';
import type { PagedList } from '../../api/paging';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { Pagination } from '../../components/Pagination';
import { formatNumber, Time } from '../../components/Time';
import { formatBytes } from './format';
import { DocumentStatusCell } from './KnowledgeBasePage';

const PAGE_SIZE = 20;

function Chunk({ chunk, marked }: { chunk: DocumentChunk; marked: boolean }) {
  const headingId = `chunk-${chunk.position}`;
  return (
    <li className={marked ? 'kn-chunk kn-chunk-marked' : 'kn-chunk'}>
      <article aria-labelledby={headingId} id={marked ? 'marked-chunk' : undefined}>
        <header className="kn-chunk-head">
          <h3 id={headingId}>
            Position {chunk.position}
            {marked && <span className="kn-marked-note"> · the search hit</span>}
          </h3>
          <dl className="kn-chunk-facts">
            <div>
              <dt>Page</dt>
              <dd>{chunk.page ?? '—'}</dd>
            </div>
            <div>
              <dt>Tokens</dt>
              <dd>{formatNumber(chunk.tokens)}</dd>
            </div>
            {chunk.role && (
              <div>
                <dt>Role</dt>
                <dd>{chunk.role}</dd>
              </div>
            )}
            <div>
              <dt>Parse</dt>
              <dd>{chunk.parse}</dd>
            </div>
          </dl>
        </header>
        {chunk.section_path.length > 0 && (
          <p className="kn-section-path">
            <span className="visually-hidden">Section: </span>
            {chunk.section_path.join(' › ')}
          </p>
        )}
        <pre className="kn-chunk-text">{chunk.content}</pre>
      </article>
    </li>
  );
}

export function ChunkViewer() {
  const { docId = '' } = useParams();
  const [search] = useSearchParams();
  const markedPosition = search.get('position') === null ? undefined : Number(search.get('position'));
  const [paging, setPaging] = useState(() => ({
    page: markedPosition !== undefined && Number.isFinite(markedPosition) ? Math.floor(markedPosition / PAGE_SIZE) + 1 : 1,
    pageSize: PAGE_SIZE,
  }));
  const document = useDocument(docId);
  const parsing = document.data?.status === 'parsing';
  const chunks = useChunkPage(docId, paging.page, paging.pageSize, parsing);
  const list: PagedList<DocumentChunk> = {
    items: chunks.data?.items ?? [],
    total: chunks.data?.total ?? 0,
    page: paging.page,
    pageSize: paging.pageSize,
    setPage: (page) => setPaging((current) => ({ ...current, page: Math.max(1, page) })),
    setPageSize: (pageSize) => setPaging({ page: 1, pageSize }),
    isLoading: chunks.isLoading,
    isFetching: chunks.isFetching,
    error: chunks.error,
    refetch: () => void chunks.refetch(),
  };
  const markedShown = list.items.some((chunk) => chunk.position === markedPosition);

  // The chunk a search hit named: brought into view once its page is shown.
  useEffect(() => {
    if (markedShown) window.document.getElementById('marked-chunk')?.scrollIntoView({ block: 'center' });
  }, [markedShown]);

  const doc = document.data;
  return (
    <PageLayout
      title={doc ? doc.name : 'Document'}
      description="The document's chunks in document order, as they are indexed and searched."
      actions={
        doc && (
          <Link to={`/knowledge/search?kb=${encodeURIComponent(doc.kb_id)}&doc=${encodeURIComponent(doc.doc_id)}`} className="button">
            Search this document
          </Link>
        )
      }
    >
      <p className="kn-crumbs">
        <Link to="/knowledge">Knowledge bases</Link>
        {doc && (
          <>
            {' '}
            › <Link to={`/knowledge/${doc.kb_id}`}>Its knowledge base</Link> › {doc.name}
          </>
        )}
      </p>
      {document.error !== null && (
        <ErrorBanner error={document.error} title="Could not load the document" onRetry={() => void document.refetch()} />
      )}
      {doc && (
        <dl className="kn-facts">
          <div>
            <dt>Status</dt>
            <dd>
              <DocumentStatusCell document={doc} />
            </dd>
          </div>
          <div>
            <dt>Chunks</dt>
            <dd>{formatNumber(doc.chunk_count)}</dd>
          </div>
          <div>
            <dt>Parser</dt>
            <dd>
              <code>{doc.parser_id}</code>
            </dd>
          </div>
          <div>
            <dt>Format</dt>
            <dd>{doc.format ?? doc.content_type}</dd>
          </div>
          <div>
            <dt>Size</dt>
            <dd>{formatBytes(doc.size_bytes)}</dd>
          </div>
          <div>
            <dt>Tokens</dt>
            <dd>{formatNumber(doc.progress.token_count)}</dd>
          </div>
          <div>
            <dt>Uploaded</dt>
            <dd>
              <Time value={doc.created_at} />
            </dd>
          </div>
        </dl>
      )}
      <Section title="Chunks">
        {list.error !== null && <ErrorBanner error={list.error} title="Could not load the chunks" onRetry={list.refetch} />}
        {list.isLoading && <p className="muted loading">Loading the chunks…</p>}
        {!list.isLoading && list.total === 0 && list.error === null && (
          <EmptyState title="No chunks">
            <p>
              {doc?.status === 'failed'
                ? 'The document failed to parse: see its reason above, then reparse it or upload a readable file.'
                : doc?.status === 'parsing'
                  ? 'Its chunks show here as they are indexed.'
                  : 'The parser found nothing to index in it.'}
            </p>
          </EmptyState>
        )}
        {list.items.length > 0 && (
          <>
            <ol className="kn-chunks" aria-label="Chunks" aria-busy={list.isFetching}>
              {list.items.map((chunk) => (
                <Chunk key={chunk.chunk_id} chunk={chunk} marked={chunk.position === markedPosition} />
              ))}
            </ol>
            <Pagination list={list} label="chunks" />
          </>
        )}
      </Section>
    </PageLayout>
  );
}

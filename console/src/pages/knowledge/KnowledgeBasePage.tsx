/**
 * Knowledge → one knowledge base: its settings, the upload panel (drop or pick several files; each
 * shows its upload, then its parse, progress), and its documents page by page, filtered by status on
 * the server, with their status, chunk count, parser, size and failure reason; reparse or delete one
 * after confirming.
 */
import type { Document, DocumentStatus } from '@combo/client';
import { useEffect, useEffectEvent, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { PARSING_POLL_MS, useDeleteDocument, useDocuments, useKnowledgeBase, useParsers, useReparseDocument } from '../../api/knowledge';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { FilterBar } from '../../components/FilterBar';
import { PageLayout, Section } from '../../components/PageLayout';
import { ProgressBar } from '../../components/ProgressBar';
import { StatusBadge } from '../../components/StatusBadge';
import { formatNumber, Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { formatBytes, parseProgressText, REASONS, STATUS_TONE } from './format';
import { DeleteKnowledgeBaseDialog } from './KnowledgeBases';
import { UploadPanel } from './UploadQueue';

const STATUSES: Array<{ value: DocumentStatus | ''; label: string }> = [
  { value: '', label: 'Any status' },
  { value: 'parsing', label: 'parsing' },
  { value: 'ready', label: 'ready' },
  { value: 'failed', label: 'failed' },
];

/** A document's status: the badge, its parse progress while parsing, its reason when failed. */
export function DocumentStatusCell({ document }: { document: Document }) {
  return (
    <div className="kn-status">
      <StatusBadge tone={STATUS_TONE[document.status] ?? 'neutral'}>{document.status}</StatusBadge>
      {document.parse > 1 && <span className="muted"> parse {document.parse}</span>}
      {document.status === 'parsing' && (
        <ProgressBar
          label={`Parse of ${document.name}`}
          value={document.progress.stage === 'queued' ? undefined : document.progress.fraction}
          text={parseProgressText(document.progress)}
        />
      )}
      {document.status === 'failed' && document.error && (
        <p className="kn-failure">
          <strong>{document.error.reason}</strong>{' '}
          <span className="muted">({REASONS[document.error.reason] ?? document.error.reason})</span>
          <br />
          {document.error.message}
        </p>
      )}
    </div>
  );
}

function ReparseDialog({ document, parsers, onClose }: { document: Document | null; parsers: string[]; onClose: () => void }) {
  const reparse = useReparseDocument();
  const notify = useToast();
  const [parser, setParser] = useState('');
  const parserId = useId();
  return (
    <ConfirmDialog
      open={document !== null}
      title={`Reparse "${document?.name ?? ''}"?`}
      confirmLabel="Reparse"
      onClose={() => {
        setParser('');
        onClose();
      }}
      onConfirm={async () => {
        if (!document) return;
        await reparse.mutateAsync({ docId: document.doc_id, ...(parser ? { parserId: parser } : {}) });
        notify(`Reparsing "${document.name}"`);
        setParser('');
      }}
    >
      <p>
        The stored file is parsed again with the knowledge base's current chunking. Searches keep answering with the present{' '}
        {formatNumber(document?.chunk_count ?? 0)} chunks until the new parse succeeds; then they are replaced.
      </p>
      <div className="field">
        <label htmlFor={parserId}>Parser</label>
        <select id={parserId} value={parser} onChange={(event) => setParser(event.target.value)}>
          <option value="">the document's own ({document?.parser_id})</option>
          {parsers.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </div>
    </ConfirmDialog>
  );
}

function Documents({ kbId, parsers }: { kbId: string; parsers: string[] }) {
  const [status, setStatus] = useState<DocumentStatus | ''>('');
  const [reparsing, setReparsing] = useState<Document | null>(null);
  const [deleting, setDeleting] = useState<Document | null>(null);
  const statusId = useId();
  const documents = useDocuments(kbId, status);
  const remove = useDeleteDocument();
  const notify = useToast();
  const parsing = documents.items.some((document) => document.status === 'parsing');
  const refetch = useEffectEvent(() => documents.refetch());

  // Documents being parsed are looked at again until they end.
  useEffect(() => {
    if (!parsing) return;
    const timer = setInterval(() => refetch(), PARSING_POLL_MS);
    return () => clearInterval(timer);
  }, [parsing]);

  const columns: Column<Document>[] = [
    {
      key: 'name',
      header: 'Document',
      render: (document) => (
        <>
          <Link to={`/knowledge/documents/${document.doc_id}`}>{document.name}</Link>
          <div className="muted kn-cell-note">{document.format ?? document.content_type}</div>
        </>
      ),
    },
    { key: 'status', header: 'Status', render: (document) => <DocumentStatusCell document={document} /> },
    { key: 'chunks', header: 'Chunks', kind: 'numeric', render: (document) => formatNumber(document.chunk_count) },
    { key: 'parser', header: 'Parser', render: (document) => <code>{document.parser_id}</code> },
    { key: 'size', header: 'Size', kind: 'numeric', render: (document) => formatBytes(document.size_bytes) },
    { key: 'uploaded', header: 'Uploaded', render: (document) => <Time value={document.created_at} /> },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (document) => (
        <span className="kn-actions">
          <button
            type="button"
            className="button button-small"
            onClick={() => setReparsing(document)}
            disabled={document.status === 'parsing'}
          >
            Reparse<span className="visually-hidden"> {document.name}</span>
          </button>
          <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(document)}>
            Delete<span className="visually-hidden"> {document.name}</span>
          </button>
        </span>
      ),
    },
  ];

  return (
    <Section title="Documents">
      <FilterBar label="documents" active={status !== ''} onApply={() => undefined} onClear={() => setStatus('')}>
        <div className="field">
          <label htmlFor={statusId}>Status</label>
          <select id={statusId} value={status} onChange={(event) => setStatus(event.target.value as DocumentStatus | '')}>
            {STATUSES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
      </FilterBar>
      <DataTable
        caption="documents"
        columns={columns}
        // The polls while documents parse are not a page change: the table is not shown busy (faded) for them.
        list={parsing ? { ...documents, isFetching: false } : documents}
        rowKey={(document) => document.doc_id}
        empty={
          <EmptyState title={status ? `No ${status} documents` : 'No documents yet'}>
            <p>{status ? 'Choose another status, or clear the filter.' : 'Drop files above, or choose them, to upload them.'}</p>
          </EmptyState>
        }
      />
      <ReparseDialog document={reparsing} parsers={parsers} onClose={() => setReparsing(null)} />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the document "${deleting?.name ?? ''}"?`}
        confirmLabel="Delete document"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await remove.mutateAsync(deleting.doc_id);
          notify(`Document "${deleting.name}" deleted`);
        }}
      >
        <p>
          Its file and its {formatNumber(deleting?.chunk_count ?? 0)} chunks are deleted, and searches no longer find them
          {deleting?.status === 'parsing' ? '; its parse is stopped' : ''}. This cannot be undone.
        </p>
      </ConfirmDialog>
    </Section>
  );
}

export function KnowledgeBasePage() {
  const { kbId = '' } = useParams();
  const kb = useKnowledgeBase(kbId);
  const parsers = useParsers();
  const navigate = useNavigate();
  const [deleting, setDeleting] = useState(false);
  const parserIds = parsers.data?.items.map((parser) => parser.parser_id) ?? [];

  if (!kb.data) {
    return (
      <PageLayout title="Knowledge base">
        <p>
          <Link to="/knowledge">All knowledge bases</Link>
        </p>
        {kb.error !== null && <ErrorBanner error={kb.error} title="Could not load the knowledge base" onRetry={() => void kb.refetch()} />}
        {kb.isLoading && <p className="muted loading">Loading the knowledge base…</p>}
      </PageLayout>
    );
  }
  const data = kb.data;
  return (
    <PageLayout
      title={data.name}
      description={data.description || undefined}
      actions={
        <>
          <Link to={`/knowledge/search?kb=${encodeURIComponent(data.kb_id)}`} className="button">
            Search it
          </Link>
          <Link to={`/knowledge/${data.kb_id}/edit`} className="button">
            Edit
          </Link>
          <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </>
      }
    >
      <p className="kn-crumbs">
        <Link to="/knowledge">Knowledge bases</Link> › {data.name}
      </p>
      <dl className="kn-facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{data.kb_id}</code>
          </dd>
        </div>
        <div>
          <dt>Embedding model</dt>
          <dd>
            <code>{data.embedding_model}</code> ({data.dimension} dimensions)
          </dd>
        </div>
        <div>
          <dt>Parser</dt>
          <dd>
            <code>{data.parser_id}</code>
          </dd>
        </div>
        <div>
          <dt>Chunking</dt>
          <dd>
            {data.chunk_tokens} tokens, {data.overlap_tokens} overlap
          </dd>
        </div>
        <div>
          <dt>Documents</dt>
          <dd>{formatNumber(data.document_count)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time value={data.created_at} />
          </dd>
        </div>
      </dl>
      <Section title="Upload documents">
        <UploadPanel kbId={data.kb_id} parsers={parserIds} defaultParser={data.parser_id} />
      </Section>
      <Documents kbId={data.kb_id} parsers={parserIds} />
      <DeleteKnowledgeBaseDialog
        kb={deleting ? data : null}
        onClose={() => setDeleting(false)}
        onDeleted={() => void navigate('/knowledge', { replace: true })}
      />
    </PageLayout>
  );
}

/** Knowledge → the knowledge bases, page by page: open, edit or delete one (after confirming), or create one. */
import type { KnowledgeBase } from '@combo/client';
import { useState } from 'react';
import { Link } from 'react-router';
import { useDeleteKnowledgeBase, useKnowledgeBases } from '../../api/knowledge';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { NameFilter, NoNameMatch, useNameParam } from '../../components/NameFilter';
import { PageLayout, Section } from '../../components/PageLayout';
import { formatNumber, Time } from '../../components/Time';
import { useToast } from '../../components/Toast';

/** Asks before deleting a knowledge base with everything in it. */
export function DeleteKnowledgeBaseDialog({
  kb,
  onClose,
  onDeleted,
}: {
  kb: KnowledgeBase | null;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const remove = useDeleteKnowledgeBase();
  const notify = useToast();
  return (
    <ConfirmDialog
      open={kb !== null}
      title={`Delete the knowledge base "${kb?.name ?? ''}"?`}
      confirmLabel="Delete knowledge base"
      onClose={onClose}
      onConfirm={async () => {
        if (!kb) return;
        await remove.mutateAsync(kb.kb_id);
        notify(`Knowledge base "${kb.name}" deleted`);
        onDeleted?.();
      }}
    >
      <p>
        Its {formatNumber(kb?.document_count ?? 0)} documents, their files and their chunks are deleted with it, and agents that search it
        find nothing there any more. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

export function KnowledgeBases() {
  const [name, setName] = useNameParam();
  const kbs = useKnowledgeBases(name);
  const [deleting, setDeleting] = useState<KnowledgeBase | null>(null);

  const columns: Column<KnowledgeBase>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (kb) => (
        <>
          <Link to={`/knowledge/${kb.kb_id}`}>
            <strong>{kb.name}</strong>
          </Link>
          {kb.description && <div className="muted kn-cell-note">{kb.description}</div>}
        </>
      ),
    },
    { key: 'documents', header: 'Documents', kind: 'numeric', render: (kb) => formatNumber(kb.document_count) },
    {
      key: 'model',
      header: 'Embedding model',
      render: (kb) => (
        <>
          <code>{kb.embedding_model}</code> <span className="muted">({kb.dimension} d)</span>
        </>
      ),
    },
    { key: 'parser', header: 'Parser', render: (kb) => <code>{kb.parser_id}</code> },
    { key: 'chunking', header: 'Chunking', render: (kb) => `${kb.chunk_tokens} tokens, ${kb.overlap_tokens} overlap` },
    { key: 'created', header: 'Created', render: (kb) => <Time value={kb.created_at} /> },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (kb) => (
        <span className="kn-actions">
          <Link to={`/knowledge/${kb.kb_id}/edit`} className="button button-small">
            Edit<span className="visually-hidden"> {kb.name}</span>
          </Link>
          <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(kb)}>
            Delete<span className="visually-hidden"> {kb.name}</span>
          </button>
        </span>
      ),
    },
  ];

  return (
    <PageLayout
      title="Knowledge"
      description="Knowledge bases hold uploaded documents, parsed into chunks that agents and the search playground retrieve."
      actions={
        <>
          <Link to="/knowledge/search" className="button">
            Search playground
          </Link>
          <Link to="/knowledge/new" className="button button-primary">
            New knowledge base
          </Link>
        </>
      }
    >
      <Section title="Knowledge bases">
        <NameFilter key={name ?? ''} label="knowledge bases" name={name} onApply={setName} />
        <DataTable
          caption="knowledge bases"
          columns={columns}
          list={kbs}
          rowKey={(kb) => kb.kb_id}
          empty={
            name ? (
              <NoNameMatch what="knowledge base" name={name} />
            ) : (
              <EmptyState
                title="No knowledge bases yet"
                action={
                  <Link to="/knowledge/new" className="button button-primary">
                    Create a knowledge base
                  </Link>
                }
              >
                <p>Create one, choosing its embedding model and parser, then drop documents on its page.</p>
              </EmptyState>
            )
          }
        />
      </Section>
      <DeleteKnowledgeBaseDialog kb={deleting} onClose={() => setDeleting(null)} />
    </PageLayout>
  );
}

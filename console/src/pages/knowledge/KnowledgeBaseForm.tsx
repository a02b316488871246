/**
 * Knowledge → create a knowledge base (name, embedding model and parser from the service's lists,
 * chunking, labels) or edit one (its embedding model is fixed once created). The API's validation
 * message is shown, and the control its `data.field` names is marked.
 */
import type { KnowledgeBase } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { fieldOf } from '../../api/errors';
import { useCreateKnowledgeBase, useEmbeddingModels, useKnowledgeBase, useParsers, useUpdateKnowledgeBase } from '../../api/knowledge';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { useToast } from '../../components/Toast';

interface Draft {
  name: string;
  description: string;
  embeddingModel: string;
  parserId: string;
  chunkTokens: string;
  overlapTokens: string;
  metadata: string;
}

const draftOf = (kb?: KnowledgeBase): Draft => ({
  name: kb?.name ?? '',
  description: kb?.description ?? '',
  embeddingModel: kb?.embedding_model ?? '',
  parserId: kb?.parser_id ?? 'naive',
  chunkTokens: String(kb?.chunk_tokens ?? 512),
  overlapTokens: String(kb?.overlap_tokens ?? 64),
  metadata: Object.entries(kb?.metadata ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join('\n'),
});

/** `key=value` lines as labels; a line without `=` is named in the error. */
function parseMetadata(text: string): { metadata: Record<string, string> } | { error: string } {
  const metadata: Record<string, string> = {};
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf('=');
    if (at <= 0) return { error: `Line ${index + 1} of the labels is not key=value.` };
    metadata[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { metadata };
}

function KnowledgeBaseFields({ kb, onSaved }: { kb?: KnowledgeBase; onSaved: (kb: KnowledgeBase) => void }) {
  const editing = kb !== undefined;
  const parsers = useParsers();
  const models = useEmbeddingModels();
  const create = useCreateKnowledgeBase();
  const update = useUpdateKnowledgeBase(kb?.kb_id ?? '');
  const mutation = editing ? update : create;
  const [draft, setDraft] = useState<Draft>(() => draftOf(kb));
  const [localError, setLocalError] = useState<string | null>(null);
  const ids = {
    name: useId(),
    description: useId(),
    model: useId(),
    modelHelp: useId(),
    parser: useId(),
    parserHelp: useId(),
    chunk: useId(),
    overlap: useId(),
    chunkHelp: useId(),
    metadata: useId(),
    metadataHelp: useId(),
  };
  const invalid = fieldOf(mutation.error);
  const invalidProps = (field: string) => ({ 'aria-invalid': invalid === field || invalid?.startsWith(`${field}.`) });
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));
  const modelChoice = draft.embeddingModel || models.data?.default || '';
  const parserDescription = parsers.data?.items.find((p) => p.parser_id === draft.parserId)?.description;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const labels = parseMetadata(draft.metadata);
    if ('error' in labels) return setLocalError(labels.error);
    setLocalError(null);
    const common = {
      name: draft.name.trim(),
      description: draft.description,
      parser_id: draft.parserId,
      chunk_tokens: Number(draft.chunkTokens),
      overlap_tokens: Number(draft.overlapTokens),
      metadata: labels.metadata,
    };
    if (editing) update.mutate(common, { onSuccess: onSaved });
    else create.mutate({ ...common, ...(modelChoice ? { embedding_model: modelChoice } : {}) }, { onSuccess: onSaved });
  };

  return (
    <form className="kn-form" onSubmit={submit} aria-label={editing ? `Edit ${kb.name}` : 'Create a knowledge base'} noValidate>
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          value={draft.name}
          onChange={(event) => set({ name: event.target.value })}
          required
          placeholder="e.g. product manuals"
          {...invalidProps('name')}
        />
      </div>
      <div className="field">
        <label htmlFor={ids.description}>Description</label>
        <textarea
          id={ids.description}
          rows={2}
          value={draft.description}
          onChange={(event) => set({ description: event.target.value })}
          {...invalidProps('description')}
        />
      </div>
      <div className="kn-form-grid">
        <div className="field">
          <label htmlFor={ids.model}>Embedding model</label>
          <select
            id={ids.model}
            value={modelChoice}
            onChange={(event) => set({ embeddingModel: event.target.value })}
            disabled={editing || models.isLoading}
            aria-describedby={ids.modelHelp}
            {...invalidProps('embedding_model')}
          >
            {editing && <option value={kb.embedding_model}>{kb.embedding_model}</option>}
            {!editing &&
              models.data?.items.map((model) => (
                <option key={model.model} value={model.model}>
                  {model.model}
                  {model.dimension !== null ? ` (${model.dimension} dimensions)` : ''}
                  {model.model === models.data?.default ? ' · default' : ''}
                </option>
              ))}
          </select>
          <p className="help" id={ids.modelHelp}>
            {editing ? 'Fixed once the knowledge base is created.' : 'Fixed once created: knowledge bases searched together share it.'}
          </p>
        </div>
        <div className="field">
          <label htmlFor={ids.parser}>Parser</label>
          <select
            id={ids.parser}
            value={draft.parserId}
            onChange={(event) => set({ parserId: event.target.value })}
            aria-describedby={ids.parserHelp}
            {...invalidProps('parser_id')}
          >
            {!parsers.data?.items.some((p) => p.parser_id === draft.parserId) && <option value={draft.parserId}>{draft.parserId}</option>}
            {parsers.data?.items.map((parser) => (
              <option key={parser.parser_id} value={parser.parser_id}>
                {parser.parser_id}
              </option>
            ))}
          </select>
          <p className="help" id={ids.parserHelp}>
            {parserDescription ?? 'How uploads that name no parser are split into chunks.'}
          </p>
        </div>
        <div className="field">
          <label htmlFor={ids.chunk}>Chunk size (tokens)</label>
          <input
            id={ids.chunk}
            type="number"
            min={64}
            max={4096}
            value={draft.chunkTokens}
            onChange={(event) => set({ chunkTokens: event.target.value })}
            aria-describedby={ids.chunkHelp}
            {...invalidProps('chunk_tokens')}
          />
        </div>
        <div className="field">
          <label htmlFor={ids.overlap}>Overlap (tokens)</label>
          <input
            id={ids.overlap}
            type="number"
            min={0}
            max={1024}
            value={draft.overlapTokens}
            onChange={(event) => set({ overlapTokens: event.target.value })}
            aria-describedby={ids.chunkHelp}
            {...invalidProps('overlap_tokens')}
          />
        </div>
      </div>
      <p className="help" id={ids.chunkHelp}>
        Chunks of 64 to 4096 tokens; the overlap is below the chunk size.
        {editing && ' Changes apply to documents uploaded (or reparsed) afterwards.'}
      </p>
      <div className="field">
        <label htmlFor={ids.metadata}>Labels</label>
        <textarea
          id={ids.metadata}
          rows={3}
          value={draft.metadata}
          onChange={(event) => set({ metadata: event.target.value })}
          aria-describedby={ids.metadataHelp}
          placeholder="team=support"
          aria-invalid={localError !== null || invalid === 'metadata' || invalid?.startsWith('metadata.')}
        />
        <p className="help" id={ids.metadataHelp}>
          One <code>key=value</code> per line, at most 32.
        </p>
      </div>
      {localError && (
        <p className="banner banner-error" role="alert">
          {localError}
        </p>
      )}
      {(parsers.error || models.error) && (
        <ErrorBanner error={parsers.error ?? models.error} title="Could not load the parsers and embedding models" />
      )}
      {mutation.error !== null && (
        <ErrorBanner error={mutation.error} title={editing ? 'Could not save the knowledge base' : 'Could not create the knowledge base'} />
      )}
      <div className="kn-form-actions">
        <button type="submit" className="button button-primary" disabled={mutation.isPending}>
          {mutation.isPending ? 'Saving…' : editing ? 'Save changes' : 'Create knowledge base'}
        </button>
        <Link to={editing ? `/knowledge/${kb.kb_id}` : '/knowledge'} className="button">
          Cancel
        </Link>
      </div>
    </form>
  );
}

export function NewKnowledgeBase() {
  const navigate = useNavigate();
  const notify = useToast();
  return (
    <PageLayout title="New knowledge base" description="Choose how its documents are embedded and split; then drop documents on its page.">
      <Section title="Knowledge base">
        <KnowledgeBaseFields
          onSaved={(kb) => {
            notify(`Knowledge base "${kb.name}" created`);
            void navigate(`/knowledge/${kb.kb_id}`);
          }}
        />
      </Section>
    </PageLayout>
  );
}

export function EditKnowledgeBase() {
  const { kbId = '' } = useParams();
  const kb = useKnowledgeBase(kbId);
  const navigate = useNavigate();
  const notify = useToast();
  return (
    <PageLayout
      title={kb.data ? `Edit ${kb.data.name}` : 'Edit knowledge base'}
      description="Name, description, parser, chunking and labels."
    >
      {kb.error !== null && <ErrorBanner error={kb.error} title="Could not load the knowledge base" onRetry={() => void kb.refetch()} />}
      {kb.isLoading && <p className="muted loading">Loading the knowledge base…</p>}
      {kb.data && (
        <Section title="Knowledge base">
          <KnowledgeBaseFields
            key={kb.data.kb_id}
            kb={kb.data}
            onSaved={(saved) => {
              notify(`Knowledge base "${saved.name}" saved`);
              void navigate(`/knowledge/${saved.kb_id}`);
            }}
          />
        </Section>
      )}
    </PageLayout>
  );
}

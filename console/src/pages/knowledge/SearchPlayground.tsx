/**
 * Knowledge → the search playground: the contract's search parameters (`POST /v1/chunk/search`) as
 * controls, and for each hit its combined `similarity` with its parts, `vector_similarity`,
 * `term_similarity` and `rerank_score`, as labelled bars and numbers.
 */
import type { ChunkSearchRequest, ChunkSearchResult, SearchedChunk } from '@combo/client';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { fieldOf } from '../../api/errors';
import { useChunkSearch, useKnowledgeBaseChoices } from '../../api/knowledge';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { formatNumber } from '../../components/Time';
import { formatScore } from './format';

interface Controls {
  question: string;
  kbIds: string[];
  docIds: string;
  topK: string;
  threshold: string;
  vectorWeight: string;
  keywordWeight: string;
  linked: boolean;
  rerankTopN: string;
  highlight: boolean;
}

/** The contract's defaults. */
const DEFAULTS: Omit<Controls, 'question' | 'kbIds' | 'docIds'> = {
  topK: '8',
  threshold: '0.2',
  vectorWeight: '0.7',
  keywordWeight: '0.3',
  linked: true,
  rerankTopN: '10',
  highlight: true,
};

/** 1 - x, kept to two decimals ("0.7" → "0.3"). */
const complement = (value: string): string => {
  const number = Number(value);
  return Number.isFinite(number) ? String(Math.round((1 - number) * 100) / 100) : '';
};

function requestOf(controls: Controls): ChunkSearchRequest {
  const docIds = controls.docIds
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter(Boolean);
  const number = (text: string) => (text.trim() === '' ? undefined : Number(text));
  const fields: Partial<ChunkSearchRequest> = {
    top_k: number(controls.topK),
    similarity_threshold: number(controls.threshold),
    vector_similarity_weight: number(controls.vectorWeight),
    keyword_weight: number(controls.keywordWeight),
    rerank_top_n: number(controls.rerankTopN),
  };
  const given = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  return {
    question: controls.question,
    kb_ids: controls.kbIds,
    ...(docIds.length > 0 ? { doc_ids: docIds } : {}),
    ...given,
    highlight: controls.highlight,
  };
}

/** A score from 0 to 1 as a bar (drawn, not read: the number beside it says it). */
function ScoreBar({ value, kind }: { value: number; kind: string }) {
  const width = Math.round(Math.min(Math.max(value, 0), 1) * 1000) / 10;
  return (
    <svg className={`kn-bar kn-bar-${kind}`} viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect className="kn-bar-track" x="0" y="0" width="100" height="8" rx="2" />
      <rect className="kn-bar-fill" x="0" y="0" width={width} height="8" rx="2" />
    </svg>
  );
}

function Score({ label, value, kind, note }: { label: string; value: number | null; kind: string; note?: ReactNode }) {
  return (
    <div className="kn-score">
      <dt>{label}</dt>
      <dd>
        {value === null ? (
          <span className="muted">not re-scored</span>
        ) : (
          <>
            <ScoreBar value={value} kind={kind} />
            <span className="kn-score-value">{formatScore(value)}</span>
          </>
        )}
        {note && <span className="muted kn-score-note">{note}</span>}
      </dd>
    </div>
  );
}

/** The highlight's matched terms (`<em>`) as marks; everything else stays text (never parsed as HTML). */
function Highlighted({ text }: { text: string }) {
  const pieces: ReactNode[] = [];
  let inside = false;
  for (const [index, part] of text.split(/(<em>|<\/em>)/).entries()) {
    if (part === '<em>') inside = true;
    else if (part === '</em>') inside = false;
    else if (part) pieces.push(inside ? <mark key={index}>{part}</mark> : part);
  }
  return <>{pieces}</>;
}

function Hit({ hit, rank }: { hit: SearchedChunk; rank: number }) {
  const headingId = useId();
  return (
    <li className="kn-hit">
      <article aria-labelledby={headingId}>
        <header className="kn-hit-head">
          <h3 id={headingId}>
            {rank}. {hit.doc_name} <span className="muted">· position {hit.position}</span>
            {hit.page !== null && <span className="muted"> · page {hit.page}</span>}
          </h3>
          <Link to={`/knowledge/documents/${hit.doc_id}?position=${hit.position}`} className="button button-small">
            Open in the chunk viewer
            <span className="visually-hidden">
              : {hit.doc_name}, position {hit.position}
            </span>
          </Link>
        </header>
        {hit.section_path.length > 0 && (
          <p className="kn-section-path">
            <span className="visually-hidden">Section: </span>
            {hit.section_path.join(' › ')}
            {hit.role && <span className="muted"> · {hit.role}</span>}
          </p>
        )}
        <dl className="kn-scores" aria-label={`Scores of hit ${rank}`}>
          <Score label="Similarity" value={hit.similarity} kind="combined" note="combined" />
          <Score label="Vector similarity" value={hit.vector_similarity} kind="vector" note="cosine" />
          <Score label="Term similarity" value={hit.term_similarity} kind="term" note="BM25, relative" />
          <Score label="Rerank score" value={hit.rerank_score} kind="rerank" />
        </dl>
        <p className="kn-hit-text">{hit.highlight ? <Highlighted text={hit.highlight} /> : hit.content}</p>
      </article>
    </li>
  );
}

function Results({ result, request }: { result: ChunkSearchResult; request: ChunkSearchRequest }) {
  const wv = request.vector_similarity_weight ?? (request.keyword_weight !== undefined ? 1 - request.keyword_weight : 0.7);
  const wk = request.keyword_weight ?? (request.vector_similarity_weight !== undefined ? 1 - request.vector_similarity_weight : 0.3);
  return (
    <Section title="Results">
      <p className="kn-results-summary" role="status">
        {formatNumber(result.chunks.length)} {result.chunks.length === 1 ? 'hit' : 'hits'} shown of {formatNumber(result.total)} candidates
        above the threshold · embedding model <code>{result.embedding_model}</code> · reranker{' '}
        {result.reranker ? <code>{result.reranker}</code> : 'none'}
      </p>
      <p className="help">
        Similarity = ({formatScore(wv)} × vector + {formatScore(wk)} × term) / {formatScore(wv + wk)}.
        {result.reranker && request.rerank_top_n !== 0 && ' Re-scored hits lead, ordered by the mean of similarity and rerank score.'}
      </p>
      {result.doc_aggs.length > 0 && (
        <ul className="kn-doc-aggs" aria-label="Candidates per document">
          {result.doc_aggs.map((agg) => (
            <li key={agg.doc_id}>
              <Link to={`/knowledge/documents/${agg.doc_id}`}>{agg.doc_name}</Link> <span className="muted">{agg.count}</span>
            </li>
          ))}
        </ul>
      )}
      {result.chunks.length === 0 ? (
        <EmptyState title="Nothing above the threshold">
          <p>Lower the similarity threshold, give the term part more weight, or ask in other words.</p>
        </EmptyState>
      ) : (
        <ol className="kn-hits" aria-label="Hits">
          {result.chunks.map((hit, index) => (
            <Hit key={hit.chunk_id} hit={hit} rank={index + 1} />
          ))}
        </ol>
      )}
    </Section>
  );
}

export function SearchPlayground() {
  const [params] = useSearchParams();
  const kbs = useKnowledgeBaseChoices();
  const search = useChunkSearch();
  const [controls, setControls] = useState<Controls>(() => ({
    question: '',
    kbIds: params.getAll('kb'),
    docIds: params.getAll('doc').join(', '),
    ...DEFAULTS,
  }));
  const [sent, setSent] = useState<ChunkSearchRequest | null>(null);
  const ids = {
    question: useId(),
    docs: useId(),
    docsHelp: useId(),
    topK: useId(),
    threshold: useId(),
    vector: useId(),
    keyword: useId(),
    linked: useId(),
    weightsHelp: useId(),
    rerank: useId(),
    rerankHelp: useId(),
    highlight: useId(),
  };
  const invalid = fieldOf(search.error);
  const invalidProps = (field: string) => ({ 'aria-invalid': invalid === field || invalid?.startsWith(`${field}.`) });
  const set = (patch: Partial<Controls>) => setControls((current) => ({ ...current, ...patch }));
  const toggleKb = (kbId: string, on: boolean) =>
    set({ kbIds: on ? [...controls.kbIds, kbId] : controls.kbIds.filter((id) => id !== kbId) });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request = requestOf(controls);
    setSent(request);
    search.mutate(request);
  };
  const choices = kbs.data?.items ?? [];

  return (
    <PageLayout
      title="Search playground"
      description="Search knowledge bases as agents do, and see how each hit scored: vector, term and rerank parts."
      actions={
        <Link to="/knowledge" className="button">
          Knowledge bases
        </Link>
      }
    >
      <Section title="Search">
        <form className="kn-search-form" onSubmit={submit} aria-label="Search chunks" noValidate>
          <div className="field">
            <label htmlFor={ids.question}>Question</label>
            <textarea
              id={ids.question}
              rows={2}
              maxLength={2000}
              value={controls.question}
              onChange={(event) => set({ question: event.target.value })}
              placeholder="e.g. How do I reset the router?"
              {...invalidProps('question')}
            />
          </div>
          <fieldset className={invalid === 'kb_ids' || invalid?.startsWith('kb_ids.') ? 'kn-kb-choices kn-invalid' : 'kn-kb-choices'}>
            <legend>Knowledge bases</legend>
            {kbs.error !== null && <ErrorBanner error={kbs.error} title="Could not load the knowledge bases" />}
            {kbs.isLoading && <p className="muted">Loading…</p>}
            {kbs.data && choices.length === 0 && (
              <p>
                No knowledge base yet: <Link to="/knowledge/new">create one</Link> and upload documents first.
              </p>
            )}
            {choices.map((kb) => (
              <label key={kb.kb_id} className="kn-check">
                <input
                  type="checkbox"
                  checked={controls.kbIds.includes(kb.kb_id)}
                  onChange={(event) => toggleKb(kb.kb_id, event.target.checked)}
                />{' '}
                {kb.name}{' '}
                <span className="muted">
                  ({kb.document_count} documents, {kb.embedding_model})
                </span>
              </label>
            ))}
            {kbs.data && kbs.data.total > choices.length && (
              <p className="help">
                The first {choices.length} of {kbs.data.total} are listed; those searched together share an embedding model.
              </p>
            )}
          </fieldset>
          <div className="field">
            <label htmlFor={ids.docs}>Only these documents</label>
            <input
              id={ids.docs}
              value={controls.docIds}
              onChange={(event) => set({ docIds: event.target.value })}
              placeholder="document ids, comma-separated (all when empty)"
              aria-describedby={ids.docsHelp}
              {...invalidProps('doc_ids')}
            />
            <p className="help" id={ids.docsHelp}>
              <code>doc_ids</code>: up to 256 documents of the knowledge bases chosen.
            </p>
          </div>
          <div className="kn-form-grid">
            <div className="field">
              <label htmlFor={ids.topK}>Top k</label>
              <input
                id={ids.topK}
                type="number"
                min={1}
                max={100}
                value={controls.topK}
                onChange={(event) => set({ topK: event.target.value })}
                {...invalidProps('top_k')}
              />
            </div>
            <div className="field">
              <label htmlFor={ids.threshold}>Similarity threshold</label>
              <input
                id={ids.threshold}
                type="number"
                min={0}
                max={1}
                step={0.05}
                value={controls.threshold}
                onChange={(event) => set({ threshold: event.target.value })}
                {...invalidProps('similarity_threshold')}
              />
            </div>
            <div className="field">
              <label htmlFor={ids.vector}>Vector similarity weight</label>
              <input
                id={ids.vector}
                type="number"
                min={0}
                max={1}
                step={0.05}
                value={controls.vectorWeight}
                onChange={(event) =>
                  set({
                    vectorWeight: event.target.value,
                    ...(controls.linked ? { keywordWeight: complement(event.target.value) } : {}),
                  })
                }
                aria-describedby={ids.weightsHelp}
                {...invalidProps('vector_similarity_weight')}
              />
            </div>
            <div className="field">
              <label htmlFor={ids.keyword}>Keyword weight</label>
              <input
                id={ids.keyword}
                type="number"
                min={0}
                max={1}
                step={0.05}
                value={controls.keywordWeight}
                onChange={(event) =>
                  set({
                    keywordWeight: event.target.value,
                    ...(controls.linked ? { vectorWeight: complement(event.target.value) } : {}),
                  })
                }
                aria-describedby={ids.weightsHelp}
                {...invalidProps('keyword_weight')}
              />
            </div>
            <div className="field">
              <label htmlFor={ids.rerank}>Rerank top n</label>
              <input
                id={ids.rerank}
                type="number"
                min={0}
                max={200}
                value={controls.rerankTopN}
                onChange={(event) => set({ rerankTopN: event.target.value })}
                aria-describedby={ids.rerankHelp}
                {...invalidProps('rerank_top_n')}
              />
            </div>
          </div>
          <div className="kn-form-grid">
            <label className="kn-check" htmlFor={ids.linked}>
              <input
                id={ids.linked}
                type="checkbox"
                checked={controls.linked}
                onChange={(event) => set({ linked: event.target.checked })}
              />{' '}
              Weights add up to 1
            </label>
            <label className="kn-check" htmlFor={ids.highlight}>
              <input
                id={ids.highlight}
                type="checkbox"
                checked={controls.highlight}
                onChange={(event) => set({ highlight: event.target.checked })}
              />{' '}
              Highlight matched terms
            </label>
          </div>
          <p className="help" id={ids.weightsHelp}>
            Each hit&apos;s similarity mixes its vector (cosine) and term (BM25) parts by these weights; below the threshold it is dropped.
          </p>
          <p className="help" id={ids.rerankHelp}>
            The best n candidates are re-scored by the reranker and lead the order; 0 turns reranking off.
          </p>
          {search.error !== null && <ErrorBanner error={search.error} title="The search failed" />}
          <div className="kn-form-actions">
            <button type="submit" className="button button-primary" disabled={search.isPending}>
              {search.isPending ? 'Searching…' : 'Search'}
            </button>
            <button
              type="button"
              className="button button-quiet"
              onClick={() => {
                set(DEFAULTS);
                search.reset();
              }}
            >
              Reset to the defaults
            </button>
          </div>
        </form>
      </Section>
      {search.data && sent && <Results result={search.data} request={sent} />}
    </PageLayout>
  );
}

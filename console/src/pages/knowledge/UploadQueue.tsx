/**
 * The upload queue of the Knowledge section, kept while its pages change (the section owns it):
 * the provider, and the panel of a knowledge base's page where files are dropped or picked and
 * each shows its upload progress, then its parse progress, until `ready` or `failed` with its reason.
 */
import type { DocumentProgress } from '@combo/client';
import { createContext, type DragEvent, type ReactNode, useContext, useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { Link } from 'react-router';
import { useApi } from '../../api/client';
import { useRefreshDocuments } from '../../api/knowledge';
import { UPLOAD_CONCURRENCY, type UploadItem, UploadQueue, type UploadQueueState } from '../../api/knowledge-uploads';
import { ProgressBar } from '../../components/ProgressBar';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { formatNumber } from '../../components/Time';
import { ACCEPTED_FILES, formatBytes, parseProgressText, REASONS } from './format';

const QueueContext = createContext<UploadQueue | null>(null);

function useQueue(): UploadQueue {
  const queue = useContext(QueueContext);
  if (!queue) throw new Error('useQueue outside UploadQueueProvider');
  return queue;
}

function useQueueState(): UploadQueueState {
  const queue = useQueue();
  return useSyncExternalStore(queue.subscribe, queue.getState);
}

export function UploadQueueProvider({ children }: { children: ReactNode }) {
  const client = useApi();
  const refresh = useRefreshDocuments();
  const [queue] = useState(() => new UploadQueue());
  const state = useSyncExternalStore(queue.subscribe, queue.getState);
  const sending = state.items.some((item) => item.phase === 'queued' || item.phase === 'uploading');

  useEffect(() => queue.setClient(client), [queue, client]);
  useEffect(() => queue.setHooks({ onDocument: (document) => void refresh(document) }), [queue, refresh]);
  // Leaving the section (or signing out) stops the queue; coming back within the section keeps it.
  useEffect(() => {
    queue.start();
    return () => queue.stop();
  }, [queue]);
  // Files not sent yet would be lost with the page: the browser asks first.
  useEffect(() => {
    if (!sending) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [sending]);

  return <QueueContext.Provider value={queue}>{children}</QueueContext.Provider>;
}

/** The time now, ticking every second while `active` (for a countdown). */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

interface ItemStatus {
  tone: Tone;
  text: string;
}

function itemStatus(item: UploadItem, rateLimited: boolean): ItemStatus {
  switch (item.phase) {
    case 'queued':
      if (rateLimited) return { tone: 'warn', text: 'waiting for the rate limit' };
      if (item.retryAt !== undefined) return { tone: 'warn', text: 'retrying soon' };
      return { tone: 'neutral', text: 'queued' };
    case 'uploading':
      return { tone: 'info', text: 'uploading' };
    case 'parsing':
      return { tone: 'info', text: 'parsing' };
    case 'ready':
      return { tone: 'ok', text: 'ready' };
    case 'failed':
      return { tone: 'danger', text: 'failed' };
  }
}

function ParseProgress({ name, progress }: { name: string; progress: DocumentProgress | undefined }) {
  if (!progress || progress.stage === 'queued') return <ProgressBar label={`Parse of ${name}`} text="queued for parsing" />;
  return <ProgressBar label={`Parse of ${name}`} value={progress.fraction} text={parseProgressText(progress)} />;
}

function UploadRow({ item, rateLimited }: { item: UploadItem; rateLimited: boolean }) {
  const queue = useQueue();
  const status = itemStatus(item, rateLimited);
  const name = item.file.name;
  const document = item.document;
  const parseError = document?.status === 'failed' ? document.error : null;
  return (
    <li className="kn-upload" data-phase={item.phase}>
      <div className="kn-upload-head">
        <span className="kn-upload-name">{name}</span>
        <span className="muted">{formatBytes(item.file.size)}</span>
        <StatusBadge tone={status.tone}>{status.text}</StatusBadge>
        <span className="kn-upload-actions">
          {item.phase === 'ready' && document && (
            <Link to={`/knowledge/documents/${document.doc_id}`} className="button button-small">
              View chunks<span className="visually-hidden"> of {name}</span>
            </Link>
          )}
          {item.phase === 'failed' && !document && (
            <button type="button" className="button button-small" onClick={() => queue.retry(item.id)}>
              Retry<span className="visually-hidden"> {name}</span>
            </button>
          )}
          <button type="button" className="button button-small button-quiet" onClick={() => queue.remove(item.id)}>
            {item.phase === 'queued' || item.phase === 'uploading' ? 'Cancel' : 'Dismiss'}
            <span className="visually-hidden"> {name}</span>
          </button>
        </span>
      </div>
      {(item.phase === 'uploading' || (item.phase === 'queued' && item.loaded > 0)) && (
        <ProgressBar
          label={`Upload of ${name}`}
          value={item.loaded}
          max={Math.max(item.total, 1)}
          text={`${formatBytes(item.loaded)} of ${formatBytes(item.total)}`}
        />
      )}
      {item.phase === 'parsing' && <ParseProgress name={name} progress={item.progress} />}
      {item.phase === 'ready' && document && (
        <p className="kn-upload-note">
          {formatNumber(document.chunk_count)} {document.chunk_count === 1 ? 'chunk' : 'chunks'} ·{' '}
          {formatNumber(document.progress.token_count)} tokens · parser <code>{document.parser_id}</code>
        </p>
      )}
      {parseError && (
        <p className="kn-upload-error">
          <strong>{parseError.reason}</strong> ({REASONS[parseError.reason] ?? parseError.reason}): {parseError.message}
        </p>
      )}
      {item.error && (
        <p className={item.phase === 'failed' ? 'kn-upload-error' : 'kn-upload-note'}>
          {item.phase === 'failed' ? 'Upload failed: ' : 'Last attempt: '}
          {item.error.message}
          {item.error.code !== undefined && <code> ({item.error.code})</code>}
          {item.error.field && (
            <>
              {' '}
              field <code>{item.error.field}</code>
            </>
          )}
        </p>
      )}
      {item.heldBack && item.phase !== 'queued' && <p className="kn-upload-note">Waited for the upload rate limit.</p>}
    </li>
  );
}

function summaryOf(items: UploadItem[], rateLimited: boolean): string {
  const count = (phase: UploadItem['phase']) => items.filter((item) => item.phase === phase).length;
  const parts = [
    [count('uploading'), 'uploading'],
    [count('queued'), rateLimited ? 'waiting for the rate limit' : 'queued'],
    [count('parsing'), 'parsing'],
    [count('ready'), 'ready'],
    [count('failed'), 'failed'],
  ] as const;
  const words = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return `${items.length} ${items.length === 1 ? 'file' : 'files'}: ${words.join(', ')}`;
}

/** The drop zone, the file picker and the queue of one knowledge base. */
export function UploadPanel({ kbId, parsers, defaultParser }: { kbId: string; parsers: string[]; defaultParser: string }) {
  const queue = useQueue();
  const state = useQueueState();
  const items = state.items.filter((item) => item.kbId === kbId);
  const paused = state.pausedUntil !== null;
  const now = useNow(paused);
  const [dragging, setDragging] = useState(false);
  const [parser, setParser] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const ids = { parser: useId(), hint: useId() };
  const waitSeconds = state.pausedUntil === null ? 0 : Math.max(0, Math.ceil((state.pausedUntil - now) / 1000));

  const add = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    queue.add(kbId, Array.from(files), parser || undefined);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer.files);
  };
  const onDragOver = (event: DragEvent) => {
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };

  return (
    <div className="kn-upload-panel">
      <div
        className={dragging ? 'kn-dropzone kn-dropzone-active' : 'kn-dropzone'}
        data-testid="dropzone"
        onDragOver={onDragOver}
        onDragEnter={onDragOver}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
      >
        <p className="kn-dropzone-title">Drop files here to upload them</p>
        <p className="muted" id={ids.hint}>
          Text, Markdown, HTML, PDF, DOCX, CSV, XLSX or JSON. Several at once: they are sent {UPLOAD_CONCURRENCY} at a time within your
          upload rate limit
          {state.limitPerMinute !== null && ` (${state.limitPerMinute} per minute)`}, and wait for it when it is spent.
        </p>
        <div className="kn-dropzone-controls">
          <button type="button" className="button button-primary" aria-describedby={ids.hint} onClick={() => input.current?.click()}>
            Choose files…
          </button>
          <div className="kn-inline-field">
            <label htmlFor={ids.parser}>Parser</label>
            <select id={ids.parser} value={parser} onChange={(event) => setParser(event.target.value)}>
              <option value="">the knowledge base's ({defaultParser})</option>
              {parsers.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          </div>
        </div>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          accept={ACCEPTED_FILES}
          data-testid="file-picker"
          onChange={(event) => {
            add(event.target.files);
            event.target.value = '';
          }}
        />
      </div>

      {paused && (
        <div className="banner banner-warn kn-rate-banner" role="status">
          <p className="banner-title">Waiting for the rate limit</p>
          <p>
            The upload rate limit is spent for this minute: the next upload starts in {waitSeconds} s (the service's{' '}
            <code>Retry-After</code>). Nothing is lost; the files wait their turn.
          </p>
        </div>
      )}

      {items.length > 0 && (
        <div className="kn-queue">
          <div className="kn-queue-head">
            <p className="kn-queue-summary" role="status">
              {summaryOf(items, paused)}
            </p>
            {items.some((item) => item.phase === 'ready' || item.phase === 'failed') && (
              <button type="button" className="button button-small button-quiet" onClick={() => queue.clearFinished(kbId)}>
                Clear finished
              </button>
            )}
          </div>
          <ul className="kn-upload-list" aria-label="Upload queue">
            {items.map((item) => (
              <UploadRow key={item.id} item={item} rateLimited={paused} />
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

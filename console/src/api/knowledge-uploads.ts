/**
 * The Knowledge section's upload queue: files dropped or picked wait their turn, at most
 * UPLOAD_CONCURRENCY are sent at a time, each with its upload progress (the client's `onProgress`),
 * then its parse is polled (`documents.get`) until the document is `ready` or `failed`.
 *
 * Uploads count against the service's upload rate limit (per minute). The queue keeps within it:
 * when an upload's reply says none are left in the window (`X-RateLimit-Remaining: 0`), or the
 * service refuses one (429, 10006), no upload starts until the window ends (`Retry-After`), and the
 * refused file goes back to the head of the queue with the same Idempotency-Key: nothing is lost and
 * nothing is uploaded twice. The client's own retries are off for uploads (`maxRetries: 0`), so
 * that the wait shows as "waiting for the rate limit"; the queue retries dropped connections and
 * 500/503 answers itself, a few times.
 */
import {
  APIConnectionError,
  APIUserAbortError,
  type Combo,
  ComboError,
  type Document,
  type DocumentProgress,
  RateLimitError,
} from '@combo/client';
import { type ErrorDetails, errorDetails } from './errors';

type UploadPhase = 'queued' | 'uploading' | 'parsing' | 'ready' | 'failed';

export interface UploadItem {
  id: string;
  kbId: string;
  file: File;
  /** The parser asked for; the knowledge base's when undefined. */
  parserId?: string;
  phase: UploadPhase;
  /** Bytes of the current attempt sent so far, and in all. */
  loaded: number;
  total: number;
  /** Sent with every attempt of this file, so a repeat after a lost reply or a refusal never uploads it twice. */
  idempotencyKey: string;
  /** Attempts that failed and are retried (connection dropped, 500, 503); the rate limit's refusals are not counted. */
  failures: number;
  /** It waited for the rate limit (its window spent, or a refusal). */
  heldBack: boolean;
  /** Epoch ms before which a retried attempt does not start. */
  retryAt?: number;
  /** The document once uploaded, as last polled. */
  document?: Document;
  progress?: DocumentProgress;
  /** Why the upload failed (the API's answer), or why its parse could not be followed. A failed parse is `document.error`. */
  error?: ErrorDetails;
}

export interface UploadQueueState {
  items: UploadItem[];
  /** Epoch ms until which no upload starts: the upload rate limit is spent until then. */
  pausedUntil: number | null;
  /** The upload family's ceiling per minute, once a reply said it. */
  limitPerMinute: number | null;
}

/** Uploads sent at once. */
export const UPLOAD_CONCURRENCY = 2;
const MAX_FAILURES = 3;
/** One upload attempt may take this long (large files on slow links). */
const UPLOAD_TIMEOUT_MS = 30 * 60_000;
const POLL_FIRST_MS = 500;
const POLL_MAX_MS = 3_000;

interface QueueHooks {
  /** A document was uploaded, or its parse ended. */
  onDocument?: (document: Document) => void;
}

/** A random UUID (v4) where `crypto.randomUUID` is missing (pages served over plain HTTP to another host). */
function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** A failure worth another attempt: no answer, or the service's 500 / 503. */
const retryable = (error: unknown): boolean =>
  error instanceof APIConnectionError || (error instanceof ComboError && (error.status === 500 || error.status === 503));

/**
 * When the current rate-limit window ends, in this browser's clock: `X-RateLimit-Reset` (Unix
 * seconds, the server's clock) measured against the reply's `Date`, so clocks that differ do not matter.
 */
function windowEnd(reset: number, headers: Headers): number {
  const serverNow = Date.parse(headers.get('date') ?? '');
  const left = reset * 1000 - (Number.isFinite(serverNow) ? serverNow : Date.now());
  return Date.now() + Math.min(Math.max(left + 250, 500), 60_000);
}

export class UploadQueue {
  private state: UploadQueueState = { items: [], pausedUntil: null, limitPerMinute: null };
  private readonly listeners = new Set<() => void>();
  private readonly controllers = new Map<string, AbortController>();
  private client: Combo | null = null;
  private hooks: QueueHooks = {};
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  // Arrow functions: useSyncExternalStore takes them as they are.
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): UploadQueueState => this.state;

  /** The signed-in session's client (a new one after every renewal of the console token). */
  setClient(client: Combo): void {
    this.client = client;
  }

  setHooks(hooks: QueueHooks): void {
    this.hooks = hooks;
  }

  /** Starts (or resumes) sending and following; what an earlier stop interrupted starts again. */
  start(): void {
    this.running = true;
    // An upload interrupted by stop() goes again with its key (a reply lost on the way is answered again, not redone).
    this.set({
      items: this.state.items.map((item) => (item.phase === 'uploading' ? { ...item, phase: 'queued', loaded: 0 } : item)),
    });
    for (const item of this.state.items) if (item.phase === 'parsing' && item.document) void this.follow(item.id, item.document.doc_id);
    this.pump();
  }

  /** Stops every upload and poll (the page is left, the session ended). */
  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    for (const controller of this.controllers.values()) controller.abort();
    this.controllers.clear();
  }

  add(kbId: string, files: File[], parserId?: string): void {
    const added: UploadItem[] = files.map((file) => ({
      id: uuid(),
      kbId,
      file,
      ...(parserId ? { parserId } : {}),
      phase: 'queued',
      loaded: 0,
      total: file.size,
      idempotencyKey: uuid(),
      failures: 0,
      heldBack: false,
    }));
    this.set({ items: [...this.state.items, ...added] });
    this.pump();
  }

  /** Takes an item out: a waiting file is not sent, an upload under way is stopped, a parse is no longer followed (it goes on). */
  remove(id: string): void {
    this.controllers.get(id)?.abort();
    this.controllers.delete(id);
    this.set({ items: this.state.items.filter((item) => item.id !== id) });
    this.pump();
  }

  /** A failed upload, queued again (with a new key: the service keeps a refusal's answer for the old one). */
  retry(id: string): void {
    this.update(id, { phase: 'queued', loaded: 0, failures: 0, idempotencyKey: uuid(), error: undefined, retryAt: undefined });
    this.pump();
  }

  /** Forgets the finished items (ready or failed) of a knowledge base. */
  clearFinished(kbId: string): void {
    this.set({ items: this.state.items.filter((item) => item.kbId !== kbId || (item.phase !== 'ready' && item.phase !== 'failed')) });
  }

  private set(patch: Partial<UploadQueueState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  private item(id: string): UploadItem | undefined {
    return this.state.items.find((item) => item.id === id);
  }

  private update(id: string, patch: Partial<UploadItem>): void {
    if (!this.item(id)) return;
    this.set({ items: this.state.items.map((item) => (item.id === id ? { ...item, ...patch } : item)) });
  }

  private pauseUntil(at: number): void {
    if (this.state.pausedUntil === null || at > this.state.pausedUntil) this.set({ pausedUntil: at });
    this.markHeldBack();
  }

  /** The files waiting while the rate limit is spent remember it. */
  private markHeldBack(): void {
    if (this.state.items.some((item) => item.phase === 'queued' && !item.heldBack))
      this.set({ items: this.state.items.map((item) => (item.phase === 'queued' && !item.heldBack ? { ...item, heldBack: true } : item)) });
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), Math.max(delay, 0));
  }

  /** Starts what may start now: nothing while the rate limit is spent, else queued files in order up to the concurrency. */
  private pump(): void {
    if (!this.running || !this.client) return;
    const now = Date.now();
    if (this.state.pausedUntil !== null) {
      if (now < this.state.pausedUntil) {
        this.markHeldBack();
        return this.schedule(this.state.pausedUntil - now);
      }
      this.set({ pausedUntil: null });
    }
    let active = this.state.items.filter((item) => item.phase === 'uploading').length;
    let wake: number | undefined;
    for (const item of this.state.items) {
      if (active >= UPLOAD_CONCURRENCY) break;
      if (item.phase !== 'queued') continue;
      if (item.retryAt !== undefined && item.retryAt > now) {
        wake = Math.min(wake ?? Infinity, item.retryAt);
        continue;
      }
      active++;
      void this.send(item);
    }
    if (wake !== undefined) this.schedule(wake - now);
  }

  private async send(item: UploadItem): Promise<void> {
    const client = this.client!;
    const controller = new AbortController();
    this.controllers.set(item.id, controller);
    this.update(item.id, { phase: 'uploading', loaded: 0, total: item.file.size, retryAt: undefined });
    try {
      const { data: document, response } = await client.documents
        .upload(
          { kb_id: item.kbId, file: item.file, ...(item.parserId ? { parser_id: item.parserId } : {}) },
          {
            signal: controller.signal,
            maxRetries: 0,
            timeout: UPLOAD_TIMEOUT_MS,
            idempotencyKey: item.idempotencyKey,
            onProgress: ({ loaded, total }) => {
              if (!controller.signal.aborted) this.update(item.id, { loaded, total });
            },
          },
        )
        .withResponse();
      if (controller.signal.aborted) return;
      this.update(item.id, { phase: 'parsing', document, progress: document.progress, loaded: item.file.size });
      this.hooks.onDocument?.(document);
      const limit = response.rateLimit;
      if (limit) {
        this.set({ limitPerMinute: limit.limit });
        // The window's last upload: the next would be refused, so wait for the next window.
        if (limit.remaining <= 0) this.pauseUntil(windowEnd(limit.reset, response.headers));
      }
      void this.follow(item.id, document.doc_id);
    } catch (error) {
      if (controller.signal.aborted || error instanceof APIUserAbortError) return;
      const current = this.item(item.id);
      if (!current) return;
      if (error instanceof RateLimitError) {
        // Refused by the rate limit: back to the head of the queue, same key, until the window ends.
        const limit = Number(error.headers?.get('x-ratelimit-limit'));
        if (Number.isFinite(limit) && limit > 0) this.set({ limitPerMinute: limit });
        this.moveToFront(item.id, { phase: 'queued', loaded: 0, heldBack: true });
        this.pauseUntil(Date.now() + (error.retryAfter ?? 5) * 1000);
      } else if (retryable(error) && current.failures + 1 < MAX_FAILURES) {
        this.update(item.id, {
          phase: 'queued',
          loaded: 0,
          failures: current.failures + 1,
          retryAt: Date.now() + 1_000 * 2 ** current.failures,
          error: errorDetails(error),
        });
      } else {
        this.update(item.id, { phase: 'failed', error: errorDetails(error) });
      }
    } finally {
      if (this.controllers.get(item.id) === controller) this.controllers.delete(item.id);
      this.pump();
    }
  }

  private moveToFront(id: string, patch: Partial<UploadItem>): void {
    const item = this.item(id);
    if (!item) return;
    const rest = this.state.items.filter((other) => other.id !== id);
    const first = rest.findIndex((other) => other.phase === 'queued');
    const at = first === -1 ? rest.length : first;
    this.set({ items: [...rest.slice(0, at), { ...item, ...patch }, ...rest.slice(at)] });
  }

  /** Polls the uploaded document until its parse ends (`ready`, or `failed` with its reason). */
  private async follow(id: string, docId: string): Promise<void> {
    const controller = new AbortController();
    this.controllers.set(id, controller);
    let pause = POLL_FIRST_MS;
    try {
      while (!controller.signal.aborted) {
        await sleep(pause, controller.signal);
        if (controller.signal.aborted || !this.client) return;
        try {
          const document = await this.client.documents.get(docId, { signal: controller.signal });
          if (controller.signal.aborted) return;
          const ended = document.status === 'ready' || document.status === 'failed';
          this.update(id, { document, progress: document.progress, error: undefined, ...(ended ? { phase: document.status } : {}) });
          if (ended) {
            this.hooks.onDocument?.(document);
            return;
          }
        } catch (error) {
          if (controller.signal.aborted || error instanceof APIUserAbortError) return;
          // Not reachable for now, or over the rate limit: look again later. Any other answer (10004: deleted) ends it.
          if (!(retryable(error) || error instanceof RateLimitError)) {
            this.update(id, { phase: 'failed', error: errorDetails(error) });
            return;
          }
          this.update(id, { error: errorDetails(error) });
        }
        pause = Math.min(pause * 1.5, POLL_MAX_MS);
      }
    } finally {
      if (this.controllers.get(id) === controller) this.controllers.delete(id);
    }
  }
}

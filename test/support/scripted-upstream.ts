import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asksForStream, asksForWhole, completionAsFrames, framesAsCompletion, isChatCompletion } from './stream-as-asked';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A whole answer at once: objects as JSON, strings as text/plain. */
interface ScriptedBodyReply {
  status?: number;
  body: unknown;
  /** Answer only after this long (timeout tests). */
  delayMs?: number;
}

/**
 * A server-sent-events answer (`content-type: text/event-stream`): each element is written as one
 * `data:` frame, objects JSON-encoded and strings as they are (e.g. `'[DONE]'`).
 */
interface ScriptedStreamReply {
  status?: number;
  stream: Array<string | object>;
  /** Wait before the headers (timeout tests). */
  delayMs?: number;
  /** Wait between two writes (stalled-stream tests; also keeps writes from arriving merged). */
  chunkDelayMs?: number;
  /** Cut the connection after this many frames, without ending the response (network-failure tests). */
  dropAfter?: number;
  /**
   * Write the event stream in pieces of this many bytes instead of one write per frame, so frames
   * and multi-byte characters arrive split at arbitrary points.
   */
  splitEveryBytes?: number;
}

export type ScriptedReply = ScriptedBodyReply | ScriptedStreamReply;

/**
 * A loopback HTTP server standing in for a model upstream (embeddings, rerank, chat completions).
 * Each test sets `reply` to script the answer and reads `requests` to check what the client sent.
 * test/support/scripted-chat.ts builds chat-completion replies; a chat reply is sent in the form
 * the request asked for, whole or streamed (see asAsked).
 */
export class ScriptedUpstream {
  readonly requests: RecordedRequest[] = [];
  /** Requests whose client closed the connection before the answer was complete (an aborted call). */
  readonly abandoned: RecordedRequest[] = [];
  reply: (request: RecordedRequest) => ScriptedReply = () => ({ status: 500, body: { error: 'no reply scripted' } });
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const recorded = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: text ? (JSON.parse(text) as unknown) : undefined,
        };
        this.requests.push(recorded);
        res.on('close', () => {
          if (!res.writableFinished) this.abandoned.push(recorded);
        });
        const reply = asAsked(this.reply(recorded), recorded);
        if ('stream' in reply) {
          writeEventStream(res, reply);
          return;
        }
        const { status = 200, body, delayMs = 0 } = reply;
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
          res.end(typeof body === 'string' ? body : JSON.stringify(body));
        }, delayMs).unref();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/**
 * A real server answers a chat request as it asked: a scripted whole completion goes out as its
 * event stream to a request that asked to stream, and a scripted complete event stream (not one cut
 * off) as the whole completion to one that did not, after as long as its frames would have taken.
 */
function asAsked(scripted: ScriptedReply, request: RecordedRequest): ScriptedReply {
  if (!('stream' in scripted)) {
    return asksForStream(request.body) && isChatCompletion(scripted.body)
      ? { status: scripted.status, delayMs: scripted.delayMs, stream: completionAsFrames(scripted.body) }
      : scripted;
  }
  const whole = scripted.dropAfter === undefined && asksForWhole(request.path, request.body) ? framesAsCompletion(scripted.stream) : null;
  if (!whole) return scripted;
  const delayMs = (scripted.delayMs ?? 0) + (scripted.chunkDelayMs ?? 0) * scripted.stream.length;
  return { status: scripted.status, delayMs, body: whole };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Waits until `data` is handed to the socket, so a later destroy cannot swallow it. */
const write = (res: ServerResponse, data: Buffer) => new Promise<void>((resolve) => res.write(data, () => resolve()));

function writeEventStream(res: ServerResponse, reply: ScriptedStreamReply): void {
  const { status = 200, stream, delayMs = 0, chunkDelayMs = 0, dropAfter, splitEveryBytes } = reply;
  const frames = stream.map((item) => Buffer.from(`data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`, 'utf8'));
  const sent = dropAfter === undefined ? frames : frames.slice(0, dropAfter);
  const whole = Buffer.concat(sent);
  const writes =
    splitEveryBytes && splitEveryBytes > 0
      ? Array.from({ length: Math.ceil(whole.length / splitEveryBytes) }, (_, i) =>
          whole.subarray(i * splitEveryBytes, (i + 1) * splitEveryBytes),
        )
      : sent;
  void (async () => {
    await sleep(delayMs);
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const [i, piece] of writes.entries()) {
      if (i > 0 && chunkDelayMs > 0) await sleep(chunkDelayMs);
      if (res.destroyed) return;
      await write(res, piece);
    }
    if (dropAfter === undefined) {
      res.end();
      return;
    }
    // Destroying the socket before the final empty chunk is what a network failure looks like to the
    // client. The pause first lets it read what was sent: an errored stream discards unread chunks.
    await sleep(chunkDelayMs);
    res.destroy();
  })();
}

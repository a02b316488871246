import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface ScriptedReply {
  status?: number;
  body: unknown;
  /** Answer only after this long (timeout tests). */
  delayMs?: number;
}

/**
 * A loopback HTTP server standing in for a model upstream (embeddings, rerank). Each test sets
 * `reply` to script the answer and reads `requests` to check what the client sent.
 */
export class ScriptedUpstream {
  readonly requests: RecordedRequest[] = [];
  reply: (request: RecordedRequest) => ScriptedReply = () => ({ status: 500, body: { error: 'no reply scripted' } });
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
        this.requests.push(recorded);
        const { status = 200, body, delayMs = 0 } = this.reply(recorded);
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

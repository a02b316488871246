/**
 * A local HTTP proxy in front of the service under test, for what the service does not do on demand:
 * answer 429 once, or cut a stream after its first events. Each request is recorded (method, path,
 * headers); `handle` decides what to do with it (the default forwards it unchanged).
 */
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ProxyContext {
  request: ProxiedRequest;
  /** How many requests came before this one. */
  index: number;
  res: ServerResponse;
  /** Sends the request on to the service; resolves with its response (not yet piped). */
  forward(): Promise<IncomingMessage>;
  /** Pipes a response of the service back unchanged. */
  pass(upstream: IncomingMessage): void;
}

export interface Proxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

export async function startProxy(target: string, handle?: (ctx: ProxyContext) => Promise<void> | void): Promise<Proxy> {
  const targetUrl = new URL(target);
  const requests: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const proxied: ProxiedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      const index = requests.push(proxied) - 1;
      const forward = () =>
        new Promise<IncomingMessage>((resolve, reject) => {
          const upstream = request(
            {
              host: targetUrl.hostname,
              port: targetUrl.port,
              method: proxied.method,
              path: proxied.url,
              headers: { ...proxied.headers, host: targetUrl.host },
            },
            resolve,
          );
          upstream.on('error', reject);
          upstream.end(proxied.body);
        });
      const pass = (upstream: IncomingMessage) => {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        upstream.pipe(res);
      };
      const ctx: ProxyContext = { request: proxied, index, res, forward, pass };
      Promise.resolve(handle ? handle(ctx) : forward().then(pass)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  at: number;
}

/** What the consumer answers to its n-th request (0-based, the request itself given too): a status, after an optional delay. */
export type Behaviour = (n: number, request: Received) => { status: number; delayMs?: number };

/** A webhook consumer on loopback that records every request it gets. */
export async function startConsumer(behaviour: Behaviour = () => ({ status: 200 })) {
  const received: Received[] = [];
  let answer = behaviour;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const request: Received = { path: req.url ?? '', headers: req.headers, rawBody, json: JSON.parse(rawBody), at: Date.now() };
      const { status, delayMs = 0 } = answer(received.length, request);
      received.push(request);
      setTimeout(() => res.writeHead(status).end(), delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    answerWith(next: Behaviour) {
      answer = next;
    },
    /** Resolves once `count` requests arrived (polling, bounded). */
    async waitFor(count: number, timeoutMs = 30_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`consumer got ${received.length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Consumer = Awaited<ReturnType<typeof startConsumer>>;

/** Polls `check` until it returns a value (not undefined), bounded. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A consumer's check of a delivery, as docs/api/outbound-webhooks.md shows it: the timestamp is recent and one of the
 * signatures in X-Combo-Signature (several, comma-separated, during a secret rotation's grace) is
 * the HMAC of "<timestamp>.<raw body>" with `secret`, compared in constant time.
 */
export function verifyDelivery(secret: string, rawBody: string, headers: IncomingHttpHeaders, toleranceSeconds = 300): boolean {
  const ts = String(headers['x-combo-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(ts)) > toleranceSeconds) return false;
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${ts}.`).update(rawBody).digest('hex'));
  let matched = false;
  for (const given of String(headers['x-combo-signature'] ?? '').split(',')) {
    const candidate = Buffer.from(given.trim());
    // No early exit: the time taken does not tell which signature matched.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched;
}

import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { bareHost, parseHttpUrl, refusalOf, type Resolver, systemResolver } from '../common/net/url-guard';

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect / tls.connect that refuses the whole name when any of its addresses is
 * private. The socket connects to the addresses this function returns, so the address checked is
 * the address connected to: a name that answers a public address to an earlier check and a
 * private one now (DNS rebinding) is refused here.
 */
export function guardedLookup(resolve: Resolver = systemResolver) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (found) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
        const addresses = family === 4 || family === 6 ? found.filter((a) => a.family === family) : found;
        const refusal = refusalOf(
          hostname,
          found.map((a) => a.address),
        );
        if (refusal) return callback(refusal, '');
        const first = addresses[0];
        if (!first) return callback(Object.assign(new Error(`host ${hostname} does not resolve`), { code: 'ENOTFOUND' }), '');
        return options.all ? callback(null, addresses) : callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, ''),
    );
  };
}

/** An HTTP client whose every connection goes through guardedLookup. */
export const createGuardedAgent = (resolve?: Resolver) => new Agent({ connect: { lookup: guardedLookup(resolve) } });

let sharedAgent: Agent | undefined;

export interface GuardedFetchOptions {
  allowPrivate: boolean;
  /** Tests bring an agent with their own resolver; otherwise one shared agent on the system resolver. */
  agent?: Agent;
}

/** The refusal inside fetch's "fetch failed", or the error itself. */
function unwrap(err: unknown): unknown {
  const cause = (err as { cause?: unknown } | null)?.cause;
  return (cause as { name?: unknown } | null)?.name === 'UnsafeUrlError' ? cause : err;
}

/**
 * fetch for URLs that users configure (webhook subscriptions, skill tools): private targets are
 * refused unless `allowPrivate`, an IP literal before anything is sent, a name when it is resolved
 * for the connection. A refusal is thrown as UnsafeUrlError.
 */
export async function guardedFetch(
  target: string | URL,
  init: RequestInit,
  { allowPrivate, agent }: GuardedFetchOptions,
): Promise<Response> {
  const url = parseHttpUrl(String(target));
  if (allowPrivate) return fetch(url, init);
  const host = bareHost(url);
  // An address literal is connected to without a lookup: checked here instead.
  const refusal = isIP(host) ? refusalOf(host, [host]) : undefined;
  if (refusal) throw refusal;
  try {
    return await fetch(url, { ...init, dispatcher: agent ?? (sharedAgent ??= createGuardedAgent()) });
  } catch (err) {
    throw unwrap(err);
  }
}

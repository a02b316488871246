import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { addressRange } from './address-range';

/** Resolves a host name to every address it has (dns.lookup with `all`, or a test's stand-in). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => lookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

export class UnsafeUrlError extends Error {
  override readonly name = 'UnsafeUrlError';
}

export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeUrlError('must use http or https');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry credentials');
  return url;
}

/**
 * Outbound HTTP (webhook deliveries, tools) reaches only globally routable unicast addresses
 * (address-range.ts) unless the installation allows private ones: loopback, private, link-local,
 * carrier-grade NAT, multicast, documentation, NAT64, 6to4, Teredo and every other special-purpose
 * range are refused. Checked when a URL is configured (an early, clear refusal) and again on every
 * connection by guarded-fetch.ts, since a name can resolve elsewhere later.
 *
 * Returns the refusal when any of `host`'s addresses is not public, otherwise undefined.
 */
export function refusalOf(host: string, addresses: readonly string[]): UnsafeUrlError | undefined {
  for (const address of addresses) {
    const range = addressRange(address);
    if (range !== 'unicast') {
      const which = host === address ? address : `${host} is ${address}`;
      return new UnsafeUrlError(`points at a private, loopback or reserved address (${which}: ${range})`);
    }
  }
  return undefined;
}

/** The URL's host without IPv6 brackets. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Resolves the host and refuses private targets unless `allowPrivate`. Returns the parsed URL. */
export async function assertPublicHttpUrl(raw: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<URL> {
  const url = parseHttpUrl(raw);
  if (allowPrivate) return url;
  const host = bareHost(url);
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await resolve(host)).map((a) => a.address);
  } catch {
    throw new UnsafeUrlError(`host ${host} does not resolve`);
  }
  const refusal = refusalOf(host, addresses);
  if (refusal) throw refusal;
  return url;
}

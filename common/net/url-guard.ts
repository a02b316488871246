import { lookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has (dns.lookup with `all`, or a test's stand-in). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => lookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/**
 * Outbound HTTP (webhook deliveries, tools) must not reach the service's own network: loopback,
 * private, link-local, carrier-grade NAT, multicast and reserved ranges are refused unless the
 * installation allows them. Checked when a URL is configured (an early, clear refusal) and again on
 * every connection by guarded-fetch.ts, since a name can resolve elsewhere later.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked against the IPv4 rules by BlockList itself;
// a ::ffff:0:0/96 rule here would match every IPv4 address.
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

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

export const isBlockedAddress = (address: string) => blocked.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');

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
  if (addresses.some(isBlockedAddress)) throw new UnsafeUrlError('points at a private, loopback or reserved address');
  return url;
}

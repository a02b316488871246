import ipaddr from 'ipaddr.js';

/**
 * Blocks of the IANA special-purpose registries that ipaddr.js 2.5 still calls 'unicast', with
 * names of our own in its style. Every entry of the IANA IPv4 Special-Purpose Address Registry has
 * a range in ipaddr.js; test/unit/url-guard.test.ts checks every entry of both registries, so a
 * library release that classifies differently shows there.
 */
const SPECIAL_PURPOSE_BEYOND_IPADDR = {
  // IANA IPv6 Special-Purpose Address Registry: Dummy IPv6 Prefix, RFC 9780 (2025-04).
  dummyPrefix: [ipaddr.parseCIDR('100:0:0:1::/64')],
  // IPv4-compatible IPv6 addresses (::a.b.c.d), deprecated by RFC 4291 section 2.5.5.1; not in the
  // registry, but an IPv4 address in IPv6 clothing, like the mapped and translated forms.
  ipv4Compatible: [ipaddr.parseCIDR('::/96')],
};

/**
 * IANA IPv6 Address Space registry: 2000::/3 is the Global Unicast space; the rest is reserved by
 * the IETF (apart from fc00::/7, fe80::/10 and ff00::/8, which range() names already).
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * What an address is: ipaddr.js's range name ('private', 'loopback', 'rfc6052', '6to4', ...), or
 * one of ours ('dummyPrefix', 'ipv4Compatible', 'reservedByIetf', 'invalid'). Only 'unicast' is an
 * address that a user-configured URL may reach. An IPv4-mapped address (::ffff:a.b.c.d) is judged
 * as the IPv4 address it is, since a socket given it connects to exactly that IPv4 address; the
 * other forms that carry an IPv4 address (IPv4-compatible, NAT64 64:ff9b::/96 and 64:ff9b:1::/48,
 * 6to4, Teredo, IPv4-translated) are refused whole: they reach a translator or relay, not a host.
 */
export function addressRange(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'invalid';
  }
  const range = parsed.range();
  if (range !== 'unicast') return range;
  const special = ipaddr.subnetMatch(parsed, SPECIAL_PURPOSE_BEYOND_IPADDR, 'unicast');
  if (special !== 'unicast') return special;
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'reservedByIetf';
  return 'unicast';
}

import ipaddr from 'ipaddr.js';
import { addressRange } from '../../common/net/address-range';
import { assertPublicHttpUrl, type Resolver, UnsafeUrlError } from '../../common/net/url-guard';

/**
 * One row per entry of an IANA special-purpose address registry, copied from the registry:
 * address block, name, RFC, and its "Globally Reachable" column ('' where the registry leaves it
 * empty for a terminated entry, 'N/A' where it says N/A). Every entry is refused. Where the
 * registry says globally reachable, `refused` says why a webhook or skill tool still may not target
 * it: the guard admits ordinary unicast hosts only, and these blocks are anycast services of other
 * protocols, identifiers rather than locators, or IPv4 addresses reached through a translator.
 */
interface RegistryEntry {
  block: string;
  name: string;
  rfc: string;
  reachable: 'True' | 'False' | 'N/A' | '';
  /** One address strictly inside the block (the block's only address for a /32 or /128). */
  inside: string;
  refused?: string;
}

const ANYCAST = 'anycast address of a non-HTTP protocol service, not a host a URL names';
const AS112 = 'AS112 DNS sink for reverse lookups of private space, run by volunteers; no HTTP service';
const AMT = 'anycast relays that tunnel multicast (AMT); no HTTP service';
const IDENTIFIER = 'cryptographic identifiers (overlay / drone IDs), not locators a socket connects to';

/** IANA IPv4 Special-Purpose Address Registry (RFC 6890), 25 entries. */
const IPV4_SPECIAL_PURPOSE: RegistryEntry[] = [
  { block: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791 section 3.2', reachable: 'False', inside: '0.1.2.3' },
  { block: '0.0.0.0/32', name: '"This host on this network"', rfc: 'RFC 1122 section 3.2.1.3', reachable: 'False', inside: '0.0.0.0' },
  { block: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', inside: '10.1.2.3' },
  { block: '100.64.0.0/10', name: 'Shared Address Space', rfc: 'RFC 6598', reachable: 'False', inside: '100.100.1.1' },
  { block: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122 section 3.2.1.3', reachable: 'False', inside: '127.0.0.1' },
  { block: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927', reachable: 'False', inside: '169.254.169.254' },
  { block: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', inside: '172.20.0.1' },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890 section 2.1', reachable: 'False', inside: '192.0.0.100' },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335', reachable: 'False', inside: '192.0.0.2' },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', reachable: 'False', inside: '192.0.0.8' },
  {
    block: '192.0.0.9/32',
    name: 'Port Control Protocol Anycast',
    rfc: 'RFC 7723',
    reachable: 'True',
    inside: '192.0.0.9',
    refused: ANYCAST,
  },
  {
    block: '192.0.0.10/32',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    reachable: 'True',
    inside: '192.0.0.10',
    refused: ANYCAST,
  },
  // One registry entry, two blocks.
  {
    block: '192.0.0.170/32',
    name: 'NAT64/DNS64 Discovery',
    rfc: 'RFC 8880, RFC 7050 section 2.2',
    reachable: 'False',
    inside: '192.0.0.170',
  },
  {
    block: '192.0.0.171/32',
    name: 'NAT64/DNS64 Discovery',
    rfc: 'RFC 8880, RFC 7050 section 2.2',
    reachable: 'False',
    inside: '192.0.0.171',
  },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', reachable: 'False', inside: '192.0.2.10' },
  { block: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', reachable: 'True', inside: '192.31.196.1', refused: AS112 },
  { block: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', reachable: 'True', inside: '192.52.193.1', refused: AMT },
  { block: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', reachable: '', inside: '192.88.99.1' },
  { block: '192.88.99.2/32', name: '6a44-relay anycast address', rfc: 'RFC 6751', reachable: 'False', inside: '192.88.99.2' },
  { block: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', inside: '192.168.0.7' },
  {
    block: '192.175.48.0/24',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    reachable: 'True',
    inside: '192.175.48.6',
    refused: AS112,
  },
  { block: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', reachable: 'False', inside: '198.19.10.20' },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', reachable: 'False', inside: '198.51.100.7' },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', reachable: 'False', inside: '203.0.113.9' },
  { block: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112 section 4', reachable: 'False', inside: '250.1.2.3' },
  {
    block: '255.255.255.255/32',
    name: 'Limited Broadcast',
    rfc: 'RFC 8190, RFC 919 section 7',
    reachable: 'False',
    inside: '255.255.255.255',
  },
];

/** IANA IPv6 Special-Purpose Address Registry (RFC 6890), 25 entries. */
const IPV6_SPECIAL_PURPOSE: RegistryEntry[] = [
  { block: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', reachable: 'False', inside: '::1' },
  { block: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', reachable: 'False', inside: '::' },
  // Refused as the IPv4 address it maps to, which is public here; the special IPv4 blocks' mapped
  // forms are refused below.
  { block: '::ffff:0:0/96', name: 'IPv4-mapped Address', rfc: 'RFC 4291', reachable: 'False', inside: '::ffff:10.0.0.1' },
  {
    block: '64:ff9b::/96',
    name: 'IPv4-IPv6 Translat.',
    rfc: 'RFC 6052',
    reachable: 'True',
    inside: '64:ff9b::808:808',
    refused: 'reaches the embedded IPv4 address through a NAT64 translator, whatever that address is',
  },
  { block: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 8215', reachable: 'False', inside: '64:ff9b:1::a00:1' },
  { block: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666', reachable: 'False', inside: '100::1' },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', reachable: 'False', inside: '100:0:0:1::1' },
  { block: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928', reachable: 'False', inside: '2001:100::1' },
  {
    block: '2001::/32',
    name: 'TEREDO',
    rfc: 'RFC 4380, RFC 8190',
    reachable: 'N/A',
    inside: '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    refused: 'a tunnel address embedding an IPv4 server and client address',
  },
  {
    block: '2001:1::1/128',
    name: 'Port Control Protocol Anycast',
    rfc: 'RFC 7723',
    reachable: 'True',
    inside: '2001:1::1',
    refused: ANYCAST,
  },
  {
    block: '2001:1::2/128',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    reachable: 'True',
    inside: '2001:1::2',
    refused: ANYCAST,
  },
  {
    block: '2001:1::3/128',
    name: 'DNS-SD Service Registration Protocol Anycast',
    rfc: 'RFC 9665',
    reachable: 'True',
    inside: '2001:1::3',
    refused: ANYCAST,
  },
  { block: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180, RFC Errata 1752', reachable: 'False', inside: '2001:2:0:1::1' },
  { block: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', reachable: 'True', inside: '2001:3::1', refused: AMT },
  { block: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', reachable: 'True', inside: '2001:4:112::1', refused: AS112 },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843', reachable: '', inside: '2001:10::1' },
  { block: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', reachable: 'True', inside: '2001:20::1', refused: IDENTIFIER },
  {
    block: '2001:30::/28',
    name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix',
    rfc: 'RFC 9374',
    reachable: 'True',
    inside: '2001:30::1',
    refused: IDENTIFIER,
  },
  { block: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', reachable: 'False', inside: '2001:db8::1' },
  {
    block: '2002::/16',
    name: '6to4',
    rfc: 'RFC 3056',
    reachable: 'N/A',
    inside: '2002:7f00:1::1',
    refused: 'reaches the embedded IPv4 address through a 6to4 relay, whatever that address is',
  },
  {
    block: '2620:4f:8000::/48',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    reachable: 'True',
    inside: '2620:4f:8000::42',
    refused: AS112,
  },
  { block: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', reachable: 'False', inside: '3fff:abc::1' },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', reachable: 'False', inside: '5f00:1::1' },
  { block: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190', reachable: 'False', inside: 'fd00::5' },
  { block: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291', reachable: 'False', inside: 'fe80::1' },
];

/** Blocks outside both registries that are not globally routable unicast either. */
const OTHER_NON_UNICAST: RegistryEntry[] = [
  { block: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771', reachable: 'False', inside: '239.255.255.250' },
  { block: 'ff00::/8', name: 'Multicast', rfc: 'RFC 4291', reachable: 'False', inside: 'ff02::1' },
  { block: 'fec0::/10', name: 'Site-Local (deprecated)', rfc: 'RFC 3879', reachable: 'False', inside: 'fec0::1' },
  { block: '::/96', name: 'IPv4-compatible (deprecated)', rfc: 'RFC 4291 section 2.5.5.1', reachable: 'False', inside: '::7f00:1' },
  { block: '::ffff:0:0:0/96', name: 'IPv4-translated', rfc: 'RFC 6145', reachable: 'False', inside: '::ffff:0:808:808' },
  // IANA IPv6 Address Space registry: outside 2000::/3, "Reserved by IETF".
  { block: '1000::/4', name: 'Reserved by IETF', rfc: 'RFC 4291', reachable: 'False', inside: '1fff:ffff::1' },
  { block: '4000::/3', name: 'Reserved by IETF', rfc: 'RFC 4291', reachable: 'False', inside: '4000::1' },
  { block: 'e000::/4', name: 'Reserved by IETF', rfc: 'RFC 4291', reachable: 'False', inside: 'e000::1' },
  { block: 'fe00::/9', name: 'Reserved by IETF', rfc: 'RFC 4291', reachable: 'False', inside: 'fe00::1' },
];

const cidr = (block: string) => (block.includes(':') ? ipaddr.IPv6 : ipaddr.IPv4);
/** The first, an inside and the last address of an entry's block. */
const addressesOf = ({ block, inside }: RegistryEntry) => [
  cidr(block).networkAddressFromCIDR(block).toString(),
  inside,
  cidr(block).broadcastAddressFromCIDR(block).toString(),
];
const expand = (entries: RegistryEntry[]) => entries.flatMap((entry) => addressesOf(entry).map((address) => ({ ...entry, address })));
/** The two spellings of an IPv4 address mapped into IPv6: ::ffff:a.b.c.d and 0:0:0:0:0:ffff:xxxx:xxxx. */
const mapped = (entries: RegistryEntry[]) =>
  expand(entries).flatMap((row) => [
    { ...row, address: `::ffff:${row.address}` },
    { ...row, address: ipaddr.IPv4.parse(row.address).toIPv4MappedAddress().toNormalizedString() },
  ]);
const urlOf = (address: string) => (address.includes(':') ? `http://[${address}]:8080/hook` : `http://${address}:8080/hook`);
const neverResolves: Resolver = () => Promise.reject(new Error('an address literal is not looked up'));

async function expectRefused(address: string) {
  expect(addressRange(address)).not.toBe('unicast');
  await expect(assertPublicHttpUrl(urlOf(address), false, neverResolves)).rejects.toThrow(UnsafeUrlError);
}

describe('the IANA special-purpose registries, entry by entry', () => {
  it.each(expand(IPV4_SPECIAL_PURPOSE))('refuses $address in $block, $name ($rfc)', ({ address }) => expectRefused(address));

  it.each(mapped(IPV4_SPECIAL_PURPOSE))('refuses the IPv4-mapped $address ($block, $name)', ({ address }) => expectRefused(address));

  it.each(expand(IPV6_SPECIAL_PURPOSE))('refuses $address in $block, $name ($rfc)', ({ address }) => expectRefused(address));

  it.each(expand(OTHER_NON_UNICAST))('refuses $address in $block, $name ($rfc)', ({ address }) => expectRefused(address));

  it('decides every globally reachable entry on purpose', () => {
    const reachable = [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE].filter((e) => e.reachable === 'True' || e.reachable === 'N/A');
    expect(reachable.filter((e) => !e.refused)).toEqual([]);
    expect(IPV4_SPECIAL_PURPOSE).toHaveLength(26); // 25 entries, NAT64/DNS64 Discovery has two blocks
    expect(IPV6_SPECIAL_PURPOSE).toHaveLength(25);
  });
});

describe('public addresses', () => {
  // The four asked for, and the addresses right beside special blocks, which must not be caught by
  // a block drawn too wide.
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '2a00:1450::1',
    '::ffff:8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.0',
    '192.88.98.255',
    '192.88.100.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2001:200::1',
    '2001:db7:ffff::1',
    '2001:db9::1',
    '2003::1',
    '3ffe:ffff::1',
    '3fff:1000::1',
  ])('lets %s through', async (address) => {
    expect(addressRange(address)).toBe('unicast');
    await expect(assertPublicHttpUrl(urlOf(address), false, neverResolves)).resolves.toBeInstanceOf(URL);
  });
});

describe('address spellings in URLs', () => {
  // The WHATWG URL parser turns every IPv4 spelling into dotted decimal and every IPv6 spelling into
  // its compressed form before the guard sees the host, so these are the addresses checked.
  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://167772161/', '10.0.0.1'],
    ['http://0xa9fea9fe/latest/meta-data', '169.254.169.254'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', '[::ffff:7f00:1]'],
    ['http://[::127.0.0.1]/', '[::7f00:1]'],
    ['http://[64:ff9b::127.0.0.1]/', '[64:ff9b::7f00:1]'],
    ['http://[::ffff:0:127.0.0.1]/', '[::ffff:0:7f00:1]'],
    ['http://[2002:7f00:1::]/', '[2002:7f00:1::]'],
    ['http://[FE80::1]/', '[fe80::1]'],
  ])('refuses %s (%s)', async (raw, host) => {
    expect(new URL(raw).hostname).toBe(host);
    await expect(assertPublicHttpUrl(raw, false, neverResolves)).rejects.toThrow(UnsafeUrlError);
  });

  it('lets public addresses through in those spellings too', async () => {
    for (const raw of ['http://134744072/', 'http://0x08080808/', 'http://010.010.010.010/', 'http://[::ffff:808:808]/']) {
      await expect(assertPublicHttpUrl(raw, false, neverResolves)).resolves.toBeInstanceOf(URL);
    }
  });
});

describe('outbound URL guard', () => {
  it('refuses a name when any of its addresses is not public, naming the address and its range', async () => {
    const resolver =
      (answer: string[]): Resolver =>
      () =>
        Promise.resolve(answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    await expect(assertPublicHttpUrl('https://hook.test/', false, resolver(['93.184.216.34', '2606:4700::1111']))).resolves.toBeInstanceOf(
      URL,
    );
    await expect(assertPublicHttpUrl('https://hook.test/', false, resolver(['93.184.216.34', '::ffff:10.0.0.1']))).rejects.toThrow(
      'points at a private, loopback or reserved address (hook.test is ::ffff:10.0.0.1: private)',
    );
    await expect(assertPublicHttpUrl('https://hook.test/', false, resolver(['64:ff9b::a00:1']))).rejects.toThrow(
      '(hook.test is 64:ff9b::a00:1: rfc6052)',
    );
    await expect(assertPublicHttpUrl('http://[2001:db8::1]/', false, neverResolves)).rejects.toThrow('(2001:db8::1: reserved)');
  });

  it('refuses other schemes and embedded credentials, and allows private targets only when told to', async () => {
    await expect(assertPublicHttpUrl('ftp://8.8.8.8/', false)).rejects.toThrow('http or https');
    await expect(assertPublicHttpUrl('http://user:pw@8.8.8.8/', false)).rejects.toThrow('credentials');
    await expect(assertPublicHttpUrl('http://127.0.0.1:1/', true)).resolves.toBeInstanceOf(URL);
    await expect(assertPublicHttpUrl('http://[64:ff9b::a00:1]/', true)).resolves.toBeInstanceOf(URL);
  });

  it('treats what is not an address as refused', () => {
    expect(addressRange('not-an-address')).toBe('invalid');
  });
});

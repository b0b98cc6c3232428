/**
 * Which IP addresses Herald may connect to for a host a client chose (a webhook URL, a Bluesky PDS)
 * or a network's answer named: only public unicast addresses. Everything a
 * request from inside our network could abuse (loopback, private ranges, link-local and the cloud
 * metadata service, CGNAT, multicast, IPv6 unique-local and link-local, reserved and documentation
 * ranges, and IPv6 forms that embed such an IPv4 address) is refused. Tables follow the IANA
 * IPv4 and IPv6 special-purpose address registries.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, isIPv4, isIPv6 } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'unspecified'
  | 'unique_local'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'invalid';

type Range4 = [number, number, AddressClass];

const v4 = (text: string): number => {
  const parts = text.split('.').map(Number);
  return (
    (((parts[0] as number) << 24) |
      ((parts[1] as number) << 16) |
      ((parts[2] as number) << 8) |
      (parts[3] as number)) >>>
    0
  );
};

// Most specific first: the first range that contains the address decides.
const RANGES_V4: Range4[] = [
  [v4('169.254.169.254'), 32, 'metadata'], // EC2/most clouds' instance metadata
  [v4('169.254.170.2'), 32, 'metadata'], // ECS task metadata
  [v4('255.255.255.255'), 32, 'broadcast'],
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'cgnat'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link_local'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'reserved'],
  [v4('192.0.2.0'), 24, 'documentation'],
  [v4('192.88.99.0'), 24, 'reserved'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'benchmarking'],
  [v4('198.51.100.0'), 24, 'documentation'],
  [v4('203.0.113.0'), 24, 'documentation'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('240.0.0.0'), 4, 'reserved'],
];

const classifyV4 = (value: number): AddressClass => {
  for (const [base, bits, label] of RANGES_V4) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((value & mask) >>> 0 === base) return label;
  }
  return 'public';
};

/** An IPv6 address (no zone) as a 128-bit number, or null when it is not one. */
const parseV6 = (text: string): bigint | null => {
  if (!isIPv6(text)) return null;
  let address = text;
  // A trailing dotted IPv4 part (`::ffff:10.0.0.1`) becomes two hex groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const n = v4(dotted[1] as string);
    address = `${address.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = address.split('::') as [string, string | undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array(missing).fill('0'), ...tailGroups];
  if (groups.length !== 8) return null;
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
};

const v6 = (text: string): bigint => parseV6(text) as bigint;
const inV6 = (value: bigint, base: bigint, bits: number): boolean =>
  value >> BigInt(128 - bits) === base >> BigInt(128 - bits);

type Range6 = [bigint, number, AddressClass | 'embedded-v4-low' | 'embedded-v4-6to4'];

const RANGES_V6: Range6[] = [
  [v6('::'), 128, 'unspecified'],
  [v6('::1'), 128, 'loopback'],
  [v6('::ffff:0:0'), 96, 'embedded-v4-low'], // IPv4-mapped
  [v6('::ffff:0:0:0'), 96, 'embedded-v4-low'], // IPv4-translated (RFC 2765)
  [v6('::'), 96, 'embedded-v4-low'], // IPv4-compatible (deprecated)
  [v6('64:ff9b::'), 96, 'embedded-v4-low'], // NAT64: the gateway connects to the embedded IPv4
  [v6('64:ff9b:1::'), 48, 'private'], // local-use NAT64
  [v6('100::'), 64, 'reserved'], // discard-only
  [v6('2001:db8::'), 32, 'documentation'],
  [v6('2001::'), 23, 'reserved'], // IETF protocol assignments, Teredo, ORCHID, benchmarking
  [v6('2002::'), 16, 'embedded-v4-6to4'],
  [v6('3fff::'), 20, 'documentation'],
  [v6('5f00::'), 16, 'reserved'], // SRv6 SIDs
  [v6('fd00:ec2::254'), 128, 'metadata'], // EC2 instance metadata over IPv6
  [v6('fc00::'), 7, 'unique_local'],
  [v6('fe80::'), 10, 'link_local'],
  [v6('fec0::'), 10, 'private'], // site-local (deprecated)
  [v6('ff00::'), 8, 'multicast'],
];

const classifyV6 = (value: bigint): AddressClass => {
  for (const [base, bits, label] of RANGES_V6) {
    if (!inV6(value, base, bits)) continue;
    if (label === 'embedded-v4-low') return classifyV4(Number(value & 0xffffffffn));
    if (label === 'embedded-v4-6to4') return classifyV4(Number((value >> 80n) & 0xffffffffn));
    return label;
  }
  // Only the global unicast block 2000::/3 is routed on the internet.
  return inV6(value, v6('2000::'), 3) ? 'public' : 'reserved';
};

/** What kind of address `ip` is (IPv4 dotted, IPv6 with or without brackets or zone). */
export const classifyAddress = (ip: string): AddressClass => {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (isIPv4(text)) return classifyV4(v4(text));
  const value = parseV6(text);
  return value === null ? 'invalid' : classifyV6(value);
};

export interface AddressPolicy {
  /** The local runtime allows loopback, so subscribers can be tested on the same machine. */
  allowLoopback: boolean;
  /** Only loopback addresses (a plain http:// URL, allowed locally for the runtime's own simulators). */
  loopbackOnly?: boolean;
}

/** True when Herald may connect to `ip` under `policy`. */
export const isAllowedAddress = (ip: string, policy: AddressPolicy): boolean => {
  const kind = classifyAddress(ip);
  if (policy.loopbackOnly) return kind === 'loopback' && policy.allowLoopback;
  return kind === 'public' || (kind === 'loopback' && policy.allowLoopback);
};

const WEBHOOK_RULE = 'webhooks are delivered only to public internet addresses';

/**
 * The human reason an address is refused, for the error message and the deliveries log; `rule`
 * ends it (the webhooks' by default).
 */
export const refusalReason = (ip: string, host: string, rule: string = WEBHOOK_RULE): string => {
  const kind = classifyAddress(ip);
  const what: Record<AddressClass, string> = {
    public: 'a public address',
    loopback: 'a loopback address',
    private: 'a private network address',
    link_local: 'a link-local address',
    metadata: 'the cloud metadata service',
    cgnat: 'a carrier-grade NAT address',
    multicast: 'a multicast address',
    broadcast: 'the broadcast address',
    unspecified: 'an unspecified address',
    unique_local: 'an IPv6 unique-local address',
    documentation: 'a documentation-only address',
    benchmarking: 'a benchmarking address',
    reserved: 'a reserved address',
    invalid: 'an invalid address',
  };
  const target = host === ip ? ip : `${host} resolves to ${ip},`;
  return `${target} ${host === ip ? 'is' : 'which is'} ${what[kind]}; ${rule}.`;
};

/** Every address a host name resolves to (the same shape as the webhooks port's `HostResolver`). */
export type ResolveHost = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** DNS as the operating system answers it: every address, in its order. */
export const systemResolver: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses as LookupAddress[]),
    );
  });

/** A connection refused by the address policy: nothing was sent. */
export class AddressNotAllowed extends Error {
  readonly code = 'URL_NOT_ALLOWED';
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A socket `lookup` (node:net, node:http, node:https) that resolves the host with `resolve`,
 * refuses the whole host when any of its addresses is not allowed (an `AddressNotAllowed` error on
 * the request), and hands the socket the very addresses it checked: nothing else is connected to,
 * and no second lookup can answer differently (DNS rebinding). Node calls no lookup for an IP
 * literal: check those with `isAllowedAddress` before connecting.
 */
export const pinnedLookup =
  (resolve: ResolveHost, policy: AddressPolicy, rule?: string) =>
  (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (found) => {
        const addresses = options.family ? found.filter((a) => a.family === options.family) : found;
        const refused = found.find((a) => !isAllowedAddress(a.address, policy));
        if (refused)
          return callback(new AddressNotAllowed(refusalReason(refused.address, hostname, rule)), '');
        const first = addresses[0];
        if (!first) return callback(Object.assign(new Error('No address found'), { code: 'ENOTFOUND' }), '');
        if (options.all) return callback(null, addresses);
        return callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, ''),
    );
  };

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/i;

/**
 * Why `host` (a URL's hostname: lower case, IDNs already in punycode) can never be resolved, or
 * null when it is an IP address or a well-formed DNS name (RFC 1035/1123: labels of 1-63 letters,
 * digits and inner hyphens, at most 253 characters; underscores are tolerated, as resolvers do).
 * Checked before any lookup: resolvers answer such names inconsistently, some with a temporary
 * failure that would look like our outage.
 */
export const hostNameProblem = (host: string): string | null => {
  if (isIP(host)) return null;
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name.length === 0) return 'The URL has no host name.';
  if (name.length > 253) {
    return `The host name is ${name.length} characters long; a DNS name has at most 253.`;
  }
  for (const label of name.split('.')) {
    if (label.length === 0) return 'The host name has an empty label (a leading dot or two dots in a row).';
    if (label.length > 63) {
      return `The host name has a label of ${label.length} characters; a DNS label has at most 63.`;
    }
    if (!LABEL.test(label)) {
      return 'A host name label may hold only letters, digits and hyphens, and must not start or end with a hyphen.';
    }
  }
  return null;
};

/**
 * IP addresses and networks as numbers: parsing, canonical text, arithmetic.
 *
 * Owns the textual rules Neutron inherits from netaddr (IPv4 dotted quads only, RFC 5952 text for
 * IPv6) so every other module can compare addresses as bigints. It knows nothing of subnets or
 * ports; IPAM builds on it.
 */

export type IpVersion = 4 | 6;

export interface IpAddress {
  readonly version: IpVersion;
  readonly value: bigint;
}

export interface IpNetwork {
  readonly version: IpVersion;
  /** The address as written (host bits may be set, as in `10.0.0.5/24`). */
  readonly ip: bigint;
  readonly prefixLength: number;
}

const BITS: Record<IpVersion, number> = { 4: 32, 6: 128 };

export function bitsOf(version: IpVersion): number {
  return BITS[version];
}

const IPV4_RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Parses a dotted-quad IPv4 address; `strict` refuses leading zeros (`010.0.0.1`). */
export function parseIpv4(text: string, strict = true): bigint | null {
  const m = IPV4_RE.exec(text);
  if (!m) return null;
  let value = 0n;
  for (let i = 1; i <= 4; i++) {
    const part = m[i]!;
    if (strict && part.length > 1 && part.startsWith('0')) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

const HEXTET_RE = /^[0-9a-fA-F]{1,4}$/;

export function parseIpv6(text: string): bigint | null {
  if (text.length < 2 || text.length > 45) return null;
  let head = text;
  let tailV4: bigint | null = null;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tailV4 = parseIpv4(text.slice(lastColon + 1));
    if (tailV4 === null) return null;
    head = text.slice(0, lastColon + 1) + '0:0';
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const split = (s: string): string[] | null => {
    if (s === '') return [];
    const parts = s.split(':');
    return parts.every((p) => HEXTET_RE.test(p)) ? parts : null;
  };
  const left = split(halves[0]!);
  const right = halves.length === 2 ? split(halves[1]!) : [];
  if (left === null || right === null) return null;
  let groups: string[];
  if (halves.length === 2) {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return null;
    groups = [...left, ...Array<string>(missing).fill('0'), ...right];
  } else {
    groups = left;
  }
  if (groups.length !== 8) return null;
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(parseInt(g, 16));
  if (tailV4 !== null) value = (value & ~0xffffffffn) | tailV4;
  return value;
}

/** Parses an IPv4 or IPv6 address. Returns null for anything else (no CIDR, no spaces). */
export function parseIp(text: unknown, strictV4 = true): IpAddress | null {
  if (typeof text !== 'string' || text.length === 0) return null;
  if (text.includes(':')) {
    const v = parseIpv6(text);
    return v === null ? null : { version: 6, value: v };
  }
  const v = parseIpv4(text, strictV4);
  return v === null ? null : { version: 4, value: v };
}

/** Parses `addr/len` (or a bare address, with `allowBare`, as a host network). */
export function parseNetwork(text: unknown, allowBare = false): IpNetwork | null {
  if (typeof text !== 'string') return null;
  const slash = text.indexOf('/');
  if (slash < 0) {
    if (!allowBare) return null;
    const ip = parseIp(text);
    return ip ? { version: ip.version, ip: ip.value, prefixLength: BITS[ip.version] } : null;
  }
  const ip = parseIp(text.slice(0, slash));
  const lenText = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(lenText)) return null;
  const prefixLength = Number(lenText);
  if (prefixLength > BITS[ip.version]) return null;
  return { version: ip.version, ip: ip.value, prefixLength };
}

export function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => ((value >> s) & 0xffn).toString()).join('.');
}

/** RFC 5952 text, as glibc's inet_ntop and netaddr print it. */
export function formatIpv6(value: bigint): string {
  const groups: number[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(Number((value >> s) & 0xffffn));
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return '::ffff:' + formatIpv4(value & 0xffffffffn);
  }
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  const left = hex.slice(0, bestStart).join(':');
  const right = hex.slice(bestStart + bestLen).join(':');
  return `${left}::${right}`;
}

export function formatIp(version: IpVersion, value: bigint): string {
  return version === 4 ? formatIpv4(value) : formatIpv6(value);
}

export function hostMask(version: IpVersion, prefixLength: number): bigint {
  return (1n << BigInt(BITS[version] - prefixLength)) - 1n;
}

export function networkAddress(net: IpNetwork): bigint {
  return net.ip & ~hostMask(net.version, net.prefixLength);
}

export function broadcastAddress(net: IpNetwork): bigint {
  return networkAddress(net) | hostMask(net.version, net.prefixLength);
}

export function networkSize(net: IpNetwork): bigint {
  return hostMask(net.version, net.prefixLength) + 1n;
}

/** The network with host bits cleared (`10.0.0.5/24` → `10.0.0.0/24`). */
export function canonicalNetwork(net: IpNetwork): IpNetwork {
  return { version: net.version, ip: networkAddress(net), prefixLength: net.prefixLength };
}

export function formatNetwork(net: IpNetwork): string {
  return `${formatIp(net.version, net.ip)}/${net.prefixLength}`;
}

export function containsAddress(net: IpNetwork, version: IpVersion, value: bigint): boolean {
  return version === net.version && value >= networkAddress(net) && value <= broadcastAddress(net);
}

export function networksOverlap(a: IpNetwork, b: IpNetwork): boolean {
  if (a.version !== b.version) return false;
  return networkAddress(a) <= broadcastAddress(b) && networkAddress(b) <= broadcastAddress(a);
}

const MULTICAST_V4 = parseNetwork('224.0.0.0/4')!;
const LOOPBACK_V4 = parseNetwork('127.0.0.0/8')!;
const MULTICAST_V6 = parseNetwork('ff00::/8')!;

export function isMulticast(version: IpVersion, value: bigint): boolean {
  return containsAddress(version === 4 ? MULTICAST_V4 : MULTICAST_V6, version, value);
}

export function isLoopback(version: IpVersion, value: bigint): boolean {
  return version === 4 ? containsAddress(LOOPBACK_V4, 4, value) : value === 1n;
}

/**
 * The modified EUI-64 address of `mac` in a /64 (RFC 4291 appendix A): flip the universal/local bit
 * of the first octet and put ff:fe in the middle.
 */
export function eui64Address(prefix: IpNetwork, mac: string): bigint {
  const octets = mac.split(':').map((h) => BigInt(parseInt(h, 16)));
  const [a, b, c, d, e, f] = octets as [bigint, bigint, bigint, bigint, bigint, bigint];
  const iid =
    ((a ^ 0x02n) << 56n) | (b << 48n) | (c << 40n) | (0xffn << 32n) | (0xfen << 24n) | (d << 16n) | (e << 8n) | f;
  return networkAddress(prefix) | iid;
}

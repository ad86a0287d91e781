/**
 * Carving subnets out of a subnet pool (`neutron/ipam/subnet_alloc.py`): the pool's prefixes minus
 * what its subnets already hold. A requested CIDR must lie inside a prefix and overlap nothing; a
 * requested length gets the lowest free block of that size. Pure functions over CIDR text.
 */
import {
  broadcastAddress,
  formatNetwork,
  networkAddress,
  networksOverlap,
  parseNetwork,
  type IpNetwork,
} from '../ip.js';

const net = (cidr: string): IpNetwork => parseNetwork(cidr)!;
const within = (inner: IpNetwork, outer: IpNetwork) =>
  inner.version === outer.version &&
  networkAddress(inner) >= networkAddress(outer) &&
  broadcastAddress(inner) <= broadcastAddress(outer);

/** Whether `cidr` fits in the pool's prefixes and overlaps none of its allocations. */
export function isFree(cidr: string, prefixes: readonly string[], allocated: readonly string[]): boolean {
  const wanted = net(cidr);
  return prefixes.some((p) => within(wanted, net(p))) && !allocated.some((a) => networksOverlap(net(a), wanted));
}

/** The lowest free `/prefixlen` block of the pool, or undefined when the pool has none. */
export function allocateBlock(
  prefixes: readonly string[],
  allocated: readonly string[],
  prefixlen: number,
): string | undefined {
  const taken = allocated.map(net).sort((a, b) => (networkAddress(a) < networkAddress(b) ? -1 : 1));
  const sorted = prefixes.map(net).sort((a, b) => (networkAddress(a) < networkAddress(b) ? -1 : 1));
  for (const prefix of sorted) {
    if (prefixlen < prefix.prefixLength) continue;
    const bits = prefix.version === 4 ? 32 : 128;
    const size = 1n << BigInt(bits - prefixlen);
    let candidate = networkAddress(prefix);
    const end = broadcastAddress(prefix);
    while (candidate + size - 1n <= end) {
      const block: IpNetwork = { version: prefix.version, ip: candidate, prefixLength: prefixlen };
      const clash = taken.find((t) => networksOverlap(t, block));
      if (!clash) return formatNetwork(block);
      // Jump past the allocation in the way, to the next aligned block.
      const after = broadcastAddress(clash) + 1n;
      candidate = ((after + size - 1n) / size) * size;
    }
  }
  return undefined;
}

/** The pool's prefixes in canonical form, without those another one contains, sorted. */
export function normalizePrefixes(prefixes: readonly string[]): string[] {
  const nets = [...new Set(prefixes.map((p) => formatNetwork({ ...net(p), ip: networkAddress(net(p)) })))].map(net);
  const kept = nets.filter((n, i) => !nets.some((o, j) => j !== i && within(n, o) && !(within(o, n) && j > i)));
  return kept
    .sort((a, b) => (networkAddress(a) < networkAddress(b) ? -1 : networkAddress(a) > networkAddress(b) ? 1 : 0))
    .map(formatNetwork);
}

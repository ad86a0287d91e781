/**
 * FRR's configuration for one node's BGP speaker, as text: a pure function of what the agent
 * decided (peers, the prefixes the API allows, the prefixes active on this chassis). No I/O.
 *
 * What the rendered file holds, and why:
 * - one `router bgp <local_as>` (FRR has one instance per VRF; speakers of one agent share it);
 * - per peer: `remote-as`, `password` (TCP MD5), `bfd` with the `octonet` profile, activation in
 *   the peer's address family, an outbound prefix-list that lets out only what the API advertises
 *   (so a stale `network` line can never leak a prefix) and an outbound route-map that sets the
 *   API's next hop (the router's gateway IP), or leaves next-hop-self for prefixes announced with
 *   the node as next hop (distributed floating IPs);
 * - `network` lines for the prefixes active here, with `no bgp network import-check`: the prefixes
 *   live in OVN, not in this namespace's kernel table;
 * - `bgp graceful-restart`, so an agent or FRR restart keeps the peers' routes while it comes back.
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';

export type Family = 4 | 6;

export interface FrrPeer {
  readonly address: string;
  readonly remoteAs: number;
  /** TCP MD5 secret (the bgp-peer's `password`). */
  readonly password?: string;
}

export interface FrrAnnouncement {
  /** CIDR. */
  readonly prefix: string;
  /** Next hop the peers are told; undefined: this node itself (next-hop-self). */
  readonly nextHop?: string;
}

export interface BfdTimers {
  readonly intervalMs: number;
  readonly multiplier: number;
}

export interface FrrSpeakerConfig {
  readonly routerId: string;
  readonly localAs: number;
  readonly peers: readonly FrrPeer[];
  /** Every prefix the API advertises (the outbound filter). */
  readonly allowed: readonly string[];
  /** What this chassis announces now (a subset of `allowed`). */
  readonly announced: readonly FrrAnnouncement[];
  readonly bfd: BfdTimers;
  /** Graceful restart's restart-time in seconds (FRR's default is 120). */
  readonly restartTimeS: number;
}

export const BFD_PROFILE = 'octonet';
export const allowedListName = (family: Family): string => `OCTONET-ALLOWED-V${family}`;
export const exportMapName = (family: Family): string => `OCTONET-EXPORT-V${family}`;
/** Named after the next hop itself, so a new next hop adds lines without renaming others. */
const nextHopListName = (nextHop: string): string => `OCTONET-NH-${nextHop}`;
/** Route-map entries 1..64999 (65000 is the final permit), from the next hop alone, like `sequenceOf`. */
const ROUTE_MAP_SLOTS = 64_999;

export function familyOf(addressOrCidr: string): Family {
  return ipaddr.parse(addressOrCidr.split('/')[0] ?? '').kind() === 'ipv6' ? 6 : 4;
}

/** `a.b.c.d/len` in canonical form (host bits cleared), as FRR prints it back. */
export function canonicalPrefix(cidr: string): string {
  const [address, length] = ipaddr.parseCIDR(cidr.includes('/') ? cidr : `${cidr}/${familyOf(cidr) === 4 ? 32 : 128}`);
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${length}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${length}`);
  return `${network.toString()}/${length}`;
}

const byAddress = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const MAX_SEQ = 4_294_967_295;

/** A sequence number from the prefix alone, so adding one prefix adds one line (the fast path). */
function sequenceOf(prefix: string): number {
  return (createHash('sha1').update(prefix).digest().readUInt32BE(0) % (MAX_SEQ - 1)) + 1;
}

function prefixListLines(kind: 'ip' | 'ipv6', name: string, prefixes: readonly string[]): string[] {
  if (prefixes.length === 0) return [`${kind} prefix-list ${name} seq ${MAX_SEQ} deny any`];
  const used = new Set<number>();
  return prefixes.map((prefix) => {
    let seq = sequenceOf(prefix);
    while (used.has(seq)) seq = (seq % (MAX_SEQ - 1)) + 1; // a collision: rare, and then a full reload
    used.add(seq);
    return `${kind} prefix-list ${name} seq ${seq} permit ${prefix}`;
  });
}

/** The prefix-lists and route-map of one family: filter and next hops. */
function familyPolicy(family: Family, config: FrrSpeakerConfig): string[] {
  const kind = family === 4 ? 'ip' : 'ipv6';
  const allowed = [...new Set(config.allowed.filter((p) => familyOf(p) === family).map(canonicalPrefix))].sort(
    byAddress,
  );
  const lines = prefixListLines(kind, allowedListName(family), allowed);
  const groups = new Map<string, string[]>();
  for (const a of config.announced) {
    if (familyOf(a.prefix) !== family || a.nextHop === undefined) continue;
    groups.set(a.nextHop, [...(groups.get(a.nextHop) ?? []), canonicalPrefix(a.prefix)]);
  }
  const nextHops = [...groups.keys()].sort(byAddress);
  for (const nextHop of nextHops) {
    lines.push(...prefixListLines(kind, nextHopListName(nextHop), groups.get(nextHop)!.sort(byAddress)));
  }
  const usedSlots = new Set<number>();
  for (const nextHop of nextHops) {
    let slot = (sequenceOf(nextHop) % ROUTE_MAP_SLOTS) + 1;
    while (usedSlots.has(slot)) slot = (slot % ROUTE_MAP_SLOTS) + 1;
    usedSlots.add(slot);
    lines.push(
      `route-map ${exportMapName(family)} permit ${slot}`,
      ` match ${kind} address prefix-list ${nextHopListName(nextHop)}`,
      family === 4 ? ` set ip next-hop ${nextHop}` : ` set ipv6 next-hop global ${nextHop}`,
      'exit',
    );
  }
  // Everything else the prefix-list let through leaves with this node as next hop.
  lines.push(`route-map ${exportMapName(family)} permit 65000`, 'exit');
  return lines;
}

function addressFamilyBlock(family: Family, config: FrrSpeakerConfig): string[] {
  const peers = config.peers.filter((p) => familyOf(p.address) === family);
  const networks = [
    ...new Set(config.announced.filter((a) => familyOf(a.prefix) === family).map((a) => canonicalPrefix(a.prefix))),
  ].sort(byAddress);
  if (peers.length === 0 && networks.length === 0) return [];
  return [
    ` address-family ipv${family} unicast`,
    ...networks.map((n) => `  network ${n}`),
    ...peers.flatMap((p) => [
      `  neighbor ${p.address} activate`,
      `  neighbor ${p.address} prefix-list ${allowedListName(family)} out`,
      `  neighbor ${p.address} route-map ${exportMapName(family)} out`,
    ]),
    ' exit-address-family',
  ];
}

export function renderFrrConfig(config: FrrSpeakerConfig): string {
  const peers = [...config.peers].sort((a, b) => byAddress(a.address, b.address));
  const sorted = { ...config, peers };
  const lines = [
    'frr defaults traditional',
    '!',
    ...familyPolicy(4, sorted),
    ...familyPolicy(6, sorted),
    '!',
    'bfd',
    ` profile ${BFD_PROFILE}`,
    // FRR leaves its defaults out of `show running-config`; so does the file, or every reload diffs.
    ...(config.bfd.multiplier !== 3 ? [`  detect-multiplier ${config.bfd.multiplier}`] : []),
    `  receive-interval ${config.bfd.intervalMs}`,
    `  transmit-interval ${config.bfd.intervalMs}`,
    ' exit',
    'exit',
    '!',
    `router bgp ${config.localAs}`,
    ` bgp router-id ${config.routerId}`,
    ' no bgp ebgp-requires-policy',
    ' no bgp default ipv4-unicast',
    ' no bgp network import-check',
    ' bgp graceful-restart',
    ...(config.restartTimeS !== 120 ? [` bgp graceful-restart restart-time ${config.restartTimeS}`] : []),
    ...peers.flatMap((p) => [
      ` neighbor ${p.address} remote-as ${p.remoteAs}`,
      ...(p.password ? [` neighbor ${p.address} password ${p.password}`] : []),
      ` neighbor ${p.address} bfd`,
      ` neighbor ${p.address} bfd profile ${BFD_PROFILE}`,
      // Announce at once (the goal is a floating IP announced within 200 ms), not per MRAI.
      ` neighbor ${p.address} advertisement-interval 0`,
    ]),
    ...addressFamilyBlock(4, sorted),
    ...addressFamilyBlock(6, sorted),
    'exit',
    '!',
  ];
  return lines.join('\n') + '\n';
}

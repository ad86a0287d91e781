/**
 * Which of the API's advertised routes this chassis announces, and with which next hop: a pure
 * function of the API snapshot and of where OVN has things now. No I/O.
 *
 * - A route whose next hop is a router's gateway address (a floating IP's /32 or /128, a tenant
 *   subnet behind the router) is announced only from the chassis where that gateway is active: the
 *   SB binding of `cr-lrp-<gateway port>`. When the gateway fails over, the binding moves and so
 *   does the announcement. The next hop stays the API's (the gateway address, which the peers
 *   reach on the provider network wherever the gateway is).
 * - With distributed floating IPs, a floating IP's host route is announced from the chassis that
 *   binds its port (a VM's, or a VIP's virtual port, which follows keepalived), with this node as
 *   next hop: OVN answers for the address on that chassis' provider bridge, as ovn-bgp-agent does.
 * - The outbound filter lets out every route the API advertises, wherever it is active: what the
 *   peers get is still only what the API says.
 * Speakers: FRR has one `router bgp` per VRF, so the speakers on one agent must share a local AS;
 * the first by id sets it and any other AS is reported as skipped. The API lets an agent host only
 * one speaker anyway, as n-d-r does (its `bgp_speaker_dragent_bindings` is keyed by the agent, a
 * second binding is `DrAgentAssociationError`, and its os-ken driver raises
 * `BgpSpeakerMaxScheduled(count=1)`), and a speaker has one `ip_version`: an IPv4 and an IPv6
 * speaker cannot share a node, in n-d-r as here (one agent per chassis).
 */
import type { ApiSnapshot, PeerView } from './agent-api.js';
import { canonicalPrefix, type FrrAnnouncement, type FrrPeer } from './frr/config.js';

export interface OvnLocation {
  /** The chassis name that binds a logical port now (`Port_Binding.chassis`), if any. */
  chassisOf(logicalPort: string): string | undefined;
}

export interface PlacementOptions {
  readonly chassis: string;
  readonly distributedFloatingIps: boolean;
  /** Peer IP → MD5 secret, for peers whose password the API does not show. */
  readonly peerPasswords: ReadonlyMap<string, string>;
}

export interface Placement {
  readonly localAs: number | undefined;
  readonly peers: FrrPeer[];
  readonly allowed: string[];
  readonly announced: FrrAnnouncement[];
  /** Speaker ids left out because their local AS differs from the first one's. */
  readonly skippedSpeakers: string[];
}

const isHostRoute = (cidr: string): boolean => /\/(32|128)$/.test(cidr);
const hostAddress = (cidr: string): string => cidr.split('/')[0]!;

function peerOf(peer: PeerView, passwords: ReadonlyMap<string, string>): FrrPeer {
  const password = peer.password || passwords.get(peer.peer_ip);
  return { address: peer.peer_ip, remoteAs: peer.remote_as, ...(password ? { password } : {}) };
}

export function placeRoutes(snapshot: ApiSnapshot, location: OvnLocation, options: PlacementOptions): Placement {
  const speakers = [...snapshot.speakers].sort((a, b) => (a.speaker.id < b.speaker.id ? -1 : 1));
  const localAs = speakers[0]?.speaker.local_as;
  const used = speakers.filter((s) => s.speaker.local_as === localAs);
  const gatewayByAddress = new Map<string, string>();
  for (const port of snapshot.gatewayPorts) for (const a of port.addresses) gatewayByAddress.set(a, port.id);
  const fipPort = new Map<string, string>();
  for (const fip of snapshot.floatingIps) if (fip.port_id) fipPort.set(fip.floating_ip_address, fip.port_id);

  const peers = new Map<string, FrrPeer>();
  const allowed = new Set<string>();
  const announced = new Map<string, FrrAnnouncement>();
  for (const { peers: speakerPeers, routes } of used) {
    for (const peer of speakerPeers) peers.set(peer.peer_ip, peerOf(peer, options.peerPasswords));
    for (const route of routes) {
      const prefix = canonicalPrefix(route.destination);
      allowed.add(prefix);
      const port = isHostRoute(prefix) ? fipPort.get(hostAddress(prefix)) : undefined;
      if (options.distributedFloatingIps && port) {
        if (location.chassisOf(port) === options.chassis) announced.set(prefix, { prefix });
        continue;
      }
      const gateway = gatewayByAddress.get(route.next_hop);
      if (gateway && location.chassisOf(`cr-lrp-${gateway}`) === options.chassis) {
        announced.set(prefix, { prefix, nextHop: route.next_hop });
      }
    }
  }
  return {
    localAs,
    peers: [...peers.values()],
    allowed: [...allowed],
    announced: [...announced.values()],
    skippedSpeakers: speakers.filter((s) => !used.includes(s)).map((s) => s.speaker.id),
  };
}

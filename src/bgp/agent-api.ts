/**
 * What the BGP agent reads from the Networking API; read-only, one snapshot per pass. Two ways:
 * - octonet's service-only `GET /v2.0/octonet/bgp-dragents/{id}/speakers` (docs/bgp-agent.md): one
 *   request with the hosted speaker, its peers with their MD5 secrets, and its routes with the
 *   gateway port and the floating IP's port that place them (what n-d-r's agent gets over RPC);
 * - when that answers 404 (a Neutron with n-d-r, or credentials without the service role),
 *   n-d-r's public API: the speakers scheduled to this agent (`GET /v2.0/agents/{id}/bgp-drinstances`),
 *   each speaker and its peers (no secrets: `--peer-passwords` gives them), the speaker's advertised
 *   routes (`GET /v2.0/bgp-speakers/{id}/get_advertised_routes`, a member action n-d-r maps to
 *   GET), and, to place each route, the floating IPs and the routers' gateway ports.
 */
import { NeutronApiError, type NeutronClient } from '../mgmtnet/neutron-client.js';

export interface SpeakerView {
  readonly id: string;
  readonly name: string;
  readonly local_as: number;
  readonly ip_version: number;
  readonly peers: readonly string[];
}

export interface PeerView {
  readonly id: string;
  readonly peer_ip: string;
  readonly remote_as: number;
  /** From the service endpoint; n-d-r's public API never shows it (then `--peer-passwords`). */
  readonly password?: string | null;
}

export interface AdvertisedRoute {
  readonly destination: string;
  readonly next_hop: string;
}

export interface FloatingIpView {
  readonly floating_ip_address: string;
  readonly port_id: string | null;
  readonly router_id: string | null;
}

export interface GatewayPortView {
  readonly id: string;
  readonly addresses: readonly string[];
}

export interface ApiSnapshot {
  readonly speakers: readonly { speaker: SpeakerView; peers: PeerView[]; routes: AdvertisedRoute[] }[];
  readonly floatingIps: readonly FloatingIpView[];
  readonly gatewayPorts: readonly GatewayPortView[];
}

async function orNotFound<T>(read: Promise<T>, fallback: T): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NeutronApiError && error.status === 404) return fallback;
    throw error;
  }
}

/** The service endpoint's route: n-d-r's fields and where the route comes from. */
interface HostedRoute extends AdvertisedRoute {
  readonly gateway_port_id: string;
  readonly fixed_port_id?: string | null;
}

interface HostedSpeaker {
  readonly id: string;
  readonly local_as: number;
  readonly ip_version: number;
  readonly peers: PeerView[];
  readonly advertised_routes: HostedRoute[];
}

export const hostedSpeakersPath = (agentId: string): string => `/octonet/bgp-dragents/${agentId}/speakers`;

/** The snapshot from the service endpoint; undefined when it answers 404. */
export async function readHostedSnapshot(client: NeutronClient, agentId: string): Promise<ApiSnapshot | undefined> {
  const body = await orNotFound(client.request('GET', hostedSpeakersPath(agentId)), undefined);
  const hosted = (body as { bgp_speakers?: HostedSpeaker[] } | undefined)?.bgp_speakers;
  if (!hosted) return undefined;
  // Placement reads the gateway port by next hop and a floating IP's port by address.
  const gatewayPorts = new Map<string, Set<string>>();
  const floatingIps: FloatingIpView[] = [];
  for (const route of hosted.flatMap((s) => s.advertised_routes)) {
    gatewayPorts.set(route.gateway_port_id, (gatewayPorts.get(route.gateway_port_id) ?? new Set()).add(route.next_hop));
    if (route.fixed_port_id) {
      floatingIps.push({
        floating_ip_address: route.destination.split('/')[0]!,
        port_id: route.fixed_port_id,
        router_id: null,
      });
    }
  }
  return {
    speakers: hosted.map((s) => ({
      speaker: { id: s.id, name: '', local_as: s.local_as, ip_version: s.ip_version, peers: s.peers.map((p) => p.id) },
      peers: s.peers,
      routes: s.advertised_routes.map((r) => ({ destination: r.destination, next_hop: r.next_hop })),
    })),
    floatingIps,
    gatewayPorts: [...gatewayPorts].map(([id, addresses]) => ({ id, addresses: [...addresses] })),
  };
}

/** The snapshot through n-d-r's public API (no peer secrets). */
export async function readApiSnapshot(client: NeutronClient, agentId: string): Promise<ApiSnapshot> {
  const hosted = await orNotFound(client.request('GET', `/agents/${agentId}/bgp-drinstances`), {});
  const ids = ((hosted as { bgp_speakers?: { id: string }[] }).bgp_speakers ?? []).map((s) => s.id);
  const [speakers, floatingIps, ports] = await Promise.all([
    Promise.all(ids.map((id) => readSpeaker(client, id))),
    client
      .request('GET', '/floatingips?fields=floating_ip_address&fields=port_id&fields=router_id')
      .then((body) => (body as { floatingips?: FloatingIpView[] } | undefined)?.floatingips ?? []),
    client.list<{ id: string; fixed_ips: { ip_address: string }[] }>('ports', {
      device_owner: 'network:router_gateway',
    }),
  ]);
  return {
    speakers: speakers.filter((s): s is NonNullable<typeof s> => s !== undefined),
    floatingIps,
    gatewayPorts: ports.map((p) => ({ id: p.id, addresses: p.fixed_ips.map((ip) => ip.ip_address) })),
  };
}

async function readSpeaker(
  client: NeutronClient,
  id: string,
): Promise<{ speaker: SpeakerView; peers: PeerView[]; routes: AdvertisedRoute[] } | undefined> {
  const body = await orNotFound(client.request('GET', `/bgp-speakers/${id}`), undefined);
  const speaker = (body as { bgp_speaker?: SpeakerView } | undefined)?.bgp_speaker;
  if (!speaker) return undefined;
  const [peers, routes] = await Promise.all([
    Promise.all(
      speaker.peers.map(async (peerId) => {
        const peer = await orNotFound(client.request('GET', `/bgp-peers/${peerId}`), undefined);
        return (peer as { bgp_peer?: PeerView } | undefined)?.bgp_peer;
      }),
    ),
    orNotFound(client.request('GET', `/bgp-speakers/${id}/get_advertised_routes`), {}),
  ]);
  return {
    speaker,
    peers: peers.filter((p): p is PeerView => p !== undefined),
    routes: (routes as { advertised_routes?: AdvertisedRoute[] }).advertised_routes ?? [],
  };
}

/**
 * What the BGP agent reads from the Networking API, in neutron-dynamic-routing's wire format, so
 * it works against octonet or a Neutron with n-d-r: the speakers scheduled to this agent
 * (`GET /v2.0/agents/{id}/bgp-drinstances`), each speaker and its peers, the speaker's advertised
 * routes (`GET /v2.0/bgp-speakers/{id}/get_advertised_routes`, a member action n-d-r maps to GET), and, to place each route, the
 * floating IPs and the routers' gateway ports. Read-only; one snapshot per pass.
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
  /** n-d-r never shows it; a deployment passes it with `--peer-passwords`. */
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

/**
 * What the node agent needs from Neutron, as a narrow interface: find this node's port by its
 * owner tags, read it with its network and subnets, set `binding:host_id`, and see the operator's
 * router (link-router) and the other controllers' ports (probe targets). Any Neutron client can be
 * adapted to it (`fromNeutronClient` wraps the shared `NeutronClient`); the agent itself never
 * builds URLs. Bodies are Neutron's own JSON, only the fields read here are typed.
 */
import type { NeutronClient, Query } from '../neutron-client.js';

export interface NeutronFixedIp {
  subnet_id: string;
  ip_address: string;
}

export interface NeutronPort {
  id: string;
  name: string;
  network_id: string;
  mac_address: string;
  fixed_ips: NeutronFixedIp[];
  status: string;
  device_owner: string;
  device_id: string;
  tags?: string[];
  admin_state_up?: boolean;
  'binding:host_id'?: string;
  'binding:vif_type'?: string;
}

export interface NeutronNetwork {
  id: string;
  name: string;
  mtu: number;
}

export interface NeutronSubnet {
  id: string;
  network_id: string;
  cidr: string;
  ip_version: 4 | 6;
  gateway_ip: string | null;
  host_routes: { destination: string; nexthop: string }[];
}

export interface NeutronRouter {
  id: string;
  name: string;
  tags?: string[];
  external_gateway_info: {
    network_id: string;
    external_fixed_ips?: NeutronFixedIp[];
  } | null;
}

/** A list filter: values that are arrays become Neutron's comma-joined form (tags=a,b is AND). */
export type NeutronFilter = Record<string, string | readonly string[]>;

export interface NodeAgentNeutron {
  listPorts(filter: NeutronFilter): Promise<NeutronPort[]>;
  /** Undefined when the port does not exist (404). */
  getPort(id: string): Promise<NeutronPort | undefined>;
  updatePort(id: string, changes: Record<string, unknown>): Promise<NeutronPort>;
  getNetwork(id: string): Promise<NeutronNetwork>;
  getSubnet(id: string): Promise<NeutronSubnet>;
  listRouters(filter: NeutronFilter): Promise<NeutronRouter[]>;
}

export class NeutronHttpError extends Error {
  override readonly name = 'NeutronHttpError';
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The shared Neutron client (`../neutron-client.ts`: Keystone or noauth, counted calls) as the
 * agent's narrow interface. Tag
 * filters go comma-joined (`tags=a,b`: all of them), the form every Neutron accepts.
 */
export function fromNeutronClient(client: NeutronClient): NodeAgentNeutron {
  const flat = (filter: NeutronFilter): Query =>
    Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, typeof v === 'string' ? v : v.join(',')]));
  const must = <T>(what: string, value: T | null): T => {
    if (value === null) throw new NeutronHttpError(404, 'NotFound', `${what} not found`);
    return value;
  };
  return {
    listPorts: (filter) => client.list<NeutronPort>('ports', flat(filter)),
    getPort: async (id) => (await client.show<NeutronPort>('ports', id)) ?? undefined,
    updatePort: (id, changes) => client.update<NeutronPort>('ports', id, changes),
    getNetwork: async (id) => must(`network ${id}`, await client.show<NeutronNetwork>('networks', id)),
    getSubnet: async (id) => must(`subnet ${id}`, await client.show<NeutronSubnet>('subnets', id)),
    listRouters: (filter) => client.list<NeutronRouter>('routers', flat(filter)),
  };
}

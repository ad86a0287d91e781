/**
 * What the node agent needs from Neutron, as a narrow interface: find this node's port by its
 * owner tags, read it with its network and subnets, set `binding:host_id`, and see the operator's
 * router (link-router) and the other controllers' ports (probe targets). Any Neutron client can be
 * adapted to it (`fromNeutronClient` wraps the core's shared client); the agent itself never
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

function query(filter: NeutronFilter): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter))
    params.set(key, typeof value === 'string' ? value : value.join(','));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * A minimal Neutron client over HTTP with fixed headers (noauth: none, or `X-Project-Id`/`X-Roles`;
 * Keystone: `X-Auth-Token`). For the node agent on its own; the operator's client (with Keystone
 * password auth and call counting) is adapted with `fromNeutronClient` where it is at hand.
 */
export function httpNeutron(baseUrl: string, headers: () => Record<string, string> = () => ({})): NodeAgentNeutron {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v2\.0$/, '');
  async function call<T>(method: string, path: string, body?: unknown): Promise<T | undefined> {
    const response = await fetch(`${root}/v2.0${path}`, {
      method,
      headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...headers() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status === 404 && method === 'GET') return undefined;
    if (!response.ok) {
      let type = 'HTTPError';
      let message = text;
      try {
        const error = (JSON.parse(text) as { NeutronError?: { type: string; message: string } }).NeutronError;
        if (error) ({ type, message } = error);
      } catch {
        // not JSON: keep the text
      }
      throw new NeutronHttpError(response.status, type, `${method} ${path}: ${response.status} ${message}`);
    }
    return (text ? JSON.parse(text) : {}) as T;
  }
  const must = async <T>(what: string, value: Promise<T | undefined>): Promise<T> => {
    const found = await value;
    if (found === undefined) throw new NeutronHttpError(404, 'NotFound', `${what} not found`);
    return found;
  };
  return {
    listPorts: async (filter) =>
      (await must('ports', call<{ ports: NeutronPort[] }>('GET', `/ports${query(filter)}`))).ports,
    getPort: async (id) => (await call<{ port: NeutronPort }>('GET', `/ports/${id}`))?.port,
    updatePort: async (id, changes) =>
      (await must(`port ${id}`, call<{ port: NeutronPort }>('PUT', `/ports/${id}`, { port: changes }))).port,
    getNetwork: async (id) =>
      (await must(`network ${id}`, call<{ network: NeutronNetwork }>('GET', `/networks/${id}`))).network,
    getSubnet: async (id) =>
      (await must(`subnet ${id}`, call<{ subnet: NeutronSubnet }>('GET', `/subnets/${id}`))).subnet,
    listRouters: async (filter) =>
      (await must('routers', call<{ routers: NeutronRouter[] }>('GET', `/routers${query(filter)}`))).routers,
  };
}

/**
 * The core's client (Keystone or noauth, counted calls) as the agent's narrow interface. Tag
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

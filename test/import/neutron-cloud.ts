/**
 * A small cloud with every resource kind `octonet import` carries, built through a Neutron API
 * (the real Neutron Zed here), and the API's view of it read back for a field-by-field comparison.
 */
import type { Json } from '../fixtures/json.js';

export const PROJECT_A = 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1';
export const PROJECT_B = 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2';

type Obj = Record<string, Json>;

async function call(base: string, method: string, path: string, body?: unknown): Promise<Obj> {
  const response = await fetch(`${base}/v2.0${path}`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as Obj;
}

async function create(base: string, path: string, kind: string, body: Obj): Promise<Obj> {
  return (await call(base, 'POST', path, { [kind]: body }))[kind] as Obj;
}

/** Builds the cloud as admin, for two projects; returns nothing: the comparison reads everything back. */
export async function buildCloud(base: string): Promise<void> {
  const scope = await create(base, '/address-scopes', 'address_scope', {
    name: 'scope4',
    ip_version: 4,
    project_id: PROJECT_A,
  });
  const pool = await create(base, '/subnetpools', 'subnetpool', {
    name: 'pool4',
    prefixes: ['10.200.0.0/16'],
    default_prefixlen: 24,
    address_scope_id: scope.id,
    project_id: PROJECT_A,
    description: 'the pool',
  });
  const ext = await create(base, '/networks', 'network', {
    name: 'public',
    'router:external': true,
    'provider:network_type': 'flat',
    'provider:physical_network': 'physnet1',
  });
  const extSubnet = await create(base, '/subnets', 'subnet', {
    network_id: ext.id,
    cidr: '198.18.0.0/24',
    ip_version: 4,
    enable_dhcp: false,
    name: 'public-v4',
  });
  const net = await create(base, '/networks', 'network', {
    name: 'net-a',
    description: 'project A network',
    project_id: PROJECT_A,
    dns_domain: 'a.example.org.',
  });
  await call(base, 'PUT', `/networks/${String(net.id)}/tags`, { tags: ['blue', 'prod'] });
  const subnet = await create(base, '/subnets', 'subnet', {
    network_id: net.id,
    project_id: PROJECT_A,
    cidr: '10.10.0.0/24',
    ip_version: 4,
    name: 'a-v4',
    allocation_pools: [{ start: '10.10.0.10', end: '10.10.0.99' }],
    dns_nameservers: ['192.0.2.53', '192.0.2.54'],
    host_routes: [{ destination: '192.168.9.0/24', nexthop: '10.10.0.254' }],
  });
  await create(base, '/subnets', 'subnet', {
    network_id: net.id,
    project_id: PROJECT_A,
    cidr: 'fd00:10::/64',
    ip_version: 6,
    name: 'a-v6',
    ipv6_ra_mode: 'slaac',
    ipv6_address_mode: 'slaac',
  });
  const pooled = await create(base, '/networks', 'network', { name: 'net-pooled', project_id: PROJECT_A });
  await create(base, '/subnets', 'subnet', {
    network_id: pooled.id,
    project_id: PROJECT_A,
    subnetpool_id: pool.id,
    ip_version: 4,
    name: 'a-from-pool',
  });
  const vlan = await create(base, '/networks', 'network', {
    name: 'vlan-b',
    project_id: PROJECT_B,
    'provider:network_type': 'vlan',
    'provider:physical_network': 'physnet1',
    'provider:segmentation_id': 121,
    port_security_enabled: false,
  });
  await create(base, '/subnets', 'subnet', {
    network_id: vlan.id,
    project_id: PROJECT_B,
    cidr: '10.20.0.0/24',
    ip_version: 4,
    name: 'b-v4',
  });
  await create(base, '/rbac-policies', 'rbac_policy', {
    object_type: 'network',
    object_id: net.id,
    action: 'access_as_shared',
    target_tenant: PROJECT_B,
    project_id: PROJECT_A,
  });
  const sg = await create(base, '/security-groups', 'security_group', {
    name: 'web',
    description: 'web servers',
    project_id: PROJECT_A,
  });
  await create(base, '/security-group-rules', 'security_group_rule', {
    security_group_id: sg.id,
    direction: 'ingress',
    protocol: 'tcp',
    port_range_min: 22,
    port_range_max: 22,
    remote_ip_prefix: '0.0.0.0/0',
    project_id: PROJECT_A,
    description: 'ssh',
  });
  await create(base, '/security-group-rules', 'security_group_rule', {
    security_group_id: sg.id,
    direction: 'ingress',
    ethertype: 'IPv6',
    remote_group_id: sg.id,
    project_id: PROJECT_A,
  });
  const qos = await create(base, '/qos/policies', 'policy', { name: 'slow', project_id: PROJECT_A });
  await create(base, `/qos/policies/${String(qos.id)}/bandwidth_limit_rules`, 'bandwidth_limit_rule', {
    max_kbps: 10000,
    max_burst_kbps: 1000,
  });
  await create(base, `/qos/policies/${String(qos.id)}/dscp_marking_rules`, 'dscp_marking_rule', { dscp_mark: 26 });
  // Shared with one project: carried as an RBAC entry of its own (its id unchanged).
  await create(base, '/rbac-policies', 'rbac_policy', {
    object_type: 'qos_policy',
    object_id: qos.id,
    action: 'access_as_shared',
    target_tenant: PROJECT_B,
    project_id: PROJECT_A,
  });
  const vm = await create(base, '/ports', 'port', {
    network_id: net.id,
    project_id: PROJECT_A,
    name: 'vm-1',
    fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.10.0.20' }],
    allowed_address_pairs: [{ ip_address: '10.10.0.250' }],
    extra_dhcp_opts: [{ opt_name: 'domain-search', opt_value: 'a.example.org' }],
    security_groups: [sg.id],
    device_owner: 'compute:nova',
    device_id: '11111111-2222-3333-4444-555555555555',
    'binding:host_id': 'host-1',
    dns_name: 'vm-1',
    qos_policy_id: qos.id,
  });
  await call(base, 'PUT', `/ports/${String(vm.id)}/tags`, { tags: ['web'] });
  await create(base, '/ports', 'port', { network_id: vlan.id, project_id: PROJECT_B, name: 'b-port' });
  const router = await create(base, '/routers', 'router', {
    name: 'r-a',
    project_id: PROJECT_A,
    external_gateway_info: { network_id: ext.id, enable_snat: true },
  });
  await call(base, 'PUT', `/routers/${String(router.id)}/add_router_interface`, { subnet_id: subnet.id });
  await call(base, 'PUT', `/routers/${String(router.id)}`, {
    router: { routes: [{ destination: '172.16.0.0/24', nexthop: '10.10.0.30' }] },
  });
  await create(base, '/floatingips', 'floatingip', {
    floating_network_id: ext.id,
    project_id: PROJECT_A,
    port_id: vm.id,
    description: 'vm-1 public',
  });
  await create(base, '/floatingips', 'floatingip', { floating_network_id: ext.id, project_id: PROJECT_B });
  await call(base, 'PUT', `/quotas/${PROJECT_A}`, { quota: { network: 20, port: 200 } });
  void extSubnet;
}

/** Collections the comparison reads, with the key of their list. */
export const COLLECTIONS: readonly [path: string, key: string][] = [
  ['/networks', 'networks'],
  ['/subnets', 'subnets'],
  ['/ports', 'ports'],
  ['/security-groups', 'security_groups'],
  ['/security-group-rules', 'security_group_rules'],
  ['/routers', 'routers'],
  ['/floatingips', 'floatingips'],
  ['/subnetpools', 'subnetpools'],
  ['/address-scopes', 'address_scopes'],
  ['/rbac-policies', 'rbac_policies'],
  ['/qos/policies', 'policies'],
];

/** Every collection's objects by id, and project A's quotas, as admin sees them. */
export async function readCloud(base: string): Promise<Record<string, Map<string, Obj>>> {
  const result: Record<string, Map<string, Obj>> = {};
  for (const [path, key] of COLLECTIONS) {
    const list = (await call(base, 'GET', path))[key] as Obj[];
    result[key] = new Map(list.map((o) => [String(o.id), o]));
  }
  result.quotas = new Map([[PROJECT_A, (await call(base, 'GET', `/quotas/${PROJECT_A}`)).quota as Obj]]);
  return result;
}

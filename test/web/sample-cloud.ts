/**
 * A small cloud built through the API for the page's tests: an external network, a router with
 * its gateway there and an interface on a tenant network, two VMs (one with a floating IP), a load
 * balancer VIP with two amphorae, and a second network with enough ports to be grouped.
 */
import assert from 'node:assert/strict';
import type { Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

export interface SampleCloud {
  external: Json;
  network: Json;
  busyNetwork: Json;
  router: Json;
  vm1: Json;
  vm2: Json;
  vip: Json;
  amphora1: Json;
  amphora2: Json;
  floatingIp: Json;
  /** Ports on the busy network (more than a group shows unexpanded). */
  busyPorts: Json[];
}

async function created(client: Client, path: string, body: unknown): Promise<Json> {
  const r = await client.post(path, body);
  assert.equal(r.status, 201, `${path}: ${r.text}`);
  return Object.values(r.body as Record<string, Json>)[0]!;
}

/** Builds the sample as `admin`, the tenant resources in `project` (the noauth default when omitted). */
export async function buildSampleCloud(admin: Client, project?: string, busyPortCount = 20): Promise<SampleCloud> {
  const owned = project ? { project_id: project } : {};
  const external = await created(admin, '/v2.0/networks', {
    network: { name: 'public', 'router:external': true },
  });
  await created(admin, '/v2.0/subnets', {
    subnet: { network_id: external.id, cidr: '203.0.113.0/24', ip_version: 4, name: 'public-v4' },
  });
  const network = await created(admin, '/v2.0/networks', { network: { name: 'web-net', ...owned } });
  const subnet = await created(admin, '/v2.0/subnets', {
    subnet: { network_id: network.id, cidr: '10.20.0.0/24', ip_version: 4, name: 'web-v4', ...owned },
  });
  const router = await created(admin, '/v2.0/routers', {
    router: { name: 'edge', external_gateway_info: { network_id: external.id }, ...owned },
  });
  const added = await admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
  assert.equal(added.status, 200, added.text);
  const port = (name: string, extra: Json = {}) =>
    created(admin, '/v2.0/ports', {
      port: {
        network_id: network.id,
        name,
        device_owner: 'compute:nova',
        'binding:host_id': 'node1',
        ...owned,
        ...extra,
      },
    });
  const vm1 = await port('vm1');
  const vm2 = await port('vm2', { 'binding:host_id': 'node2' });
  const vip = await created(admin, '/v2.0/ports', {
    port: { network_id: network.id, name: 'octavia-lb-vip', device_owner: 'Octavia', ...owned },
  });
  const pairs = [{ ip_address: vip.fixed_ips[0].ip_address }];
  const amphora1 = await port('amphora1', { allowed_address_pairs: pairs });
  const amphora2 = await port('amphora2', { allowed_address_pairs: pairs, 'binding:host_id': 'node2' });
  const floatingIp = await created(admin, '/v2.0/floatingips', {
    floatingip: { floating_network_id: external.id, port_id: vm1.id, ...owned },
  });
  const busyNetwork = await created(admin, '/v2.0/networks', { network: { name: 'busy-net', ...owned } });
  await created(admin, '/v2.0/subnets', {
    subnet: { network_id: busyNetwork.id, cidr: '10.30.0.0/24', ip_version: 4, ...owned },
  });
  const busy = await admin.post('/v2.0/ports', {
    ports: Array.from({ length: busyPortCount }, (_, i) => ({
      network_id: busyNetwork.id,
      name: `worker-${i}`,
      device_owner: 'compute:nova',
      ...owned,
    })),
  });
  assert.equal(busy.status, 201, busy.text);
  return {
    external,
    network,
    busyNetwork,
    router,
    vm1,
    vm2,
    vip,
    amphora1,
    amphora2,
    floatingIp,
    busyPorts: busy.body.ports,
  };
}

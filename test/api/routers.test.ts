/**
 * Routers and floating IPs over HTTP, on both databases: gateways (SNAT, fixed addresses, the
 * admin-only attributes), interfaces by subnet and by port with Neutron's answers and errors,
 * extra routes, floating IP association (the router found, port details, one floating IP per fixed
 * address), the protections (in-use interfaces, gateways, router-owned ports) and that a failed
 * request leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

const ROUTER_KEYS = [
  'id',
  'name',
  'tenant_id',
  'admin_state_up',
  'status',
  'external_gateway_info',
  'description',
  'availability_zones',
  'availability_zone_hints',
  'routes',
  'tags',
  'created_at',
  'updated_at',
  'revision_number',
  'project_id',
];

const FIP_KEYS = [
  'id',
  'tenant_id',
  'floating_ip_address',
  'floating_network_id',
  'router_id',
  'port_id',
  'fixed_ip_address',
  'status',
  'project_id',
  'description',
  'port_details',
  'dns_domain',
  'dns_name',
  'tags',
  'created_at',
  'updated_at',
  'revision_number',
];

for (const backend of BACKENDS) {
  describe(`routers and floating IPs (${backend})`, () => {
    const api = useApi(backend);
    const A = newProjectId();
    const B = newProjectId();
    let a: Client;
    let b: Client;
    let ext: Json;
    let extSubnet: Json;
    let net: Json;
    let subnet: Json;
    let router: Json;
    let vm: Json;

    before(async () => {
      a = api.as({ project: A });
      b = api.as({ project: B });
      ext = (
        await api.admin.post('/v2.0/networks', {
          network: {
            name: 'public',
            'router:external': true,
            'provider:network_type': 'flat',
            'provider:physical_network': 'physnet1',
          },
        })
      ).body.network;
      extSubnet = (
        await api.admin.post('/v2.0/subnets', {
          // Addresses from .200 up are outside the pool: the tests choose them, no allocation takes them.
          subnet: {
            network_id: ext.id,
            cidr: '203.0.113.0/24',
            ip_version: 4,
            gateway_ip: '203.0.113.1',
            allocation_pools: [{ start: '203.0.113.2', end: '203.0.113.150' }],
          },
        })
      ).body.subnet;
      net = (await a.post('/v2.0/networks', { network: { name: 'private' } })).body.network;
      subnet = (await a.post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.20.0.0/24', ip_version: 4 } }))
        .body.subnet;
      vm = (await a.post('/v2.0/ports', { port: { network_id: net.id, device_owner: 'compute:nova' } })).body.port;
    });

    const subnetOn = async (client: Client, cidr: string, extra: Record<string, unknown> = {}) => {
      const n = (await client.post('/v2.0/networks', { network: { name: cidr } })).body.network;
      const r = await client.post('/v2.0/subnets', { subnet: { network_id: n.id, cidr, ip_version: 4, ...extra } });
      assert.equal(r.status, 201, r.text);
      return r.body.subnet;
    };

    it('a member creates a router with a gateway: SNAT on, an address of the external subnet', async () => {
      const r = await a.post('/v2.0/routers', {
        router: { name: 'r1', external_gateway_info: { network_id: ext.id } },
      });
      assert.equal(r.status, 201, r.text);
      router = r.body.router;
      assert.deepEqual(Object.keys(router), ROUTER_KEYS);
      assert.equal(router.status, 'ACTIVE');
      assert.equal(router.project_id, A);
      assert.equal(router.external_gateway_info.network_id, ext.id);
      assert.equal(router.external_gateway_info.enable_snat, true);
      const [ip] = router.external_gateway_info.external_fixed_ips;
      assert.equal(ip.subnet_id, extSubnet.id);
      assert.match(ip.ip_address, /^203\.0\.113\.\d+$/);
      // The gateway port belongs to no project: the member does not see it, an admin does.
      const mine = await a.get(`/v2.0/ports?device_id=${router.id}`);
      assert.deepEqual(mine.body.ports, []);
      const all = (await api.admin.get(`/v2.0/ports?device_id=${router.id}`)).body.ports;
      assert.equal(all.length, 1);
      assert.equal(all[0].device_owner, 'network:router_gateway');
      assert.equal(all[0].project_id, '');
      assert.equal(all[0].fixed_ips[0].ip_address, ip.ip_address);
    });

    it('SNAT and fixed gateway addresses are an admin’s to set, with Neutron’s rule tree in the 403', async () => {
      const r = await a.put(`/v2.0/routers/${router.id}`, {
        router: { external_gateway_info: { network_id: ext.id, enable_snat: false } },
      });
      assert.equal(r.status, 403);
      assert.deepEqual(r.body.NeutronError, {
        type: 'PolicyNotAuthorized',
        message:
          '(rule:update_router and (rule:update_router:external_gateway_info and (rule:update_router:external_gateway_info:network_id and rule:update_router:external_gateway_info:enable_snat))) is disallowed by policy',
        detail: '',
      });
      const admin = await api.admin.post('/v2.0/routers', {
        router: {
          project_id: A,
          name: 'fixed',
          external_gateway_info: {
            network_id: ext.id,
            enable_snat: false,
            external_fixed_ips: [{ ip_address: '203.0.113.200' }],
          },
        },
      });
      assert.equal(admin.status, 201, admin.text);
      assert.deepEqual(admin.body.router.external_gateway_info, {
        network_id: ext.id,
        external_fixed_ips: [{ subnet_id: extSubnet.id, ip_address: '203.0.113.200' }],
        enable_snat: false,
      });
      const moved = await api.admin.put(`/v2.0/routers/${admin.body.router.id}`, {
        router: {
          external_gateway_info: { network_id: ext.id, external_fixed_ips: [{ ip_address: '203.0.113.201' }] },
        },
      });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.router.external_gateway_info.external_fixed_ips[0].ip_address, '203.0.113.201');
      assert.equal(moved.body.router.external_gateway_info.enable_snat, true, 'not given: the default again');
      const cleared = await api.admin.put(`/v2.0/routers/${admin.body.router.id}`, {
        router: { external_gateway_info: {} },
      });
      assert.equal(cleared.body.router.external_gateway_info, null);
      assert.deepEqual((await api.admin.get(`/v2.0/ports?device_id=${admin.body.router.id}`)).body.ports, []);
      assert.equal((await api.admin.delete(`/v2.0/routers/${admin.body.router.id}`)).status, 204);
    });

    it('a gateway on a network that is not external is refused and leaves no router and no port', async () => {
      const before = (await api.admin.get('/v2.0/ports')).body.ports.length;
      const r = await a.post('/v2.0/routers', {
        router: { name: 'bad', external_gateway_info: { network_id: net.id } },
      });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body.NeutronError, {
        type: 'BadRequest',
        message: `Bad router request: Network ${net.id} is not an external network.`,
        detail: '',
      });
      assert.deepEqual(
        (await a.get('/v2.0/routers?name=bad')).body.routers,
        [],
        'the router row went with the transaction',
      );
      assert.equal((await api.admin.get('/v2.0/ports')).body.ports.length, before);
    });

    it('add_router_interface by subnet answers Neutron’s body and puts a port on the gateway address', async () => {
      const r = await a.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body), [
        'id',
        'tenant_id',
        'project_id',
        'port_id',
        'network_id',
        'subnet_id',
        'subnet_ids',
      ]);
      assert.equal(r.body.id, router.id);
      assert.equal(r.body.network_id, net.id);
      assert.deepEqual(r.body.subnet_ids, [subnet.id]);
      const port = (await a.get(`/v2.0/ports/${r.body.port_id}`)).body.port;
      assert.equal(port.device_owner, 'network:router_interface');
      assert.equal(port.device_id, router.id);
      assert.equal(port.project_id, A);
      assert.deepEqual(port.fixed_ips, [{ subnet_id: subnet.id, ip_address: subnet.gateway_ip }]);
      const after = (await a.get(`/v2.0/routers/${router.id}`)).body.router;
      assert.ok(after.revision_number > router.revision_number);
    });

    it('refuses what Neutron refuses on add_router_interface', async () => {
      const add = (body: unknown) => a.put(`/v2.0/routers/${router.id}/add_router_interface`, body);
      const bad = async (body: unknown, status: number, type: string, message: string) => {
        const r = await add(body);
        assert.equal(r.status, status, r.text);
        assert.equal(r.body.NeutronError.type, type);
        assert.equal(r.body.NeutronError.message, message);
      };
      await bad({}, 400, 'BadRequest', 'Bad router request: Either subnet_id or port_id must be specified.');
      await bad(
        { subnet_id: subnet.id, port_id: vm.id },
        400,
        'BadRequest',
        'Bad router request: Cannot specify both subnet-id and port-id.',
      );
      await bad({ subnet_id: 'nope' }, 400, 'BadRequest', "Bad router request: 'nope' is not a valid UUID.");
      await bad(
        { subnet_id: subnet.id },
        400,
        'BadRequest',
        `Bad router request: Router already has a port on subnet ${subnet.id}.`,
      );
      const overlapping = await subnetOn(a, '10.20.0.128/25');
      await bad(
        { subnet_id: overlapping.id },
        400,
        'BadRequest',
        `Bad router request: Cidr 10.20.0.128/25 of subnet ${overlapping.id} overlaps with cidr 10.20.0.0/24 of subnet ${subnet.id}.`,
      );
      const noGateway = await subnetOn(a, '10.22.0.0/24', { gateway_ip: null });
      await bad(
        { subnet_id: noGateway.id },
        400,
        'BadRequest',
        'Bad router request: Subnet for router interface must have a gateway IP.',
      );
      const used = await a.post('/v2.0/ports', { port: { network_id: net.id, device_id: 'some-vm' } });
      const inUse = await add({ port_id: used.body.port.id });
      assert.equal(inUse.status, 409);
      assert.equal(inUse.body.NeutronError.type, 'PortInUse');
      const foreign = await subnetOn(b, '10.99.0.0/24');
      assert.equal((await add({ subnet_id: foreign.id })).status, 404, 'another project’s subnet is not there');
      assert.equal(
        (await b.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: foreign.id })).status,
        404,
      );
    });

    it('add_router_interface by port takes a free port and makes it the router’s', async () => {
      const other = await subnetOn(a, '10.30.0.0/24');
      const port = (
        await a.post('/v2.0/ports', {
          port: { network_id: other.network_id, fixed_ips: [{ subnet_id: other.id, ip_address: '10.30.0.5' }] },
        })
      ).body.port;
      const r = await a.put(`/v2.0/routers/${router.id}/add_router_interface`, { port_id: port.id });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.port_id, port.id);
      assert.deepEqual(r.body.subnet_ids, [other.id]);
      const now = (await a.get(`/v2.0/ports/${port.id}`)).body.port;
      assert.equal(now.device_owner, 'network:router_interface');
      assert.equal(now.device_id, router.id);
      const del = await a.delete(`/v2.0/ports/${port.id}`);
      assert.equal(del.status, 409);
      assert.deepEqual(del.body.NeutronError, {
        type: 'ServicePortInUse',
        message: `Port ${port.id} cannot be deleted directly via the port API: has device owner network:router_interface.`,
        detail: '',
      });
      const mismatch = await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, {
        port_id: port.id,
        subnet_id: subnet.id,
      });
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.body.NeutronError.type, 'SubnetMismatchForPort');
      const removed = await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, { port_id: port.id });
      assert.equal(removed.status, 200, removed.text);
      assert.equal((await a.get(`/v2.0/ports/${port.id}`)).status, 404, 'the router deletes the port it took');
      const again = await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, { port_id: port.id });
      assert.equal(again.status, 404);
      assert.equal(again.body.NeutronError.type, 'RouterInterfaceNotFound');
    });

    it('a second IPv6 subnet of a network joins the router’s existing IPv6 port', async () => {
      const v6net = (await a.post('/v2.0/networks', { network: { name: 'v6' } })).body.network;
      const mk = (cidr: string) =>
        a.post('/v2.0/subnets', {
          subnet: { network_id: v6net.id, cidr, ip_version: 6, ipv6_ra_mode: 'slaac', ipv6_address_mode: 'slaac' },
        });
      const s1 = (await mk('2001:db8:1::/64')).body.subnet;
      const s2 = (await mk('2001:db8:2::/64')).body.subnet;
      const r1 = await a.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: s1.id });
      const r2 = await a.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: s2.id });
      assert.equal(r2.status, 200, r2.text);
      assert.equal(r2.body.port_id, r1.body.port_id);
      const port = (await a.get(`/v2.0/ports/${r1.body.port_id}`)).body.port;
      assert.deepEqual(port.fixed_ips.map((f: Json) => f.ip_address).sort(), ['2001:db8:1::', '2001:db8:2::']);
      const off = await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, { subnet_id: s2.id });
      assert.equal(off.status, 200, off.text);
      assert.deepEqual(
        (await a.get(`/v2.0/ports/${r1.body.port_id}`)).body.port.fixed_ips.map((f: Json) => f.subnet_id),
        [s1.id],
      );
      assert.equal(
        (await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, { subnet_id: s1.id })).status,
        200,
      );
      assert.equal((await a.get(`/v2.0/ports/${r1.body.port_id}`)).status, 404);
    });

    let fip: Json;

    it('a floating IP is created DOWN, unassociated, from the external subnet', async () => {
      const notExternal = await a.post('/v2.0/floatingips', { floatingip: { floating_network_id: net.id } });
      assert.equal(notExternal.status, 400);
      assert.equal(
        notExternal.body.NeutronError.message,
        `Bad floatingip request: Network ${net.id} is not a valid external network.`,
      );
      const r = await a.post('/v2.0/floatingips', { floatingip: { floating_network_id: ext.id, description: 'f' } });
      assert.equal(r.status, 201, r.text);
      fip = r.body.floatingip;
      assert.deepEqual(Object.keys(fip), FIP_KEYS);
      assert.equal(fip.status, 'DOWN');
      assert.equal(fip.port_id, null);
      assert.equal(fip.router_id, null);
      assert.equal(fip.port_details, null);
      assert.equal(fip.revision_number, 0);
      assert.match(fip.floating_ip_address, /^203\.0\.113\.\d+$/);
      const [port] = (await api.admin.get(`/v2.0/ports?device_id=${fip.id}`)).body.ports;
      assert.equal(port.device_owner, 'network:floatingip');
      assert.equal(port.status, 'N/A');
      const del = await api.admin.delete(`/v2.0/ports/${port.id}`);
      assert.equal(del.status, 409, 'the address port goes with the floating IP only');
      assert.equal(del.body.NeutronError.type, 'ServicePortInUse');
    });

    it('associating finds the router, fills port_details, and allows one floating IP per fixed address', async () => {
      const r = await a.put(`/v2.0/floatingips/${fip.id}`, { floatingip: { port_id: vm.id } });
      assert.equal(r.status, 200, r.text);
      const f = r.body.floatingip;
      assert.equal(f.router_id, router.id);
      assert.equal(f.port_id, vm.id);
      assert.equal(f.fixed_ip_address, vm.fixed_ips[0].ip_address);
      assert.deepEqual(f.port_details, {
        name: vm.name,
        network_id: net.id,
        mac_address: vm.mac_address,
        admin_state_up: true,
        status: 'DOWN',
        device_id: vm.device_id,
        device_owner: 'compute:nova',
      });
      const second = await a.post('/v2.0/floatingips', { floatingip: { floating_network_id: ext.id, port_id: vm.id } });
      assert.equal(second.status, 409);
      assert.equal(second.body.NeutronError.type, 'FloatingIPPortAlreadyAssociated');
      assert.match(second.body.NeutronError.message, /as that fixed IP already has a floating IP on external network/);
      const without = await a.post('/v2.0/floatingips', {
        floatingip: { floating_network_id: ext.id, fixed_ip_address: '10.20.0.9' },
      });
      assert.equal(without.status, 400);
      assert.equal(
        without.body.NeutronError.message,
        'Bad floatingip request: fixed_ip_address cannot be specified without a port_id.',
      );
      const island = await subnetOn(a, '10.40.0.0/24');
      const lonely = (await a.post('/v2.0/ports', { port: { network_id: island.network_id } })).body.port;
      const unreachable = await a.post('/v2.0/floatingips', {
        floatingip: { floating_network_id: ext.id, port_id: lonely.id },
      });
      assert.equal(unreachable.status, 404);
      assert.deepEqual(unreachable.body.NeutronError, {
        type: 'ExternalGatewayForFloatingIPNotFound',
        message: `External network ${ext.id} is not reachable from subnet ${island.id}.  Therefore, cannot associate Port ${lonely.id} with a Floating IP.`,
        detail: '',
      });
      const described = await a.put(`/v2.0/floatingips/${fip.id}`, { floatingip: { description: 'still on vm' } });
      assert.equal(described.body.floatingip.port_id, vm.id, 'an update of something else keeps the association');
      const blank = await a.put(`/v2.0/floatingips/${fip.id}`, { floatingip: {} });
      assert.equal(blank.body.floatingip.port_id, null, 'an empty update dissociates, as in Neutron');
      assert.equal((await a.put(`/v2.0/floatingips/${fip.id}`, { floatingip: { port_id: vm.id } })).status, 200);
      assert.equal((await b.get(`/v2.0/floatingips/${fip.id}`)).status, 404, 'another project does not see it');
      assert.deepEqual((await b.get('/v2.0/floatingips')).body.floatingips, []);
    });

    it('the interface, the gateway and the router are kept while the floating IP needs them', async () => {
      const iface = await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, { subnet_id: subnet.id });
      assert.equal(iface.status, 409);
      assert.deepEqual(iface.body.NeutronError, {
        type: 'RouterInterfaceInUseByFloatingIP',
        message: `Router interface for subnet ${subnet.id} on router ${router.id} cannot be deleted, as it is required by one or more floating IPs.`,
        detail: '',
      });
      const gw = await a.put(`/v2.0/routers/${router.id}`, { router: { external_gateway_info: null } });
      assert.equal(gw.status, 409);
      assert.equal(gw.body.NeutronError.type, 'RouterExternalGatewayInUseByFloatingIp');
      const del = await a.delete(`/v2.0/routers/${router.id}`);
      assert.equal(del.status, 409);
      const ports = (await a.get(`/v2.0/ports?device_id=${router.id}&device_owner=network:router_interface`)).body
        .ports;
      assert.deepEqual(del.body.NeutronError, {
        type: 'RouterInUse',
        message: `Router ${router.id} has ports still attached: ${ports
          .map((p: Json) => p.id)
          .sort()
          .join(', ')}`,
        detail: '',
      });
    });

    it('extra routes: the nexthop must be on the router’s subnets; the atomic actions merge and remove', async () => {
      const bad = await a.put(`/v2.0/routers/${router.id}`, {
        router: { routes: [{ destination: '192.0.2.0/24', nexthop: '10.99.0.5' }] },
      });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.NeutronError, {
        type: 'InvalidRoutes',
        message:
          "Invalid format for routes: [{'destination': '192.0.2.0/24', 'nexthop': '10.99.0.5'}], the nexthop is not connected with router",
        detail: '',
      });
      const self = await a.put(`/v2.0/routers/${router.id}`, {
        router: { routes: [{ destination: '192.0.2.0/24', nexthop: subnet.gateway_ip }] },
      });
      assert.equal(self.status, 400);
      assert.match(self.body.NeutronError.message, /the nexthop is used by router$/);
      const set = await a.put(`/v2.0/routers/${router.id}`, {
        router: { routes: [{ destination: '192.0.2.0/24', nexthop: '10.20.0.50' }] },
      });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body.router.routes, [{ destination: '192.0.2.0/24', nexthop: '10.20.0.50' }]);
      const added = await a.put(`/v2.0/routers/${router.id}/add_extraroutes`, {
        router: { routes: [{ destination: '198.51.100.0/24', nexthop: '10.20.0.51' }] },
      });
      assert.equal(added.status, 200, added.text);
      assert.equal(added.body.router.routes.length, 2);
      const removed = await a.put(`/v2.0/routers/${router.id}/remove_extraroutes`, {
        router: { routes: [{ destination: '198.51.100.0/24', nexthop: '10.20.0.51' }] },
      });
      assert.deepEqual(removed.body.router.routes, [{ destination: '192.0.2.0/24', nexthop: '10.20.0.50' }]);
      const malformed = await a.put(`/v2.0/routers/${router.id}/add_extraroutes`, { routes: [] });
      assert.equal(malformed.status, 400);
    });

    it('deleting the associated port disassociates the floating IP; then everything comes apart in order', async () => {
      assert.equal((await a.delete(`/v2.0/ports/${vm.id}`)).status, 204);
      const f = (await a.get(`/v2.0/floatingips/${fip.id}`)).body.floatingip;
      assert.equal(f.port_id, null);
      assert.equal(f.router_id, null);
      assert.equal(f.fixed_ip_address, null);
      const inUse = await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, { subnet_id: subnet.id });
      assert.equal(inUse.status, 409, 'the extra route still needs the subnet');
      assert.equal(inUse.body.NeutronError.type, 'RouterInterfaceInUseByRoute');
      assert.equal((await a.put(`/v2.0/routers/${router.id}`, { router: { routes: [] } })).status, 200);
      const off = await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, { subnet_id: subnet.id });
      assert.equal(off.status, 200, off.text);
      const missing = await a.put(`/v2.0/routers/${router.id}/remove_router_interface`, { subnet_id: subnet.id });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.NeutronError.type, 'RouterInterfaceNotFoundForSubnet');
      const fipPort = (await api.admin.get(`/v2.0/ports?device_id=${fip.id}`)).body.ports[0];
      assert.equal((await a.delete(`/v2.0/floatingips/${fip.id}`)).status, 204);
      assert.equal((await api.admin.get(`/v2.0/ports/${fipPort.id}`)).status, 404, 'its port went with it');
      assert.equal((await b.delete(`/v2.0/routers/${router.id}`)).status, 404);
      const gone = await a.delete(`/v2.0/routers/${router.id}`);
      assert.equal(gone.status, 204, gone.text);
      assert.deepEqual((await api.admin.get(`/v2.0/ports?device_id=${router.id}`)).body.ports, []);
    });

    it('router and floating IP quotas hold', async () => {
      const P = newProjectId();
      const p = api.as({ project: P });
      assert.equal((await api.admin.put(`/v2.0/quotas/${P}`, { quota: { router: 1, floatingip: 1 } })).status, 200);
      assert.equal((await p.post('/v2.0/routers', { router: { name: 'one' } })).status, 201);
      const two = await p.post('/v2.0/routers', { router: { name: 'two' } });
      assert.equal(two.status, 409);
      assert.equal(two.body.NeutronError.message, "Quota exceeded for resources: ['router'].");
      assert.equal((await p.post('/v2.0/floatingips', { floatingip: { floating_network_id: ext.id } })).status, 201);
      const fip2 = await p.post('/v2.0/floatingips', { floatingip: { floating_network_id: ext.id } });
      assert.equal(fip2.status, 409);
      assert.equal(fip2.body.NeutronError.message, "Quota exceeded for resources: ['floatingip'].");
    });

    it('an external network takes its unused floating IPs with it', async () => {
      const pub = (await api.admin.post('/v2.0/networks', { network: { name: 'pub2', 'router:external': true } })).body
        .network;
      await api.admin.post('/v2.0/subnets', { subnet: { network_id: pub.id, cidr: '192.0.2.0/24', ip_version: 4 } });
      const f = (await a.post('/v2.0/floatingips', { floatingip: { floating_network_id: pub.id } })).body.floatingip;
      assert.equal((await api.admin.delete(`/v2.0/networks/${pub.id}`)).status, 204);
      assert.equal((await a.get(`/v2.0/floatingips/${f.id}`)).status, 404);
    });

    it('the L3 agent scheduler is an admin’s, and without OVN no agent hosts anything', async () => {
      const r = (await a.post('/v2.0/routers', { router: { name: 'sched' } })).body.router;
      const member = await a.get(`/v2.0/routers/${r.id}/l3-agents`);
      assert.equal(member.status, 403);
      const admin = await api.admin.get(`/v2.0/routers/${r.id}/l3-agents`);
      assert.equal(admin.status, 200);
      assert.deepEqual(admin.body, { agents: [] });
      const pin = await api.admin.post('/v2.0/agents/no-such-chassis/l3-routers', { router_id: r.id });
      assert.equal(pin.status, 404);
      assert.deepEqual(pin.body.NeutronError, {
        type: 'InvalidL3Agent',
        message: 'Agent no-such-chassis is not a L3 Agent or has been disabled',
        detail: '',
      });
      assert.equal((await api.admin.get(`/v2.0/routers/${newProjectId()}/l3-agents`)).status, 404);
    });
  });
}

/**
 * octonet driving a real lab: everything here goes through the Neutron API (networks, subnets,
 * ports bound to nodes, security groups) and the OVN driver; the lab only plugs VMs the way Nova
 * would. Real packets: DHCP, ping, TCP and UDP across the tunnel, a security group that allows
 * one TCP port and blocks another, a VLAN provider network to the outside, repair of a hand-made
 * drift, and port status following plug and unplug.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import {
  assertPing,
  assertTcpTransfer,
  assertUdpDatagram,
  check,
  DEADLINE_MS,
  notRoot,
  pollUntil,
  useLab,
} from './lab-fixture.js';
import type { Json } from '../fixtures/json.js';

describe('octonet on the lab: Neutron networks carry real packets', { skip: notRoot }, () => {
  const { lab, scratch } = useLab({ name: 'oct-dp', nodes: 2 });
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb } }) });
  const vm = (name: string) => lab().vmCommand(name, []);
  let net: Json;
  let group: Json;
  const ports: Record<string, Json> = {};

  const createPort = async (name: string, node: string, extra: Record<string, unknown> = {}) => {
    const r = await api.admin.post('/v2.0/ports', {
      port: { network_id: net.id, name, 'binding:host_id': node, device_owner: 'compute:nova', ...extra },
    });
    assert.equal(r.status, 201, r.text);
    return r.body.port;
  };
  const status = async (portId: string) => (await api.admin.get(`/v2.0/ports/${portId}`)).body.port.status;
  const rule = async (protocol: string, min?: number) => {
    const r = await api.admin.post('/v2.0/security-group-rules', {
      security_group_rule: {
        security_group_id: group.id,
        direction: 'ingress',
        protocol,
        ...(min === undefined ? {} : { port_range_min: min, port_range_max: min }),
      },
    });
    assert.equal(r.status, 201, r.text);
  };

  before(async () => {
    net = (await api.admin.post('/v2.0/networks', { network: { name: 'tenant' } })).body.network;
    const subnet = (
      await api.admin.post('/v2.0/subnets', {
        subnet: {
          network_id: net.id,
          cidr: '10.11.0.0/24',
          ip_version: 4,
          dns_nameservers: ['10.11.0.53'],
          host_routes: [{ destination: '10.99.0.0/16', nexthop: '10.11.0.254' }],
        },
      })
    ).body.subnet;
    assert.ok(subnet.id);
    group = (await api.admin.post('/v2.0/security-groups', { security_group: { name: 'ssh-only' } })).body
      .security_group;
    await rule('icmp');
    await rule('tcp', 22);
    await rule('udp', 5555);
    ports.a = await createPort('a', 'node1', { security_groups: [group.id] });
    ports.b = await createPort('b', 'node2', { security_groups: [group.id] });
    assert.equal(ports.a['binding:vif_type'], 'ovs', 'node1 is a live chassis');
    await lab().createVm({ node: 'node1', port: ports.a.id, name: 'a' });
    await lab().createVm({ node: 'node2', port: ports.b.id, name: 'b' });
  });

  it('DHCP hands each VM its Neutron address, the gateway, the MTU and the host routes', async () => {
    const link = JSON.parse(await check(lab(), [...vm('a'), 'ip', '-j', 'addr', 'show', 'dev', 'eth0']))[0];
    assert.equal(link.address, ports.a.mac_address);
    assert.equal(link.mtu, net.mtu);
    const inet = link.addr_info.filter((a: { family: string }) => a.family === 'inet');
    assert.deepEqual(
      inet.map((a: { local: string; prefixlen: number }) => `${a.local}/${a.prefixlen}`),
      [`${ports.a.fixed_ips[0].ip_address}/24`],
    );
    const routes = await check(lab(), [...vm('a'), 'ip', '-4', 'route']);
    assert.match(routes, /^default via 10\.11\.0\.1 /m);
    assert.match(routes, /^10\.99\.0\.0\/16 via 10\.11\.0\.254 /m);
  });

  it('plugged ports go ACTIVE', async () => {
    await pollUntil(async () => (await status(ports.a.id)) === 'ACTIVE', 'port a ACTIVE');
    await pollUntil(async () => (await status(ports.b.id)) === 'ACTIVE', 'port b ACTIVE');
  });

  it('VMs on two nodes reach each other: ping, TCP and UDP both ways', async () => {
    const ipA = ports.a.fixed_ips[0].ip_address;
    const ipB = ports.b.fixed_ips[0].ip_address;
    await assertPing(lab(), vm('a'), ipB);
    await assertPing(lab(), vm('b'), ipA);
    await assertTcpTransfer(lab(), scratch(), vm('a'), vm('b'), ipB, 256 * 1024, 22);
    await assertTcpTransfer(lab(), scratch(), vm('b'), vm('a'), ipA, 256 * 1024, 22);
    await assertUdpDatagram(lab(), scratch(), vm('a'), vm('b'), ipB, 5555);
    await assertUdpDatagram(lab(), scratch(), vm('b'), vm('a'), ipA, 5555);
  });

  it('the security group allows TCP 22 and blocks TCP 80, until a rule allows it', async () => {
    const ipB = ports.b.fixed_ips[0].ip_address;
    const connect80 = [...vm('a'), 'socat', '-u', 'OPEN:/dev/null', `TCP4:${ipB}:80,connect-timeout=2`];
    const listener = lab().exec([...vm('b'), 'socat', '-u', 'TCP4-LISTEN:80,reuseaddr,fork', 'OPEN:/dev/null'], {
      timeoutMs: DEADLINE_MS * 2,
    });
    try {
      await pollUntil(
        async () => (await lab().exec([...vm('b'), 'ss', '-Hltn', 'sport = :80'])).stdout.trim().length > 0,
        'a listener on port 80',
      );
      const blocked = await lab().exec(connect80);
      assert.notEqual(blocked.code, 0, 'port 80 is not allowed by the group');
      await rule('tcp', 80);
      await pollUntil(async () => (await lab().exec(connect80)).code === 0, 'port 80 open after the rule');
    } finally {
      await lab().exec([...vm('b'), 'pkill', '-f', 'TCP4-LISTEN:80']);
      await listener;
    }
  });

  it("a port's LSP deleted by hand is repaired and traffic comes back without an API call", async () => {
    await lab().nbctl('lsp-del', ports.b.id);
    await pollUntil(async () => {
      const r = await lab().exec([...vm('a'), 'ping', '-c', '1', '-W', '1', ports.b.fixed_ips[0].ip_address]);
      return r.code === 0;
    }, 'ping after the repair');
  });

  it('a VLAN provider network reaches the outside namespace on its VLAN', async () => {
    const vlan = (
      await api.admin.post('/v2.0/networks', {
        network: {
          name: 'provider-vlan',
          'provider:network_type': 'vlan',
          'provider:physical_network': 'physnet1',
          'provider:segmentation_id': 100,
        },
      })
    ).body.network;
    await api.admin.post('/v2.0/subnets', {
      subnet: {
        network_id: vlan.id,
        cidr: '10.100.0.0/24',
        ip_version: 4,
        gateway_ip: null,
        allocation_pools: [{ start: '10.100.0.10', end: '10.100.0.50' }],
      },
    });
    const port = (
      await api.admin.post('/v2.0/ports', {
        port: { network_id: vlan.id, name: 'v', 'binding:host_id': 'node1', device_owner: 'compute:nova' },
      })
    ).body.port;
    await lab().addOutsideVlan(100, '10.100.0.100/24');
    await lab().createVm({ node: 'node1', port: port.id, name: 'v' });
    const outside = lab().outsideCommand([]);
    await assertPing(lab(), vm('v'), '10.100.0.100');
    await assertTcpTransfer(lab(), scratch(), vm('v'), outside, '10.100.0.100', 64 * 1024, 9100);
  });

  it('an unplugged port goes DOWN', async () => {
    await lab().deleteVm('b');
    await pollUntil(async () => (await status(ports.b.id)) === 'DOWN', 'port b DOWN');
  });
});

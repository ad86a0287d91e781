/**
 * BGP with distributed floating IPs and a load balancer's VIP, with real packets and real VRRP: the
 * VIP port (device_owner `Octavia`, a fixed IP on the tenant subnet, unbound) is in the allowed
 * address pairs of two amphora ports on node1 and node2, whose VMs run keepalived as Octavia's
 * template does; a floating IP is on the VIP. OVN binds the VIP's virtual port on the chassis of the
 * amphora holding the address, so the floating IP's /32 is announced from that node (next hop that
 * node) and the core reaches the VIP through it. Killing the master keepalived (an amphora's death)
 * moves the VIP, the virtual port's binding, and so the announcement, to the other amphora's node.
 *
 * Lab `bgpv`: 3 nodes, amphorae on node1 and node2, gateways on node2 and node3, `--bgp`.
 * Nothing here waits for a fixed time: every step waits for the condition it needs.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Keepalived, VrrpOptions } from '../../src/lab/index.js';
import type { Json } from '../fixtures/json.js';
import { check, created, notRoot, pollUntil } from './lab-fixture.js';
import { coreReaches, ribPaths, useBgpWorld } from './bgp-fixture.js';

describe(
  'octonet on the lab: BGP, distributed floating IP on a VIP that keepalived fails over',
  { skip: notRoot },
  () => {
    const world = useBgpWorld('bgpv', { distributed: true });
    const { lab, api } = world;
    const keepalived: Record<string, Keepalived> = {};
    const post = (path: string, body: unknown) => created(api.admin, path, body);

    after(async () => {
      for (const daemon of Object.values(keepalived)) await daemon.stop();
    });

    /** The node the cloudgw learned `prefix` from, once it has a path (from a node other than `not`). */
    const announcer = (prefix: string, not?: string) =>
      pollUntil(
        async () => {
          const [path] = await ribPaths(lab(), 'cloudgw1', prefix);
          const node = path ? await world.nodeOfPeer(path.peer) : undefined;
          return node && node !== not ? { node, nextHop: path!.nextHop } : undefined;
        },
        `${prefix} in cloudgw1's RIB${not ? ` from a node other than ${not}` : ''}`,
      );

    it('the /32 follows the amphora holding the VIP, and the core reaches the VIP through it', async () => {
      const subnet = world.tenantSubnet();
      const base = (subnet.cidr as string).split('/')[0]!.split('.').slice(0, 3).join('.');
      const vipAddress = `${base}.100`;
      const address: Record<string, string> = { amphora1: `${base}.101`, amphora2: `${base}.102` };
      const node: Record<string, string> = { amphora1: 'node1', amphora2: 'node2' };
      // Octavia: the MASTER role's priority is 100, the BACKUP's 90.
      const priority: Record<string, number> = { amphora1: 100, amphora2: 90 };
      const vm = (name: string) => lab().vmCommand(name, []);
      const vrrp = (name: string, peer: string): VrrpOptions => ({
        vip: vipAddress,
        self: address[name]!,
        peers: [address[peer]!],
        priority: priority[name]!,
        advertInt: 1,
      });
      /** The VIP on an interface that is up (a killed amphora keeps the address on its downed link). */
      const holdsVip = async (name: string) =>
        (await lab().exec([...vm(name), 'ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0', 'up'])).stdout.includes(
          ` ${vipAddress}/`,
        );
      const master = () =>
        pollUntil(async () => {
          const holding = [];
          for (const name of ['amphora1', 'amphora2']) if (await holdsVip(name)) holding.push(name);
          return holding.length === 1 ? holding[0]! : undefined;
        }, 'exactly one amphora holding the VIP');

      // The amphorae's security group as Octavia makes it: the probe (ICMP) and VRRP (protocol 112).
      const group = (await post('/v2.0/security-groups', { security_group: { name: 'lb-amphorae' } })).security_group;
      for (const rule of [{ protocol: 'icmp' }, { protocol: '112', remote_group_id: group.id }]) {
        await post('/v2.0/security-group-rules', {
          security_group_rule: { security_group_id: group.id, direction: 'ingress', ethertype: 'IPv4', ...rule },
        });
      }
      const vip: Json = (
        await post('/v2.0/ports', {
          port: {
            network_id: subnet.network_id,
            name: 'octavia-lb-vip',
            device_owner: 'Octavia',
            fixed_ips: [{ subnet_id: subnet.id, ip_address: vipAddress }],
          },
        })
      ).port;
      for (const name of ['amphora1', 'amphora2']) {
        const port = (
          await post('/v2.0/ports', {
            port: {
              network_id: subnet.network_id,
              name: `octavia-lb-vrrp-${name}`,
              device_owner: 'compute:nova',
              'binding:host_id': node[name],
              fixed_ips: [{ subnet_id: subnet.id, ip_address: address[name] }],
              security_groups: [group.id],
              allowed_address_pairs: [{ ip_address: vipAddress }],
            },
          })
        ).port;
        await lab().createVm({ node: node[name]!, port: port.id, name });
      }
      const fip = (
        await post('/v2.0/floatingips', { floatingip: { floating_network_id: world.external().id, port_id: vip.id } })
      ).floatingip;
      keepalived.amphora1 = await lab().startKeepalived('amphora1', vrrp('amphora1', 'amphora2'));
      keepalived.amphora2 = await lab().startKeepalived('amphora2', vrrp('amphora2', 'amphora1'));

      // ML2/OVN writes a distributed NAT row for a virtual port too (`_create_or_update_floatingip`:
      // external_mac once the LSP is up, which a bound virtual port is): OVN answers on its chassis.
      const nat = await lab().nbctl(
        '--bare',
        '--columns=external_mac,logical_port',
        'find',
        'NAT',
        `external_ip=${fip.floating_ip_address}`,
      );
      assert.deepEqual(nat.split('\n').filter(Boolean), [vip.mac_address, vip.id]);

      const prefix = `${fip.floating_ip_address}/32`;
      const nodeAddress = async (name: string) =>
        (await lab().status()).bgp!.nodes.find((n) => n.name === name)!.address;
      const first = await master();
      const before = await announcer(prefix);
      assert.equal(before.node, node[first], `the node of ${first}, which holds the VIP, announces it`);
      assert.equal(before.nextHop, await nodeAddress(node[first]!), 'with that node as next hop');
      await coreReaches(lab(), fip.floating_ip_address as string);

      // The master dies as an amphora dies: keepalived SIGKILLed (no goodbye advert), its link down.
      const second = first === 'amphora1' ? 'amphora2' : 'amphora1';
      await keepalived[first]!.kill();
      await check(lab(), [...vm(first), 'ip', 'link', 'set', 'eth0', 'down']);
      assert.equal(await master(), second, `${second} took the VIP`);
      const moved = await announcer(prefix, node[first]);
      assert.equal(moved.node, node[second], 'the announcement followed the VIP');
      assert.equal(moved.nextHop, await nodeAddress(node[second]!));
      await pollUntil(
        async () => (await ribPaths(lab(), 'cloudgw1', prefix)).length === 1,
        `only ${node[second]}'s path for ${prefix} in cloudgw1's RIB`,
      );
      await coreReaches(lab(), fip.floating_ip_address as string);
    });
  },
);

/**
 * A load balancer's VIP the way Octavia makes it, with real packets: an unbound VIP port, two
 * "amphora" ports on two nodes listing the VIP in their allowed address pairs, a floating IP on the
 * VIP. Whichever amphora holds the address (and announces it with a gratuitous ARP, as keepalived
 * does) receives the floating IP's traffic; moving the address moves the traffic with no API call,
 * and the NAT row never changes. (keepalived itself and the failover timings are issue 8's lab test
 * and bench.)
 *
 * Lab: 3 nodes; amphorae on node1 and node2, the router's gateway on node3.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { check, createOutsideNetwork, created, notRoot, pollUntil, useLab } from './lab-fixture.js';
import type { Json } from '../fixtures/json.js';

const VIP = '10.9.0.10';

describe('octonet on the lab: a floating IP on a virtual (VIP) port', { skip: notRoot }, () => {
  const { lab } = useLab({ name: 'oct-vip', nodes: 3, gateways: ['node3'] });
  // ML2/OVN's virtual port (`auto`, the default, writes a learned-MAC VIP: vip-failover.test.ts runs both).
  const api = useApi('sqlite', {
    config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb, vip_failover: 'virtual-port' } }),
  });
  const vm = (name: string) => lab().vmCommand(name, []);
  const outside = () => lab().outsideCommand([]);
  let vip: Json;
  let fip: Json;
  const amphorae: Record<string, Json> = {};

  const post = (path: string, body: unknown) => created(api.admin, path, body);
  /** The floating IP's NAT row (logical port, external and internal address), as an operator reads it. */
  const natRow = async (): Promise<string[]> => {
    const out = await lab().nbctl(
      '--format=json',
      '--columns=logical_port,external_ip,logical_ip',
      'find',
      'NAT',
      'type=dnat_and_snat',
    );
    return (JSON.parse(out) as { data: string[][] }).data[0]!;
  };
  /** The amphora takes the VIP and announces it, as keepalived's master does. */
  const takeVip = async (name: string) => {
    await check(lab(), [...vm(name), 'ip', 'addr', 'add', `${VIP}/24`, 'dev', 'eth0']);
    await check(lab(), [...vm(name), 'arping', '-U', '-c', '2', '-w', '2', '-I', 'eth0', VIP]);
  };
  const dropVip = (name: string) => check(lab(), [...vm(name), 'ip', 'addr', 'del', `${VIP}/24`, 'dev', 'eth0']);
  const fipAnswers = async () =>
    (await lab().exec([...outside(), 'ping', '-c', '1', '-W', '1', fip.floating_ip_address])).code === 0;

  before(async () => {
    const { network: external } = await createOutsideNetwork(api.admin);
    const net = (await post('/v2.0/networks', { network: { name: 'lb-net' } })).network;
    const subnet = (await post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.9.0.0/24', ip_version: 4 } }))
      .subnet;
    const router = (
      await post('/v2.0/routers', { router: { name: 'r', external_gateway_info: { network_id: external.id } } })
    ).router;
    await api.admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
    const group = (await post('/v2.0/security-groups', { security_group: { name: 'lb' } })).security_group;
    await post('/v2.0/security-group-rules', {
      security_group_rule: { security_group_id: group.id, direction: 'ingress', protocol: 'icmp' },
    });
    vip = (
      await post('/v2.0/ports', {
        port: { network_id: net.id, name: 'octavia-lb-vip', device_owner: 'Octavia', fixed_ips: [{ ip_address: VIP }] },
      })
    ).port;
    for (const [name, node] of [
      ['amphora1', 'node1'],
      ['amphora2', 'node2'],
    ] as const) {
      amphorae[name] = (
        await post('/v2.0/ports', {
          port: {
            network_id: net.id,
            name,
            device_owner: 'compute:nova',
            'binding:host_id': node,
            security_groups: [group.id],
            allowed_address_pairs: [{ ip_address: VIP }],
          },
        })
      ).port;
      await lab().createVm({ node, port: amphorae[name].id, name });
    }
    fip = (await post('/v2.0/floatingips', { floatingip: { floating_network_id: external.id, port_id: vip.id } }))
      .floatingip;
  });

  it('the VIP port is virtual, with both amphorae as parents, and the floating IP points at it', async () => {
    const [row] = JSON.parse(
      await lab().nbctl('--format=json', '--columns=type,options', 'find', 'Logical_Switch_Port', `name=${vip.id}`),
    ).data;
    assert.equal(row[0], 'virtual');
    const options = Object.fromEntries(row[1][1]);
    assert.equal(options['virtual-ip'], VIP);
    assert.deepEqual(options['virtual-parents'].split(',').sort(), [amphorae.amphora1.id, amphorae.amphora2.id].sort());
    assert.deepEqual(await natRow(), [vip.id, fip.floating_ip_address, VIP]);
  });

  it('the amphora holding the VIP gets the floating IP’s traffic; moving the VIP moves it, NAT untouched', async () => {
    const nat = await natRow();
    await takeVip('amphora1');
    await pollUntil(fipAnswers, 'floating IP → amphora1');
    await dropVip('amphora1');
    await takeVip('amphora2');
    await pollUntil(fipAnswers, 'floating IP → amphora2');
    // The reply came from amphora2: amphora1 no longer has the address at all.
    const held = await check(lab(), [...vm('amphora1'), 'ip', '-4', 'addr', 'show', 'dev', 'eth0']);
    // `inet <VIP>/`: the amphora's own address may start with the VIP's digits (10.9.0.102).
    assert.doesNotMatch(held, new RegExp(`inet ${VIP.replace(/\./g, '\\.')}/`));
    assert.deepEqual(await natRow(), nat, 'no API call and no NAT rewrite on failover');
    assert.equal((await api.admin.get(`/v2.0/floatingips/${fip.id}`)).body.floatingip.port_id, vip.id);
  });
});

/**
 * BGP with distributed floating IPs (`enable_distributed_floating_ip`), with real packets: the
 * floating IP's NAT row carries the port's MAC, so OVN answers for it on the VM's own chassis; the
 * agent there announces the /32 with its node as next hop (not the gateway node), the core reaches
 * the VM through it, and when the VM moves to another node (a migration: the port is rebound) the
 * announcement moves with it. The tenant subnet stays with the gateway.
 * IPv6: an IPv6 speaker (IPv6 sessions to the cloudgws) announces the IPv6 tenant subnet from the
 * active gateway with the router's IPv6 gateway address as next hop (control plane: the lab's core
 * and VRRP gateway are IPv4).
 *
 * Lab `bgpd`: 3 nodes, the VM on node1, gateways on node2 and node3, `--bgp`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentIdFor } from '../../src/bgp/agent-sb.js';
import { created, notRoot, pollUntil } from './lab-fixture.js';
import { coreReaches, ribPaths, useBgpWorld } from './bgp-fixture.js';
import type { Json } from '../fixtures/json.js';

describe('octonet on the lab: BGP, distributed floating IPs', { skip: notRoot }, () => {
  const world = useBgpWorld('bgpd', { distributed: true, ipv6: true });
  const { lab, api } = world;

  /** The node the cloudgw learned `prefix` from, once it has a path. */
  const announcer = (prefix: string, not?: string) =>
    pollUntil(
      async () => {
        const [path] = await ribPaths(lab(), 'cloudgw1', prefix);
        const node = path ? await world.nodeOfPeer(path.peer) : undefined;
        return node && node !== not ? { node, nextHop: path!.nextHop } : undefined;
      },
      `${prefix} in cloudgw1's RIB${not ? ` from a node other than ${not}` : ''}`,
    );

  /**
   * Moves a DR agent from one speaker to another. Between the DELETE and the POST the node's agent
   * may ask for its speakers, and an agent hosting none picks up an unscheduled speaker (as n-d-r
   * schedules when an agent reports in): then it already hosts the new one (the POST answers 409,
   * as n-d-r's duplicate binding does), or another, which is dropped and the POST tried again.
   */
  const moveAgent = async (agent: string, from: string, to: string) => {
    const dropped = await api.admin.delete(`/v2.0/agents/${agent}/bgp-drinstances/${from}`);
    assert.equal(dropped.status, 204, dropped.text);
    await pollUntil(async () => {
      const added = await api.admin.post(`/v2.0/agents/${agent}/bgp-drinstances`, { bgp_speaker_id: to });
      if (added.status === 201) return true;
      assert.equal(added.status, 409, added.text);
      const hosted = ((await api.admin.get(`/v2.0/agents/${agent}/bgp-drinstances`)).body.bgp_speakers as Json[]).map(
        (s) => String(s.id),
      );
      if (hosted.includes(to)) return true;
      for (const other of hosted) await api.admin.delete(`/v2.0/agents/${agent}/bgp-drinstances/${other}`);
      return false;
    }, `the agent ${agent} hosting ${to}`);
  };

  it("a floating IP is announced from the VM's node, with that node as next hop, and reached from the core", async () => {
    const body = await created(api.admin, '/v2.0/floatingips', {
      floatingip: { floating_network_id: world.external().id, port_id: world.vmPort().id },
    });
    const address = body.floatingip.floating_ip_address as string;
    const nat = await lab().nbctl(
      '--bare',
      '--columns=external_mac,logical_port',
      'find',
      'NAT',
      `external_ip=${address}`,
    );
    assert.deepEqual(nat.split('\n').filter(Boolean), [world.vmPort().mac_address, world.vmPort().id]);

    const prefix = `${address}/32`;
    const first = await announcer(prefix);
    assert.equal(first.node, 'node1', "the VM's chassis announces it");
    const status = await lab().status();
    assert.equal(first.nextHop, status.bgp!.nodes.find((n) => n.name === 'node1')!.address);
    const tenant = await pollUntil(async () => {
      const found = await ribPaths(lab(), 'cloudgw1', world.tenantSubnet().cidr as string);
      return found.length ? found : undefined;
    }, "the tenant subnet in cloudgw1's RIB");
    assert.deepEqual(
      tenant.map((p) => p.nextHop),
      [world.gatewayIp()],
      'the tenant subnet stays with the gateway',
    );
    await coreReaches(lab(), address);

    // A migration: Nova rebinds the port to node3, and the VM comes up there.
    await lab().deleteVm('vm1');
    const moved = await api.admin.put(`/v2.0/ports/${world.vmPort().id}`, { port: { 'binding:host_id': 'node3' } });
    assert.equal(moved.status, 200, moved.text);
    await lab().createVm({ node: 'node3', port: world.vmPort().id, name: 'vm1' });
    const after = await announcer(prefix, 'node1');
    assert.equal(after.node, 'node3', 'the announcement followed the port');
    await coreReaches(lab(), address);
  });

  it('IPv6: a tenant prefix in the IPv6 address scope is announced over the IPv6 sessions', async () => {
    const status = (await lab().status()).bgp!;
    const speaker = (
      await created(api.admin, '/v2.0/bgp-speakers', {
        bgp_speaker: { name: 'fabric6', local_as: 64999, ip_version: 6, advertise_tenant_networks: true },
      })
    ).bgp_speaker;
    for (const cloudgw of status.cloudgws) {
      const peer = (
        await created(api.admin, '/v2.0/bgp-peers', {
          bgp_peer: {
            name: `${cloudgw.name}-v6`,
            peer_ip: cloudgw.addresses[1],
            remote_as: cloudgw.asn,
            auth_type: 'md5',
            password: status.password,
          },
        })
      ).bgp_peer;
      await api.admin.put(`/v2.0/bgp-speakers/${speaker.id}/add_bgp_peer`, { bgp_peer_id: peer.id });
    }
    await api.admin.put(`/v2.0/bgp-speakers/${speaker.id}/add_gateway_network`, { network_id: world.external().id });
    const routes = (await api.admin.get(`/v2.0/bgp-speakers/${speaker.id}/get_advertised_routes`)).body;
    const prefix = world.tenantSubnet6().cidr as string;
    assert.deepEqual(routes.advertised_routes, [{ destination: prefix, next_hop: world.gatewayIp(6) }]);

    // An agent hosts one speaker: the gateway nodes' agents move to the IPv6 one.
    for (const node of ['node2', 'node3']) await moveAgent(agentIdFor(node), world.speaker().id, speaker.id);
    const active = await world.activeGateway();
    const paths = await pollUntil(async () => {
      const found = await ribPaths(lab(), 'cloudgw1', prefix, 6);
      return found.length ? found : undefined;
    }, `${prefix} in cloudgw1's IPv6 RIB`);
    assert.equal(paths[0]!.nextHop, world.gatewayIp(6));
    assert.equal(
      status.nodes.find((n) => n.address6 === paths[0]!.peer)?.name,
      active,
      'learned from the active gateway node',
    );
  });
});

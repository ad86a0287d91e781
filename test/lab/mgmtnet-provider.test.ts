/**
 * The Octavia management network, provider topology (Kolla's and OpenStack-Ansible's default), dual
 * stack, with real packets: lb-mgmt-net is itself a VLAN provider network on physnet1 with an IPv4
 * and an IPv6 subnet; the node agent plugs each controller's port as o-hm0 (reaching the VLAN through
 * OVN's localnet port), with both addresses static (IPv6 usable at once: no DAD wait, no router
 * advertisement), and the amphora on another node reaches every health manager over both families.
 *
 * Lab: 3 nodes; controllers on node1 and node2, the amphora on node3.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { decodeHeartbeat, encodeHeartbeat } from '../../src/mgmtnet/node-agent/heartbeat.js';
import { useApi } from '../fixtures/api.js';
import { assertTcpTransfer, check, notRoot, useLab } from './lab-fixture.js';
import {
  agentPass,
  agentReady,
  applyMgmtSpec,
  assertPingDontFragment,
  deliverUdp,
  mgmtSpec,
  plugAmphora,
  type Provisioned,
} from './mgmtnet-fixture.js';
import type { Json } from '../fixtures/json.js';

const CONTROLLERS = ['node1', 'node2'];
const V4 = '172.24.0.0/16';
const V6 = 'fd00:24::/64';

describe('octonet on the lab: the management network on a VLAN provider network, dual stack', { skip: notRoot }, () => {
  const { lab, scratch } = useLab({ name: 'oct-mgmt-prov', nodes: 3 });
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb } }) });
  const spec = mgmtSpec('provider', CONTROLLERS, {
    network: { cidr: [V4, V6] },
    provider: { networkType: 'vlan', segmentationId: 240 },
  });
  const node = (name: string) => lab().nodeCommand(name, []);
  const amphora = () => lab().vmCommand('amphora', []);
  let made: Provisioned;
  let amphoraPort: Json;
  const addressOf = (port: Json, family: 4 | 6): string =>
    port.fixed_ips.map((f: Json) => f.ip_address).find((ip: string) => ip.includes(':') === (family === 6));
  const heartbeatKey = randomBytes(16).toString('hex');

  before(async () => {
    made = await applyMgmtSpec(api.admin, spec);
    assert.equal(made.network['provider:network_type'], 'vlan');
    assert.equal(made.network['provider:segmentation_id'], 240);
    // Every controller plugged once, so each one's probe has a peer.
    for (const name of CONTROLLERS) await agentPass(lab(), api.url, spec, name);
    amphoraPort = await plugAmphora(lab(), api.admin, made, 'node3', 'amphora');
    // The amphora's IPv6 address, as its cloud-init would set it from the port (the lab's
    // namespaces start with IPv6 off).
    await check(lab(), [...amphora(), 'sysctl', '-qw', 'net.ipv6.conf.eth0.disable_ipv6=0']);
    await check(lab(), [
      ...amphora(),
      'ip',
      '-6',
      'addr',
      'add',
      `${addressOf(amphoraPort, 6)}/64`,
      'dev',
      'eth0',
      'nodad',
    ]);
  });

  it('each controller is Ready with an IPv4 and an IPv6 address on o-hm0, and no router advertisement taken', async () => {
    for (const name of CONTROLLERS) {
      const report = await agentReady(lab(), api.url, spec, name);
      assert.equal(report.port!.fixedIps.length, 2);
      const [link] = JSON.parse(await check(lab(), [...node(name), 'ip', '-j', 'addr', 'show', 'dev', 'o-hm0']));
      const global = link.addr_info.filter((a: Json) => a.scope === 'global');
      assert.deepEqual(
        global.map((a: Json) => `${a.local}/${a.prefixlen}`).sort(),
        [`${addressOf(made.ports.get(name), 4)}/16`, `${addressOf(made.ports.get(name), 6)}/64`].sort(),
      );
      assert.ok(!global.some((a: Json) => a.tentative), 'the IPv6 address is usable at once (nodad)');
      const acceptRa = await check(lab(), [...node(name), 'sysctl', '-n', 'net.ipv6.conf.o-hm0.accept_ra']);
      assert.equal(acceptRa.trim(), '0');
      const routes = await check(lab(), [...node(name), 'ip', '-6', 'route', 'show', 'dev', 'o-hm0']);
      assert.doesNotMatch(routes, /default/);
    }
  });

  it('signed heartbeats reach every health manager over IPv4 and over IPv6', async () => {
    let seq = 0;
    for (const name of CONTROLLERS) {
      for (const family of [4, 6] as const) {
        const sent = encodeHeartbeat({ id: randomUUID(), seq: ++seq, ver: 3, listeners: {}, pools: {} }, heartbeatKey);
        const address = addressOf(made.ports.get(name), family);
        const received = await deliverUdp(lab(), scratch(), amphora(), node(name), address, sent);
        assert.equal(decodeHeartbeat(received, heartbeatKey).seq, seq);
      }
    }
  });

  it('a controller reaches TCP 9443 on the amphora, and a full-MTU IPv6 packet crosses with no fragmentation', async () => {
    await assertTcpTransfer(lab(), scratch(), node('node1'), amphora(), addressOf(amphoraPort, 4), 16 * 1024, 9443);
    const mtu = made.network.mtu as number;
    await assertPingDontFragment(lab(), node('node2'), addressOf(amphoraPort, 6), mtu - 48);
  });
  it('with ICMP taken out of the groups the probe fails and says why, though heartbeats still pass; back when it returns', async () => {
    const closed = mgmtSpec('provider', CONTROLLERS, {
      network: { cidr: [V4, V6] },
      provider: { networkType: 'vlan', segmentationId: 240 },
      securityGroups: { icmp: false },
    });
    await applyMgmtSpec(api.admin, closed);
    const report = await agentPass(lab(), api.url, closed, 'node1');
    const probe = report.conditions.find((c) => c.type === 'HeartbeatPathOpen')!;
    assert.deepEqual([probe.status, probe.reason], ['False', 'NoPeerAnswered']);
    assert.match(probe.message, /ICMP/);
    assert.equal(report.ready, false);
    const sent = encodeHeartbeat({ id: randomUUID(), seq: 77, ver: 3, listeners: {}, pools: {} }, heartbeatKey);
    await deliverUdp(lab(), scratch(), amphora(), node('node1'), addressOf(made.ports.get('node1'), 4), sent);
    await applyMgmtSpec(api.admin, spec);
    await agentReady(lab(), api.url, spec, 'node1');
  });
});

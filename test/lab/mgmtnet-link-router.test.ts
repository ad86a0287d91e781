/**
 * The Octavia management network, link-router topology (OpenStack-on-OpenShift), with real
 * packets: the controllers' ports are on a flat provider network (physnet1), the amphorae on the
 * tenant lb-mgmt-net, a router without SNAT between them, a host route on the tenant subnet back to
 * the provider subnet, and on each controller the node agent's route to the amphora CIDR via the
 * router's provider-side address (found from the router the operator owns, not configured by
 * hand). The amphora takes its address and the host route by DHCP. Heartbeats cross the router to every controller with the amphora's own address (no NAT),
 * the controllers reach TCP 9443, a port outside the amphora group is dropped, the full tenant MTU
 * crosses, and a second apply and pass change nothing.
 *
 * Lab: 3 nodes (all may hold the router's gateway); controllers on node1 and node2, the amphora on node3.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { decodeHeartbeat, encodeHeartbeat } from '../../src/mgmtnet/node-agent/heartbeat.js';
import { useApi } from '../fixtures/api.js';
import { assertTcpTransfer, captureWhile, check, notRoot, useLab } from './lab-fixture.js';
import {
  agentPass,
  agentReady,
  applyMgmtSpec,
  assertPingDontFragment,
  assertTcpBlocked,
  deliverUdp,
  ipOf,
  mgmtSpec,
  plugAmphora,
  type Provisioned,
} from './mgmtnet-fixture.js';
import type { Json } from '../fixtures/json.js';

const CONTROLLERS = ['node1', 'node2'];
/** The controllers' provider subnet: on physnet1 beside the lab's outside network, its own L2 range. */
const PROVIDER_CIDR = '192.168.240.0/24';
/** The router's address there: the spec's default, the subnet's first address. */
const ROUTER_ON_PROVIDER = '192.168.240.1';

describe('octonet on the lab: the management network through a link router', { skip: notRoot }, () => {
  const { lab, scratch } = useLab({ name: 'oct-mgmt-lr', nodes: 3 });
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb } }) });
  const spec = mgmtSpec('link-router', CONTROLLERS, { linkRouter: { cidr: PROVIDER_CIDR } });
  const node = (name: string) => lab().nodeCommand(name, []);
  const amphora = () => lab().vmCommand('amphora', []);
  let made: Provisioned;
  let amphoraPort: Json;
  const hmAddress = (name: string) => ipOf(made.ports.get(name));
  const heartbeatKey = randomBytes(16).toString('hex');

  before(async () => {
    made = await applyMgmtSpec(api.admin, spec);
    amphoraPort = await plugAmphora(lab(), api.admin, made, 'node3', 'amphora');
  });

  it('each controller is Ready, its probe answered by the router, with the route to the amphorae via the router', async () => {
    for (const name of CONTROLLERS) {
      const report = await agentReady(lab(), api.url, spec, name);
      // The route carries the router's path MTU (the tenant network's, smaller than the provider's).
      assert.deepEqual(report.routes, [`${made.subnet.cidr} via ${ROUTER_ON_PROVIDER} mtu ${made.network.mtu}`]);
      assert.ok(report.port!.fixedIps[0]!.startsWith('192.168.240.'), 'the port is on the provider network');
      const probe = report.conditions.find((c) => c.type === 'HeartbeatPathOpen')!;
      assert.match(probe.message, new RegExp(`^${ROUTER_ON_PROVIDER.replace(/\./g, '\\.')} answered`));
      const routes = await check(lab(), [...node(name), 'ip', 'route', 'show', 'dev', 'o-hm0']);
      assert.match(
        routes,
        new RegExp(
          `^172\\.24\\.0\\.0/16 via ${ROUTER_ON_PROVIDER.replace(/\./g, '\\.')} proto static mtu ${made.network.mtu}`,
          'm',
        ),
      );
      assert.doesNotMatch(routes, /default/);
    }
  });

  it('heartbeats cross the router to every controller, from the amphora’s own address (no SNAT)', async () => {
    for (const [seq, name] of CONTROLLERS.entries()) {
      const sent = encodeHeartbeat({ id: randomUUID(), seq, ver: 3, listeners: {}, pools: {} }, heartbeatKey);
      const received = await deliverUdp(lab(), scratch(), amphora(), node(name), hmAddress(name), sent);
      assert.equal(decodeHeartbeat(received, heartbeatKey).seq, seq);
    }
    // What arrives on o-hm0 carries the amphora's address: the router did not SNAT it.
    const sent = encodeHeartbeat({ id: randomUUID(), seq: 9, ver: 3, listeners: {}, pools: {} }, heartbeatKey);
    const seen = await captureWhile(node('node1'), 'o-hm0', 'udp dst port 5555', async () => {
      await deliverUdp(lab(), scratch(), amphora(), node('node1'), hmAddress('node1'), sent);
    });
    assert.match(
      seen,
      new RegExp(
        `${ipOf(amphoraPort).replace(/\./g, '\\.')}\\.\\d+ > ${hmAddress('node1').replace(/\./g, '\\.')}\\.5555`,
      ),
    );
  });

  it('a controller reaches TCP 9443 on the amphora across the router; another port is dropped', async () => {
    for (const name of CONTROLLERS) {
      await assertTcpTransfer(lab(), scratch(), node(name), amphora(), ipOf(amphoraPort), 16 * 1024, 9443);
    }
    await assertTcpBlocked(lab(), node('node2'), amphora(), ipOf(amphoraPort), 9444);
  });

  it('a packet of the tenant network’s full MTU crosses the router with DF both ways', async () => {
    const mtu = made.network.mtu as number;
    await assertPingDontFragment(lab(), node('node1'), ipOf(amphoraPort), mtu - 28);
    await assertPingDontFragment(lab(), amphora(), hmAddress('node2'), mtu - 28);
  });

  it('a second apply and agent pass change nothing', async () => {
    const again = await applyMgmtSpec(api.admin, spec);
    assert.equal(again.ports.get('node1').id, made.ports.get('node1').id);
    // Including the ports whose binding:host_id the agent set: `apply` leaves it alone.
    const changed = again.report.objects.filter((o) => o.action !== 'unchanged');
    assert.deepEqual(changed, [], 'the second apply changes nothing');
    for (const name of CONTROLLERS) {
      const report = await agentPass(lab(), api.url, spec, name);
      assert.deepEqual(report.actions, []);
      assert.equal(report.ready, true);
    }
  });
});

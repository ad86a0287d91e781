/**
 * The Octavia management network, per-node-ports topology (Kolla, YAOOK), with real packets: the
 * spec is applied, the node agent plugs each controller's port as `o-hm0` on its br-int, and an
 * "amphora" on lb-mgmt-net on another node talks to every controller both ways: a signed
 * heartbeat (Octavia's envelope) to each health manager's UDP 5555, the controller to the amphora
 * agent's TCP 9443, a full-MTU packet with "don't fragment", and nothing on a port the amphora
 * security group does not open. Then what operators trip over: a second apply and pass change
 * nothing, an OVS restart's lost interface comes back, a node that leaves loses its port and its
 * interface and stops answering.
 *
 * Lab: 3 nodes; controllers on node1 and node2, the amphora on node3.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { decodeHeartbeat, encodeHeartbeat } from '../../src/mgmtnet/node-agent/heartbeat.js';
import { useApi } from '../fixtures/api.js';
import { assertTcpTransfer, check, notRoot, pollUntil, useLab } from './lab-fixture.js';
import {
  agentPass,
  agentReady,
  applyMgmtSpec,
  assertPingDontFragment,
  assertTcpBlocked,
  deliverUdp,
  ipOf,
  mgmtSpec,
  pingDontFragment,
  plugAmphora,
  type Provisioned,
} from './mgmtnet-fixture.js';
import type { Json } from '../fixtures/json.js';

const CONTROLLERS = ['node1', 'node2'];

describe('octonet on the lab: the management network, one port per controller node', { skip: notRoot }, () => {
  const { lab, scratch } = useLab({ name: 'oct-mgmt-pnp', nodes: 3 });
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb } }) });
  const spec = mgmtSpec('per-node-ports', CONTROLLERS);
  const node = (name: string) => lab().nodeCommand(name, []);
  const amphora = () => lab().vmCommand('amphora', []);
  let made: Provisioned;
  let amphoraPort: Json;
  let mtu: number;
  const hmAddress = (name: string) => ipOf(made.ports.get(name));
  const heartbeatKey = randomBytes(16).toString('hex');

  before(async () => {
    made = await applyMgmtSpec(api.admin, spec);
    for (const name of CONTROLLERS) await agentPass(lab(), api.url, spec, name);
    amphoraPort = await plugAmphora(lab(), api.admin, made, 'node3', 'amphora');
    mtu = made.network.mtu;
  });

  it('the agent binds each port to its chassis and plugs it as o-hm0: all conditions True', async () => {
    for (const name of CONTROLLERS) {
      const report = await agentReady(lab(), api.url, spec, name);
      assert.equal(report.chassis, name);
      const port = (await api.admin.get(`/v2.0/ports/${made.ports.get(name).id}`)).body.port;
      assert.equal(port.status, 'ACTIVE');
      assert.equal(port['binding:host_id'], name, 'bound to the chassis name read from the node’s OVS');
      const ids = JSON.parse(
        await check(lab(), [
          ...node(name),
          'ovs-vsctl',
          '--format=json',
          '--columns=external_ids,mtu_request,type',
          'find',
          'Interface',
          'name=o-hm0',
        ]),
      ).data[0];
      const externalIds = Object.fromEntries(ids[0][1]);
      assert.equal(externalIds['iface-id'], port.id);
      assert.equal(externalIds['attached-mac'], port.mac_address);
      assert.equal(externalIds['iface-status'], 'active');
      assert.equal(externalIds['octonet-mgmt-net'], 'lb-mgmt');
      assert.equal(ids[1], mtu);
      assert.equal(ids[2], 'internal');
      const [link] = JSON.parse(await check(lab(), [...node(name), 'ip', '-j', 'addr', 'show', 'dev', 'o-hm0']));
      assert.equal(link.address, port.mac_address);
      assert.equal(link.mtu, mtu);
      assert.deepEqual(
        link.addr_info.filter((a: Json) => a.scope === 'global').map((a: Json) => `${a.local}/${a.prefixlen}`),
        [`${ipOf(port)}/16`],
      );
      const routes = await check(lab(), [...node(name), 'ip', 'route', 'show', 'dev', 'o-hm0']);
      assert.doesNotMatch(routes, /default/, 'no default route on the management interface');
    }
  });

  it('the amphora’s signed heartbeat reaches the health manager on every controller (UDP 5555)', async () => {
    for (const [seq, name] of CONTROLLERS.entries()) {
      const sent = encodeHeartbeat({ id: randomUUID(), seq, ver: 3, listeners: {}, pools: {} }, heartbeatKey);
      const received = await deliverUdp(lab(), scratch(), amphora(), node(name), hmAddress(name), sent);
      assert.equal(decodeHeartbeat(received, heartbeatKey).seq, seq);
    }
  });

  it('a heartbeat as large as the MTU arrives whole, and a full-MTU ping with DF crosses both ways', async () => {
    const full = randomBytes(mtu - 28);
    const received = await deliverUdp(lab(), scratch(), amphora(), node('node1'), hmAddress('node1'), full);
    assert.ok(received.equals(full));
    await assertPingDontFragment(lab(), node('node2'), ipOf(amphoraPort), mtu - 28);
    await assertPingDontFragment(lab(), amphora(), hmAddress('node2'), mtu - 28);
    // One byte more than the MTU cannot leave with DF set: the MTU on o-hm0 is the network's.
    const over = await pingDontFragment(lab(), node('node2'), ipOf(amphoraPort), mtu - 27, 1);
    assert.notEqual(over.code, 0);
  });

  it('a controller reaches the amphora agent’s TCP 9443; a port the amphora group does not open is dropped', async () => {
    for (const name of CONTROLLERS) {
      await assertTcpTransfer(lab(), scratch(), node(name), amphora(), ipOf(amphoraPort), 16 * 1024, 9443);
    }
    await assertTcpBlocked(lab(), node('node1'), amphora(), ipOf(amphoraPort), 9444);
  });

  it('a second apply and agent pass change nothing; the interface stays as it is', async () => {
    const ifindex = async () =>
      JSON.parse(await check(lab(), [...node('node1'), 'ip', '-j', 'link', 'show', 'o-hm0']))[0].ifindex;
    const before = await ifindex();
    const again = await applyMgmtSpec(api.admin, spec);
    assert.equal(again.ports.get('node1').id, made.ports.get('node1').id);
    // Including the ports whose binding:host_id the agent set: `apply` leaves it alone.
    const changed = again.report.objects.filter((o) => o.action !== 'unchanged');
    assert.deepEqual(changed, [], 'the second apply changes nothing');
    for (const name of CONTROLLERS) {
      const report = await agentPass(lab(), api.url, spec, name);
      assert.deepEqual(report.actions, [], `${name}: nothing to do`);
      assert.equal(report.ready, true);
    }
    assert.equal(await ifindex(), before, 'the same device: not re-plugged');
  });

  it('`octonet node-agent --once` does the same pass from the command line (in the lab node via --lab)', async () => {
    const file = join(scratch(), 'spec.yaml');
    writeFileSync(file, stringify({ ...spec, spec: { ...spec.spec, network: { cidr: '172.24.0.0/16' } } }));
    const argv = [process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'node-agent', '--node', 'node1', '-f', file];
    const result = await lab().exec([...argv, '--os-url', api.url, '--lab', lab().name, '--once', '--json'], {
      timeoutMs: 60_000,
    });
    assert.equal(result.code, 0, result.stderr + result.stdout);
    const report = JSON.parse(result.stdout);
    assert.equal(report.ready, true);
    assert.deepEqual(report.actions, []);
    assert.equal(report.port.id, made.ports.get('node1').id);
  });

  it('the running agent re-plugs a deleted interface at once, woken by OVSDB, not by its timer', async () => {
    const file = join(scratch(), 'spec-watch.yaml');
    writeFileSync(file, stringify({ ...spec, spec: { ...spec.spec, network: { cidr: '172.24.0.0/16' } } }));
    // A 10-minute interval: only the OVSDB monitor can bring the interface back within the test's deadline.
    const argv = ['src/cli/main.ts', 'node-agent', '--node', 'node2', '-f', file, '--os-url', api.url];
    const agent = spawn(process.execPath, ['--import', 'tsx', ...argv, '--lab', lab().name, '--interval', '600'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    agent.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    agent.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => agent.once('close', resolve));
    const ofport = async () =>
      (
        await lab().exec([...node('node2'), 'ovs-vsctl', '--if-exists', 'get', 'Interface', 'o-hm0', 'ofport'])
      ).stdout.trim();
    try {
      await pollUntil(async () => output.includes('Ready'), 'the agent’s first report');
      const before = await ofport();
      const logBefore = output.length;
      await check(lab(), [...node('node2'), 'ovs-vsctl', 'del-port', 'o-hm0']);
      // Back means re-plugged (a new OpenFlow port) and addressed again.
      await pollUntil(async () => {
        const now = await ofport();
        if (now === '' || now === before) return false;
        const addresses = await lab().exec([...node('node2'), 'ip', '-4', 'addr', 'show', 'dev', 'o-hm0']);
        return addresses.stdout.includes(`${hmAddress('node2')}/`);
      }, `o-hm0 re-plugged and addressed by the running agent (${output})`);
      // Its log says so (stderr may arrive a moment after the interface is back). A pass that read the
      // interface just before the deletion and its bridge just after says `re-plugged o-hm0: bridge (none)`.
      await pollUntil(
        async () => /(re-)?plugged o-hm0[ :]/.test(output.slice(logBefore)),
        `the agent's log of the re-plug (${output})`,
      );
      const sent = encodeHeartbeat({ id: randomUUID(), seq: 50, ver: 3, listeners: {}, pools: {} }, heartbeatKey);
      await deliverUdp(lab(), scratch(), amphora(), node('node2'), hmAddress('node2'), sent);
    } finally {
      agent.kill('SIGTERM');
      await exited;
    }
  });

  it('a binding:host_id that is not the chassis name (an FQDN) leaves the port DOWN; the agent says why and fixes it', async () => {
    const portId = made.ports.get('node1').id;
    const r = await api.admin.put(`/v2.0/ports/${portId}`, { port: { 'binding:host_id': 'node1.example.com' } });
    assert.equal(r.status, 200, r.text);
    // What every other tool leaves behind: OVN will not claim a port requested for another chassis.
    await pollUntil(
      async () => (await api.admin.get(`/v2.0/ports/${portId}`)).body.port.status === 'DOWN',
      'the port DOWN under the wrong host',
    );
    const report = await agentPass(lab(), api.url, spec, 'node1');
    assert.ok(
      report.actions.some((a) => a.startsWith('binding:host_id "node1.example.com" → node1')),
      report.actions.join('; '),
    );
    await agentReady(lab(), api.url, spec, 'node1');
    assert.equal((await api.admin.get(`/v2.0/ports/${portId}`)).body.port['binding:host_id'], 'node1');
  });

  it('drift is repaired: a lost interface (OVS restart) is re-plugged, a changed MAC and MTU set back, stray addresses and routes removed', async () => {
    await check(lab(), [...node('node1'), 'ovs-vsctl', 'del-port', 'o-hm0']);
    // vswitchd itself re-applies `mac` and `mtu_request` to the link, so the drift that matters is
    // in OVSDB (another tool rewrote the interface), which vswitchd then carries to the link.
    await check(lab(), [
      ...node('node2'),
      'ovs-vsctl',
      'set',
      'Interface',
      'o-hm0',
      'mtu_request=1300',
      'mac="02:00:00:00:00:99"',
      'external_ids:attached-mac="02:00:00:00:00:99"',
    ]);
    const gone = await lab().exec([...amphora(), 'ping', '-c', '1', '-W', '1', hmAddress('node1')]);
    assert.notEqual(gone.code, 0, 'node1 does not answer without its interface');
    const replugged = await agentPass(lab(), api.url, spec, 'node1');
    assert.ok(
      replugged.actions.some((a) => a.startsWith('plugged o-hm0')),
      replugged.actions.join('; '),
    );
    const repaired = await agentPass(lab(), api.url, spec, 'node2');
    assert.ok(
      repaired.actions.some((a) => /^repaired o-hm0 in OVS: .*attached-mac.*mtu_request.*mac/.test(a)),
      repaired.actions.join('; '),
    );
    const [link] = JSON.parse(await check(lab(), [...node('node2'), 'ip', '-j', 'link', 'show', 'o-hm0']));
    assert.equal(link.address, made.ports.get('node2').mac_address);
    assert.equal(link.mtu, mtu);
    await agentReady(lab(), api.url, spec, 'node1');
    await agentReady(lab(), api.url, spec, 'node2');
    // And what a DHCP client or an operator might leave on the interface: an address and a route
    // that do not come from the port; the agent owns the interface's addresses and routes.
    await check(lab(), [...node('node1'), 'ip', 'addr', 'add', '172.25.0.9/24', 'dev', 'o-hm0']);
    await check(lab(), [...node('node1'), 'ip', 'route', 'add', '10.99.0.0/16', 'via', '172.24.0.200', 'dev', 'o-hm0']);
    const cleaned = await agentPass(lab(), api.url, spec, 'node1');
    assert.deepEqual(cleaned.actions, [
      'configured o-hm0: address 172.25.0.9/24 removed, route 10.99.0.0/16 via 172.24.0.200 removed',
    ]);
    for (const name of CONTROLLERS) {
      const sent = encodeHeartbeat({ id: randomUUID(), seq: 100, ver: 3, listeners: {}, pools: {} }, heartbeatKey);
      await deliverUdp(lab(), scratch(), amphora(), node(name), hmAddress(name), sent);
    }
  });

  it('a node removed from the spec loses its port and its interface, and stops answering', async () => {
    const leaving = made.ports.get('node2');
    const smaller = mgmtSpec('per-node-ports', ['node1']);
    const after = await applyMgmtSpec(api.admin, smaller);
    assert.deepEqual([...after.ports.keys()], ['node1']);
    assert.equal((await api.admin.get(`/v2.0/ports/${leaving.id}`)).status, 404);
    const report = await agentPass(lab(), api.url, smaller, 'node2');
    assert.ok(
      report.actions.some((a) => a.startsWith('unplugged o-hm0')),
      report.actions.join('; '),
    );
    assert.equal(report.conditions.find((c) => c.type === 'PortBound')?.reason, 'PortNotFound');
    const left = await lab().exec([...node('node2'), 'ovs-vsctl', 'find', 'Interface', 'name=o-hm0']);
    assert.equal(left.stdout.trim(), '', 'no o-hm0 left in OVS');
    const silent = await lab().exec([...amphora(), 'ping', '-c', '2', '-i', '0.2', '-W', '1', ipOf(leaving)]);
    assert.notEqual(silent.code, 0, 'the old address does not answer');
    // The one that stays still works.
    await pollUntil(
      async () => (await lab().exec([...amphora(), 'ping', '-c', '1', '-W', '1', hmAddress('node1')])).code === 0,
      'node1 still answers',
    );
  });
});

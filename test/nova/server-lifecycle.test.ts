/**
 * The real Nova (Debian's Zed nova-api, conductor, scheduler and fake-driver computes) booting,
 * changing, moving and deleting servers on octonet, with the `openstack` client as an operator
 * runs it. Nova binds the ports itself (binding:host_id = the chosen node's chassis); the lab
 * plugs a VM into the port as os-vif would; octonet's notifier tells Nova, and Nova's own log shows
 * it accepted the event.
 *
 * What the fake driver cannot do, and how it is tested instead: it never waits for
 * `network-vif-plugged` at boot (nova/virt/fake.py `spawn`), so a server goes ACTIVE before its port
 * does; the event is then checked in Nova's log ("Creating event ...", and the compute's "Received
 * unexpected event") rather than by a boot that would time out without it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Json } from '../fixtures/json.js';
import { createOutsideNetwork, notRoot, pollUntil } from '../lab/lab-fixture.js';
import { useNovaSuite } from './nova-fixture.js';

describe('real Nova on octonet: boot, plug, events, live migration, delete', { skip: notRoot }, () => {
  const suite = useNovaSuite('nova', 2);
  const { nova } = suite;
  let network: Json;
  let server: Json;
  let port: Json;

  const novaAccepted = (event: string, portId: string, serverId: string) =>
    nova.apiLog().includes(`Creating event ${event}:${portId} for instance ${serverId}`);
  const serverHost = async (id: string): Promise<string> =>
    (await nova.call('GET', `/servers/${id}`)).body.server['OS-EXT-SRV-ATTR:host'];
  const getPort = async (id: string): Promise<Json> => {
    const r = await (await suite.admin()).get(`/v2.0/ports/${id}`);
    assert.equal(r.status, 200, r.text);
    return r.body.port;
  };

  before(async () => {
    network = await suite.openstack('memberA', ['network', 'create', 'nova-net']);
    await suite.openstack('memberA', [
      'subnet',
      'create',
      '--network',
      network.id,
      '--subnet-range',
      '10.20.0.0/24',
      'nova-subnet',
    ]);
  });

  it('openstack server create --nic net-id=N goes ACTIVE, and Nova bound its port to the chosen node', async () => {
    server = await suite.openstack('memberA', [
      'server',
      'create',
      '--flavor',
      nova.flavorId,
      '--image',
      nova.imageId,
      '--nic',
      `net-id=${network.id}`,
      '--wait',
      'vm1',
    ]);
    assert.equal(server.status, 'ACTIVE');
    const host = await serverHost(server.id);
    assert.match(host, /^node[12]$/);
    const ports = (await (await suite.admin()).get(`/v2.0/ports?device_id=${server.id}`)).body.ports;
    assert.equal(ports.length, 1);
    port = ports[0];
    assert.equal(port['binding:host_id'], host, 'Nova bound the port to the node it chose');
    assert.equal(port.device_owner, 'compute:nova');
    assert.equal(port['binding:vif_type'], 'ovs', 'the node is a live chassis');
    assert.equal(port.network_id, network.id);
    assert.equal(port.status, 'DOWN', 'nothing is plugged yet: the fake driver plugs nothing');
  });

  it('a VM plugged into the port as os-vif does makes it ACTIVE, and Nova accepts network-vif-plugged', async () => {
    const host = port['binding:host_id'];
    await suite.lab().createVm({ node: host, port: port.id, name: 'vm1' });
    await pollUntil(async () => (await getPort(port.id)).status === 'ACTIVE', 'the port ACTIVE');
    await suite.waitDelivered(port.id, 'network-vif-plugged');
    await pollUntil(async () => novaAccepted('network-vif-plugged', port.id, server.id), "nova-api's log of the event");
    await pollUntil(
      async () => nova.computeLog(host).includes(`network-vif-plugged-${port.id}`),
      `nova-compute on ${host} receiving the event`,
    );
  });

  it('server add port / remove port: Nova binds the port (network-changed accepted), then unbinds it', async () => {
    const member = await suite.memberA();
    const extra = (await member.post('/v2.0/ports', { port: { network_id: network.id, name: 'extra' } })).body.port;
    await suite.openstackOk('memberA', ['server', 'add', 'port', server.id, extra.id]);
    const bound = await getPort(extra.id);
    assert.equal(bound.device_id, server.id);
    assert.equal(bound.device_owner, 'compute:nova');
    assert.equal(bound['binding:host_id'], port['binding:host_id'], "bound to the server's node");
    await suite.waitDelivered(extra.id, 'network-changed');
    await suite.openstackOk('memberA', ['server', 'remove', 'port', server.id, extra.id]);
    await pollUntil(async () => (await getPort(extra.id)).device_id === '', 'the port released by Nova');
    const released = await getPort(extra.id);
    assert.equal(released['binding:host_id'], '');
    const attached = (await nova.call('GET', `/servers/${server.id}/os-interface`)).body.interfaceAttachments;
    assert.deepEqual(
      attached.map((a: Json) => a.port_id),
      [port.id],
      'Nova lists only the boot port again',
    );
  });

  it('server add / remove floating ip: Nova sets the association and accepts network-changed each time', async () => {
    const admin = await suite.admin();
    const { network: external } = await createOutsideNetwork(admin);
    const member = await suite.memberA();
    const router = (
      await member.post('/v2.0/routers', {
        router: { name: 'r', external_gateway_info: { network_id: external.id } },
      })
    ).body.router;
    const subnetId = port.fixed_ips[0].subnet_id;
    const iface = await member.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnetId });
    assert.equal(iface.status, 200, iface.text);
    const fip = (await member.post('/v2.0/floatingips', { floatingip: { floating_network_id: external.id } })).body
      .floatingip;
    const changed = () => suite.delivered(port.id).filter((e) => e === 'network-changed').length;
    const before = changed();
    await suite.openstackOk('memberA', ['server', 'add', 'floating', 'ip', server.id, fip.floating_ip_address]);
    const associated = (await member.get(`/v2.0/floatingips/${fip.id}`)).body.floatingip;
    assert.equal(associated.port_id, port.id);
    await pollUntil(async () => changed() > before, 'network-changed for the association');
    const between = changed();
    await suite.openstackOk('memberA', ['server', 'remove', 'floating', 'ip', server.id, fip.floating_ip_address]);
    assert.equal((await member.get(`/v2.0/floatingips/${fip.id}`)).body.floatingip.port_id, null);
    await pollUntil(async () => changed() > between, 'network-changed for the disassociation');
  });

  it('a live migration to the other node moves the binding, and the port is ACTIVE there once plugged', async () => {
    const source = port['binding:host_id'];
    const target = source === 'node1' ? 'node2' : 'node1';
    await suite.openstackOk('cloudAdmin', [
      '--os-compute-api-version',
      '2.30',
      'server',
      'migrate',
      '--live-migration',
      '--host',
      target,
      '--wait',
      server.id,
    ]);
    const migrations = await nova.call('GET', `/os-migrations?instance_uuid=${server.id}`, undefined, '2.59');
    assert.equal(
      await serverHost(server.id),
      target,
      `the server is on ${target}: ${JSON.stringify(migrations.body)}\n${nova.problems()}`,
    );
    await pollUntil(async () => (await getPort(port.id))['binding:host_id'] === target, `the port bound to ${target}`);
    const bindings = (await (await suite.admin()).get(`/v2.0/ports/${port.id}/bindings`)).body.bindings;
    assert.deepEqual(
      bindings.map((b: Json) => [b.host, b.status]),
      [[target, 'ACTIVE']],
      "the source's binding is gone, the target's is active",
    );
    // binding-extended: Nova's conductor made the target's binding, the source activated it, the
    // target deleted the source's (nova/network/neutron.py bind_ports_to_host, activate_port_binding,
    // _delete_port_bindings).
    const calls = suite.api
      .logs()
      .filter((line) => line.msg === 'request' && String(line.url).includes(`/ports/${port.id}/bindings`))
      .map(
        (line) =>
          `${String(line.method)} ${String(line.url).replace(`/v2.0/ports/${port.id}`, '')} ${String(line.status)}`,
      );
    assert.ok(calls.includes('POST /bindings 201'), calls.join('\n'));
    assert.ok(calls.includes(`PUT /bindings/${target}/activate 200`), calls.join('\n'));
    assert.ok(calls.includes(`DELETE /bindings/${source} 204`), calls.join('\n'));
    const profile = (await getPort(port.id))['binding:profile'];
    assert.equal(profile.migrating_to, undefined, 'Nova cleared migrating_to');
    // os-vif on the target plugs the VM there; the source's tap goes with the old VM.
    await suite.lab().deleteVm('vm1');
    await suite.lab().createVm({ node: target, port: port.id, name: 'vm1-moved', dhcp: false });
    await pollUntil(async () => (await getPort(port.id)).status === 'ACTIVE', `the port ACTIVE on ${target}`);
    const chassis = await suite
      .lab()
      .sbctl('--bare', '--columns=chassis', 'find', 'Port_Binding', `logical_port=${port.id}`);
    const name = await suite.lab().sbctl('--bare', '--columns=name', 'list', 'Chassis', chassis);
    assert.equal(name, target, 'OVN has the port on the target chassis');
  });

  it('openstack server delete removes its port, and octonet tells Nova network-vif-deleted', async () => {
    for (const vm of (await suite.lab().status()).vms) await suite.lab().deleteVm(vm.name);
    await suite.openstackOk('memberA', ['server', 'delete', '--wait', server.id]);
    const r = await (await suite.admin()).get(`/v2.0/ports/${port.id}`);
    assert.equal(r.status, 404, 'Nova deleted the port it made');
    // Nova accepts it while the server is being deleted (200, logged), or answers 404 once it is
    // gone (normal, counted); either way Nova answered it.
    const answered = async () => {
      if (suite.delivered(port.id).includes('network-vif-deleted')) return true;
      const metrics = await (await fetch(`${suite.api.url}/metrics`)).text();
      return /octonet_nova_events_sent_total\{name="network-vif-deleted",code="404"\} [1-9]/.test(metrics);
    };
    await pollUntil(answered, 'Nova answering network-vif-deleted');
  });
});

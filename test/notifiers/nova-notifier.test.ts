/**
 * Nova's port events end to end: an octonet API server configured with a `nova:` section sends
 * them to a STAND-IN Nova, authenticated at a STAND-IN Keystone token endpoint (both in
 * stand-in-nova.ts): one event per status transition and per API change of a compute port, with
 * Neutron's names, statuses and tags; microversion 2.1 and the token from the catalog's public
 * RegionOne compute endpoint; a 500 retried, a 404 dropped, a 207's per-event codes logged; and no
 * API request waits for Nova (a Nova that does not answer holds up nothing).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MechanismDriver, PortBinding } from '../../src/drivers/contract.js';
import { startApi, type TestApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { StandInKeystone, StandInNova } from './stand-in-nova.js';

/** Binds every host, as the OVN driver binds a host with a live chassis (so a port can go ACTIVE). */
const binder: MechanismDriver = {
  name: 'test-binder',
  bindPort: (): PortBinding => ({ vifType: 'ovs', vifDetails: { port_filter: true, connectivity: 'l2' } }),
};

describe('Nova notifier (stand-in Nova and Keystone)', () => {
  const nova = new StandInNova();
  const keystone = new StandInKeystone(() => nova.url);
  let api: TestApi & { close(): Promise<void> };
  let networkId = '';

  before(async () => {
    await nova.start();
    await keystone.start();
    const dir = mkdtempSync(join(tmpdir(), 'octonet-nova-'));
    writeFileSync(join(dir, 'nova-password'), 'nova-secret\n');
    api = await startApi('sqlite', {
      config: {
        nova: {
          auth_url: keystone.url,
          password_file: join(dir, 'nova-password'),
          region_name: 'RegionOne',
          send_events_interval: 0.05,
        },
      },
      drivers: [binder],
    });
    const net = await api.admin.post('/v2.0/networks', { network: { name: 'n' } });
    networkId = (net.body as { network: { id: string } }).network.id;
    await api.admin.post('/v2.0/subnets', { subnet: { network_id: networkId, cidr: '10.0.0.0/24', ip_version: 4 } });
  });
  after(async () => {
    await api.close();
    await nova.stop();
    await keystone.stop();
  });

  async function computePort(extra: Record<string, Json> = {}): Promise<{ id: string; server: string }> {
    const server = randomUUID();
    const r = await api.admin.post('/v2.0/ports', {
      port: {
        network_id: networkId,
        device_id: server,
        device_owner: 'compute:nova',
        'binding:host_id': 'node1',
        ...extra,
      },
    });
    assert.equal(r.status, 201, r.text);
    return { id: (r.body as { port: { id: string } }).port.id, server };
  }

  const eventsOf = (tag: string) => nova.events.filter((e) => e.tag === tag);

  it('sends plugged, unplugged and deleted for a compute port, with the token and microversion 2.1', async () => {
    const { id, server } = await computePort();
    await api.server.services.ports.reportUp(id, true);
    await nova.until(() => eventsOf(id).length >= 1);
    await api.server.services.ports.reportUp(id, false);
    await nova.until(() => eventsOf(id).length >= 2);
    assert.equal((await api.admin.delete(`/v2.0/ports/${id}`)).status, 204);
    await nova.until(() => eventsOf(id).length >= 3);
    assert.deepEqual(eventsOf(id), [
      { name: 'network-vif-plugged', server_uuid: server, tag: id, status: 'completed' },
      { name: 'network-vif-unplugged', server_uuid: server, tag: id, status: 'completed' },
      { name: 'network-vif-deleted', server_uuid: server, tag: id },
    ]);
    const post = nova.posts.find((p) => p.events.some((e) => e.tag === id))!;
    assert.equal(post.headers['x-auth-token'], 'stand-in-token');
    assert.equal(post.headers['x-openstack-nova-api-version'], '2.1');
    assert.deepEqual(keystone.logins[0], { user: 'nova', password: 'nova-secret', project: 'service' });
  });

  it('sends network-changed on an API update of a compute port, nothing for other ports', async () => {
    const other = (await api.admin.post('/v2.0/ports', { port: { network_id: networkId, device_id: randomUUID() } }))
      .body as { port: { id: string } };
    await api.admin.put(`/v2.0/ports/${other.port.id}`, { port: { name: 'not-nova' } });
    const { id, server } = await computePort();
    const r = await api.admin.put(`/v2.0/ports/${id}`, { port: { fixed_ips: [{ ip_address: '10.0.0.77' }] } });
    assert.equal(r.status, 200, r.text);
    await nova.until(() => eventsOf(id).length >= 1);
    assert.deepEqual(eventsOf(id), [{ name: 'network-changed', server_uuid: server, tag: id }]);
    // Events keep their order, so the other port's would have come first.
    assert.deepEqual(eventsOf(other.port.id), []);
  });

  it('sends network-changed for the ports a floating IP is associated with, moved from and released by', async () => {
    const ext = (await api.admin.post('/v2.0/networks', { network: { name: 'pub', 'router:external': true } })).body
      .network;
    await api.admin.post('/v2.0/subnets', { subnet: { network_id: ext.id, cidr: '192.0.2.0/24', ip_version: 4 } });
    const subnetId = (await api.admin.get(`/v2.0/subnets?network_id=${networkId}`)).body.subnets[0].id;
    const router = (
      await api.admin.post('/v2.0/routers', { router: { name: 'r', external_gateway_info: { network_id: ext.id } } })
    ).body.router;
    assert.equal(
      (await api.admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnetId })).status,
      200,
    );
    const first = await computePort();
    const second = await computePort();
    let r = await api.admin.post('/v2.0/floatingips', {
      floatingip: { floating_network_id: ext.id, port_id: first.id },
    });
    assert.equal(r.status, 201, r.text);
    const fip = r.body.floatingip.id;
    await nova.until(() => eventsOf(first.id).length >= 1);
    r = await api.admin.put(`/v2.0/floatingips/${fip}`, { floatingip: { port_id: second.id } });
    assert.equal(r.status, 200, r.text);
    await nova.until(() => eventsOf(second.id).length >= 1);
    assert.equal((await api.admin.delete(`/v2.0/floatingips/${fip}`)).status, 204);
    await nova.until(() => eventsOf(second.id).length >= 2);
    const changed = (tag: string, server: string) => ({ name: 'network-changed', server_uuid: server, tag });
    assert.deepEqual(eventsOf(first.id), [changed(first.id, first.server), changed(first.id, first.server)]);
    assert.deepEqual(eventsOf(second.id), [changed(second.id, second.server), changed(second.id, second.server)]);
  });

  it('retries a 500 and counts it; drops a 404 without retrying', async () => {
    nova.answers.push({ status: 500 });
    const first = await computePort();
    const before = nova.posts.length;
    await api.server.services.ports.reportUp(first.id, true);
    await nova.until(() => eventsOf(first.id).length >= 2);
    assert.equal(nova.posts.length - before, 2, 'the same batch twice');
    const metrics = (await api.admin.get('/metrics')).text;
    assert.match(metrics, /octonet_nova_event_retries_total 1\b/);

    nova.answers.push({ status: 404 });
    const second = await computePort();
    await api.server.services.ports.reportUp(second.id, true);
    await nova.until(() => eventsOf(second.id).length >= 1);
    // Another event after it proves nothing else was sent for the 404.
    const third = await computePort();
    await api.server.services.ports.reportUp(third.id, true);
    await nova.until(() => eventsOf(third.id).length >= 1);
    assert.equal(eventsOf(second.id).length, 1);
    assert.match(
      (await api.admin.get('/metrics')).text,
      /octonet_nova_events_sent_total\{name="network-vif-plugged",code="404"\} 1\b/,
    );
  });

  it("logs a 207's per-event codes with the port and the server", async () => {
    nova.answers.push({ status: 207, codes: [422] });
    const { id, server } = await computePort();
    await api.server.services.ports.reportUp(id, true);
    await nova.until(() => eventsOf(id).length >= 1);
    // The answer is handled after the stand-in recorded it: the next event's delivery follows it.
    const next = await computePort();
    await api.server.services.ports.reportUp(next.id, true);
    await nova.until(() => eventsOf(next.id).length >= 1);
    await new Promise((resolve) => setImmediate(resolve));
    const lines = api.logs().filter((l) => l.port === id);
    assert.ok(
      lines.some((l) => l.msg === 'nova: event returned with failed status' && l.code === 422 && l.server === server),
      JSON.stringify(lines),
    );
  });

  it('answers API requests while Nova holds its answer', async () => {
    nova.answers.push('hold');
    const { id } = await computePort();
    const sent = nova.posts.length;
    await api.server.services.ports.reportUp(id, true);
    await nova.until(() => nova.posts.length > sent);
    // Nova has not answered: the API still does, and the events it queues go out in their turn.
    const r = await api.admin.put(`/v2.0/ports/${id}`, { port: { name: 'renamed' } });
    assert.equal(r.status, 200);
    assert.equal((await api.admin.delete(`/v2.0/ports/${id}`)).status, 204);
    nova.release();
    await nova.until(() => eventsOf(id).length >= 3);
    assert.deepEqual(
      eventsOf(id).map((e) => e.name),
      ['network-vif-plugged', 'network-changed', 'network-vif-deleted'],
    );
  });
});

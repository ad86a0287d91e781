/**
 * The real `openstack` CLI (Debian's python3-neutronclient plugin) driving neutron-dynamic-routing's
 * API on octonet, as operators script it: address scopes and a scoped subnet pool, `bgp speaker
 * create/list/show/set/delete`, `bgp peer create/list/show/set/delete`, `bgp speaker add/remove
 * peer`, `add/remove network`, `list advertised routes`, `show dragents`, and `bgp dragent list`
 * (agents from a fake driver: no OVN here). Results are read back over HTTP.
 *
 * One sequence on SQLite: each call costs about a second of Python start-up.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { fakeDrAgents } from '../fixtures/fake-dr-agents.js';
import { OpenstackCli } from '../fixtures/openstack-cli.js';
import type { Json } from '../fixtures/json.js';

describe('openstack CLI: BGP dynamic routing', { concurrency: 1 }, () => {
  const fake = fakeDrAgents();
  const api = useApi('sqlite', { drivers: [fake.driver] });
  let cli: OpenstackCli;
  let speaker: Json;
  let peer: Json;
  let fipAddress: string;
  let gatewayIp: string;

  before(() => {
    cli = new OpenstackCli(api.url);
  });

  it('creates an address scope and a subnet pool in it', async () => {
    const scope = await cli.json(['address', 'scope', 'create', '--ip-version', '4', 'public-scope']);
    assert.equal(scope.ip_version, 4);
    assert.equal(scope.name, 'public-scope');
    const pool = await cli.json([
      ...['subnet', 'pool', 'create'],
      ...['--address-scope', 'public-scope'],
      ...['--pool-prefix', '198.18.0.0/16', '--pool-prefix', '10.90.0.0/16'],
      'scoped-pool',
    ]);
    assert.equal(pool.address_scope_id, scope.id);
  });

  it('sets up a router with a floating IP and an in-scope tenant subnet (over HTTP)', async () => {
    const { admin } = api;
    const pool = (await admin.get('/v2.0/subnetpools?name=scoped-pool')).body.subnetpools[0];
    const ext = (await admin.post('/v2.0/networks', { network: { name: 'public', 'router:external': true } })).body
      .network;
    await admin.post('/v2.0/subnets', {
      subnet: { network_id: ext.id, ip_version: 4, subnetpool_id: pool.id, cidr: '198.18.0.0/24' },
    });
    const tenant = (await admin.post('/v2.0/networks', { network: { name: 'private' } })).body.network;
    const subnet = (
      await admin.post('/v2.0/subnets', {
        subnet: { network_id: tenant.id, ip_version: 4, subnetpool_id: pool.id, cidr: '10.90.1.0/24' },
      })
    ).body.subnet;
    const router = (
      await admin.post('/v2.0/routers', { router: { name: 'r', external_gateway_info: { network_id: ext.id } } })
    ).body.router;
    gatewayIp = router.external_gateway_info.external_fixed_ips[0].ip_address;
    await admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
    const port = (await admin.post('/v2.0/ports', { port: { network_id: tenant.id } })).body.port;
    const fip = await admin.post('/v2.0/floatingips', {
      floatingip: { floating_network_id: ext.id, port_id: port.id },
    });
    assert.equal(fip.status, 201, fip.text);
    fipAddress = fip.body.floatingip.floating_ip_address;
  });

  it('creates a speaker and a peer; the password is never shown', async () => {
    speaker = await cli.json(['bgp', 'speaker', 'create', '--local-as', '65001', '--ip-version', '4', 'sp1']);
    assert.equal(speaker.local_as, 65001);
    assert.equal(speaker.advertise_floating_ip_host_routes, true);
    peer = await cli.json([
      ...['bgp', 'peer', 'create', '--peer-ip', '192.0.2.1', '--remote-as', '65100'],
      ...['--auth-type', 'md5', '--password', 's3cret', 'peer1'],
    ]);
    assert.equal(peer.peer_ip, '192.0.2.1');
    assert.equal('password' in peer, false);
    const peers = await cli.json(['bgp', 'peer', 'list']);
    assert.deepEqual(peers, [{ ID: peer.id, Name: 'peer1', 'Peer IP': '192.0.2.1', 'Remote AS': 65100 }]);
    await cli.ok(['bgp', 'peer', 'set', '--name', 'upstream', 'peer1']);
    const shown = await cli.json(['bgp', 'peer', 'show', 'upstream']);
    assert.equal(shown.name, 'upstream');
    assert.equal(shown.auth_type, 'md5');
  });

  it('binds the peer and the gateway network and lists the advertised routes', async () => {
    await cli.ok(['bgp', 'speaker', 'add', 'peer', 'sp1', 'upstream']);
    await cli.ok(['bgp', 'speaker', 'add', 'network', 'sp1', 'public']);
    const shown = await cli.json(['bgp', 'speaker', 'show', 'sp1']);
    assert.deepEqual(shown.peers, [peer.id]);
    assert.equal(shown.networks.length, 1);
    const routes = await cli.json(['bgp', 'speaker', 'list', 'advertised', 'routes', 'sp1']);
    assert.deepEqual(routes, [
      { Destination: `${fipAddress}/32`, Nexthop: gatewayIp },
      { Destination: '10.90.1.0/24', Nexthop: gatewayIp },
    ]);
    const listed = await cli.json(['bgp', 'speaker', 'list']);
    assert.deepEqual(listed, [{ ID: speaker.id, Name: 'sp1', 'Local AS': 65001, 'IP Version': 4 }]);
  });

  it('shows the DR agent hosting the speaker', async () => {
    const agents = await cli.json(['bgp', 'speaker', 'show', 'dragents', 'sp1']);
    assert.equal(agents.length, 1);
    assert.ok([fake.ids.first, fake.ids.second].includes(agents[0].ID));
    const all = await cli.json(['bgp', 'dragent', 'list']);
    assert.deepEqual(all.map((a: Json) => a.ID).sort(), [fake.ids.first, fake.ids.second].sort());
  });

  it('changes the speaker flags with bgp speaker set', async () => {
    await cli.ok(['bgp', 'speaker', 'set', '--no-advertise-floating-ip-host-routes', '--name', 'sp-1', 'sp1']);
    const body = (await api.admin.get(`/v2.0/bgp-speakers/${speaker.id}`)).body.bgp_speaker;
    assert.equal(body.name, 'sp-1');
    assert.equal(body.advertise_floating_ip_host_routes, false);
    const routes = await cli.json(['bgp', 'speaker', 'list', 'advertised', 'routes', 'sp-1']);
    assert.deepEqual(routes, [{ Destination: '10.90.1.0/24', Nexthop: gatewayIp }]);
  });

  it('unbinds and deletes', async () => {
    await cli.ok(['bgp', 'speaker', 'remove', 'peer', 'sp-1', 'upstream']);
    await cli.ok(['bgp', 'speaker', 'remove', 'network', 'sp-1', 'public']);
    const body = (await api.admin.get(`/v2.0/bgp-speakers/${speaker.id}`)).body.bgp_speaker;
    assert.deepEqual([body.peers, body.networks], [[], []]);
    const again = await cli.fails(['bgp', 'speaker', 'remove', 'peer', 'sp-1', 'upstream']);
    assert.match(again.stderr, /is not associated with BGP speaker/);
    await cli.ok(['bgp', 'peer', 'delete', 'upstream']);
    await cli.ok(['bgp', 'speaker', 'delete', 'sp-1']);
    assert.deepEqual((await api.admin.get('/v2.0/bgp-speakers')).body, { bgp_speakers: [] });
  });
});

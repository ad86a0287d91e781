/**
 * neutron-dynamic-routing's API over HTTP, on both databases: address scopes and the subnet pools
 * that join them; bgp-speakers and bgp-peers with n-d-r's bodies, defaults and errors; the member
 * actions; advertised routes (floating IP host routes and in-scope tenant subnets, next hop the
 * router gateway); DR agents reported by a driver and the scheduler URLs; policy (admin only); the
 * node agent's service-only hosted-speaker endpoint with the peers' secrets.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { fakeDrAgents } from '../fixtures/fake-dr-agents.js';
import { POLICY_RULES } from '../../src/auth/policy-rules.js';
import { makeContext } from '../../src/core/context.js';

const FAKE = fakeDrAgents();
const DR_AGENT = FAKE.ids.first;
const SECOND_DR_AGENT = FAKE.ids.second;
const CONTROLLER_AGENT = FAKE.ids.controller;

function errorType(r: { body: Json }): string {
  return r.body?.NeutronError?.type;
}

for (const backend of BACKENDS) {
  describe(`BGP API (${backend})`, () => {
    const api = useApi(backend, { drivers: [FAKE.driver] });
    const MEMBER_PROJECT = newProjectId();
    let admin: Client;
    let member: Client;
    let speaker: Json;
    let peer: Json;

    before(() => {
      admin = api.admin;
      member = api.as({ project: MEMBER_PROJECT });
    });

    it('advertises the extensions n-d-r does', async () => {
      for (const alias of ['bgp', 'bgp_dragent_scheduler', 'bgp_4byte_asn', 'address-scope']) {
        assert.equal((await admin.get(`/v2.0/extensions/${alias}`)).status, 200, alias);
      }
    });

    it('creates a speaker with n-d-r defaults, a 4-byte AS, and schedules it to a DR agent', async () => {
      const r = await admin.post('/v2.0/bgp-speakers', {
        bgp_speaker: { name: 's', local_as: 4200000000, ip_version: 4 },
      });
      assert.equal(r.status, 201, r.text);
      speaker = r.body.bgp_speaker;
      assert.equal(speaker.local_as, 4200000000);
      assert.equal(speaker.ip_version, 4);
      assert.equal(speaker.advertise_floating_ip_host_routes, true);
      assert.equal(speaker.advertise_tenant_networks, true);
      assert.deepEqual(speaker.peers, []);
      assert.deepEqual(speaker.networks, []);
      assert.equal(speaker.tenant_id, speaker.project_id);
      const hosts = await admin.get(`/v2.0/bgp-speakers/${speaker.id}/bgp-dragents`);
      assert.equal(hosts.status, 200);
      assert.equal(hosts.body.agents.length, 1);
      assert.equal(hosts.body.agents[0].agent_type, 'BGP dynamic routing agent');
    });

    it('refuses what n-d-r refuses on create and update', async () => {
      const noAs = await admin.post('/v2.0/bgp-speakers', { bgp_speaker: { name: 'x', ip_version: 4 } });
      assert.equal(noAs.status, 400);
      assert.match(noAs.body.NeutronError.message, /Invalid input for local_as/);
      const bigAs = await admin.post('/v2.0/bgp-speakers', {
        bgp_speaker: { name: 'x', ip_version: 4, local_as: 4294967296 },
      });
      assert.equal(bigAs.status, 400);
      const badVersion = await admin.post('/v2.0/bgp-speakers', { bgp_speaker: { local_as: 65000, ip_version: 5 } });
      assert.equal(badVersion.status, 400);
      const fixed = await admin.put(`/v2.0/bgp-speakers/${speaker.id}`, { bgp_speaker: { local_as: 65001 } });
      assert.equal(fixed.status, 400);
      assert.match(fixed.body.NeutronError.message, /Cannot update read-only attribute local_as/);
      const renamed = await admin.put(`/v2.0/bgp-speakers/${speaker.id}`, {
        bgp_speaker: { name: 'renamed', advertise_tenant_networks: false },
      });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.bgp_speaker.name, 'renamed');
      assert.equal(renamed.body.bgp_speaker.advertise_tenant_networks, false);
      await admin.put(`/v2.0/bgp-speakers/${speaker.id}`, { bgp_speaker: { advertise_tenant_networks: true } });
      const missing = await admin.get(`/v2.0/bgp-speakers/${randomUUID()}`);
      assert.equal(missing.status, 404);
      assert.equal(errorType(missing), 'BgpSpeakerNotFound');
    });

    it('creates peers, never shows the password, and guards MD5', async () => {
      const noPassword = await admin.post('/v2.0/bgp-peers', {
        bgp_peer: { name: 'p', peer_ip: '192.0.2.1', remote_as: 65100, auth_type: 'md5' },
      });
      assert.equal(noPassword.status, 400);
      assert.equal(errorType(noPassword), 'InvalidBgpPeerMd5Authentication');
      const r = await admin.post('/v2.0/bgp-peers', {
        bgp_peer: { name: 'p', peer_ip: '192.0.2.1', remote_as: 65100, auth_type: 'md5', password: 's3cret' },
      });
      assert.equal(r.status, 201, r.text);
      peer = r.body.bgp_peer;
      assert.equal('password' in peer, false);
      assert.deepEqual([peer.peer_ip, peer.remote_as, peer.auth_type, peer.name], ['192.0.2.1', 65100, 'md5', 'p']);
      const shown = await admin.get(`/v2.0/bgp-peers/${peer.id}`);
      assert.equal('password' in shown.body.bgp_peer, false);
      assert.equal(shown.text.includes('s3cret'), false);
      const plain = (
        await admin.post('/v2.0/bgp-peers', {
          bgp_peer: { name: 'plain', peer_ip: '192.0.2.2', remote_as: 65100, auth_type: 'none' },
        })
      ).body.bgp_peer;
      const notAuth = await admin.put(`/v2.0/bgp-peers/${plain.id}`, { bgp_peer: { password: 'x' } });
      assert.equal(notAuth.status, 404);
      assert.equal(errorType(notAuth), 'BgpPeerNotAuthenticated');
      const badAuth = await admin.post('/v2.0/bgp-peers', {
        bgp_peer: { peer_ip: '192.0.2.3', remote_as: 65100, auth_type: 'sha1' },
      });
      assert.equal(badAuth.status, 400);
      assert.equal((await admin.delete(`/v2.0/bgp-peers/${plain.id}`)).status, 204);
    });

    it('binds and unbinds peers with n-d-r answers and conflicts', async () => {
      const url = `/v2.0/bgp-speakers/${speaker.id}`;
      const add = await admin.put(`${url}/add_bgp_peer`, { bgp_peer_id: peer.id });
      assert.equal(add.status, 200, add.text);
      assert.deepEqual(add.body, { bgp_peer_id: peer.id });
      const twin = (
        await admin.post('/v2.0/bgp-peers', {
          bgp_peer: { name: 'twin', peer_ip: '192.0.2.1', remote_as: 65200, auth_type: 'none' },
        })
      ).body.bgp_peer;
      const dup = await admin.put(`${url}/add_bgp_peer`, { bgp_peer_id: twin.id });
      assert.equal(dup.status, 409);
      assert.equal(errorType(dup), 'DuplicateBgpPeerIpException');
      const unknown = await admin.put(`${url}/add_bgp_peer`, { bgp_peer_id: randomUUID() });
      assert.equal(errorType(unknown), 'BgpPeerNotFound');
      const noId = await admin.put(`${url}/add_bgp_peer`, {});
      assert.equal(noId.status, 400);
      assert.match(noId.body.NeutronError.message, /bgp_peer_id must be specified/);
      assert.deepEqual((await admin.get(url)).body.bgp_speaker.peers, [peer.id]);
      const removeTwin = await admin.put(`${url}/remove_bgp_peer`, { bgp_peer_id: twin.id });
      assert.equal(removeTwin.status, 404);
      assert.equal(errorType(removeTwin), 'BgpSpeakerPeerNotAssociated');
      const remove = await admin.put(`${url}/remove_bgp_peer`, { bgp_peer_id: peer.id });
      assert.equal(remove.status, 200);
      assert.equal(remove.text, 'null');
      assert.equal((await admin.put(`${url}/add_bgp_peer`, { bgp_peer_id: peer.id })).status, 200);
    });

    it('manages address scopes and refuses pools that do not fit them', async () => {
      const r = await admin.post('/v2.0/address-scopes', {
        address_scope: { name: 'as4', ip_version: 4, shared: true },
      });
      assert.equal(r.status, 201, r.text);
      const scope = r.body.address_scope;
      assert.deepEqual([scope.name, scope.ip_version, scope.shared], ['as4', 4, true]);
      const v6pool = await admin.post('/v2.0/subnetpools', {
        subnetpool: { name: 'v6', prefixes: ['fd00::/48'], address_scope_id: scope.id },
      });
      assert.equal(v6pool.status, 400);
      assert.equal(errorType(v6pool), 'IllegalSubnetPoolIpVersionAssociationToAddressScope');
      const pool = await admin.post('/v2.0/subnetpools', {
        subnetpool: { name: 'p1', prefixes: ['10.50.0.0/16'], address_scope_id: scope.id },
      });
      assert.equal(pool.status, 201, pool.text);
      assert.equal(pool.body.subnetpool.address_scope_id, scope.id);
      const overlap = await admin.post('/v2.0/subnetpools', {
        subnetpool: { name: 'p2', prefixes: ['10.50.1.0/24'], address_scope_id: scope.id },
      });
      assert.equal(overlap.status, 409);
      assert.equal(errorType(overlap), 'AddressScopePrefixConflict');
      const inUse = await admin.delete(`/v2.0/address-scopes/${scope.id}`);
      assert.equal(inUse.status, 409);
      assert.equal(errorType(inUse), 'AddressScopeInUse');
      const unshare = await admin.put(`/v2.0/address-scopes/${scope.id}`, { address_scope: { shared: false } });
      assert.equal(unshare.status, 400);
      assert.equal(errorType(unshare), 'AddressScopeUpdateError');
      assert.equal((await member.get(`/v2.0/address-scopes/${scope.id}`)).status, 200, 'shared: members see it');
      const joined = await member.post('/v2.0/subnetpools', {
        subnetpool: { name: 'm', prefixes: ['10.60.0.0/16'], address_scope_id: scope.id },
      });
      assert.equal(joined.status, 201, 'a member may put a pool in a shared scope');
      const locked = await member.put(`/v2.0/subnetpools/${joined.body.subnetpool.id}`, { subnetpool: { name: 'x' } });
      assert.equal(locked.status, 400);
      assert.equal(errorType(locked), 'IllegalSubnetPoolUpdate');
      const privateScope = (await admin.post('/v2.0/address-scopes', { address_scope: { name: 'own', ip_version: 4 } }))
        .body.address_scope;
      const hidden = await member.post('/v2.0/subnetpools', {
        subnetpool: { name: 'h', prefixes: ['10.61.0.0/16'], address_scope_id: privateScope.id },
      });
      assert.equal(hidden.status, 404);
      assert.equal(errorType(hidden), 'AddressScopeNotFound');
      // A network's subnets of one family stay in one scope.
      const plainPool = (
        await admin.post('/v2.0/subnetpools', { subnetpool: { name: 'plain', prefixes: ['10.62.0.0/16'] } })
      ).body.subnetpool;
      const net = (await admin.post('/v2.0/networks', { network: { name: 'scoped' } })).body.network;
      const first = await admin.post('/v2.0/subnets', {
        subnet: { network_id: net.id, ip_version: 4, subnetpool_id: pool.body.subnetpool.id, prefixlen: 24 },
      });
      assert.equal(first.status, 201, first.text);
      const mixed = await admin.post('/v2.0/subnets', {
        subnet: { network_id: net.id, ip_version: 4, subnetpool_id: plainPool.id, prefixlen: 24 },
      });
      assert.equal(mixed.status, 400);
      assert.equal(errorType(mixed), 'NetworkAddressScopeAffinityError');
      const plainNet = (await admin.post('/v2.0/networks', { network: { name: 'plain' } })).body.network;
      await admin.post('/v2.0/subnets', {
        subnet: { network_id: plainNet.id, ip_version: 4, subnetpool_id: plainPool.id, prefixlen: 24 },
      });
      await admin.post('/v2.0/subnets', { subnet: { network_id: plainNet.id, ip_version: 4, cidr: '10.63.0.0/24' } });
      const rescope = await admin.put(`/v2.0/subnetpools/${plainPool.id}`, {
        subnetpool: { address_scope_id: privateScope.id },
      });
      assert.equal(rescope.status, 400, 'the network would have subnets in and out of the scope');
      assert.equal(errorType(rescope), 'NetworkAddressScopeAffinityError');
      const missing = await admin.get(`/v2.0/address-scopes/${randomUUID()}`);
      assert.equal(errorType(missing), 'AddressScopeNotFound');
    });

    it('advertises floating IP host routes and in-scope tenant subnets via the router gateway', async () => {
      const scope = (await admin.post('/v2.0/address-scopes', { address_scope: { name: 'routes', ip_version: 4 } }))
        .body.address_scope;
      const pool = (
        await admin.post('/v2.0/subnetpools', {
          subnetpool: { name: 'rp', prefixes: ['198.18.0.0/16', '10.70.0.0/16'], address_scope_id: scope.id },
        })
      ).body.subnetpool;
      const ext = (await admin.post('/v2.0/networks', { network: { name: 'ext', 'router:external': true } })).body
        .network;
      const extSubnet = await admin.post('/v2.0/subnets', {
        subnet: { network_id: ext.id, ip_version: 4, subnetpool_id: pool.id, cidr: '198.18.0.0/24' },
      });
      assert.equal(extSubnet.status, 201, extSubnet.text);
      const extShown = (await admin.get(`/v2.0/networks/${ext.id}`)).body.network;
      assert.deepEqual([extShown.ipv4_address_scope, extShown.ipv6_address_scope], [scope.id, null]);
      const tenant = (await admin.post('/v2.0/networks', { network: { name: 't' } })).body.network;
      const inScope = (
        await admin.post('/v2.0/subnets', {
          subnet: { network_id: tenant.id, ip_version: 4, subnetpool_id: pool.id, cidr: '10.70.1.0/24' },
        })
      ).body.subnet;
      const other = (await admin.post('/v2.0/networks', { network: { name: 'o' } })).body.network;
      const outOfScope = (
        await admin.post('/v2.0/subnets', { subnet: { network_id: other.id, ip_version: 4, cidr: '10.80.1.0/24' } })
      ).body.subnet;
      const router = (
        await admin.post('/v2.0/routers', { router: { name: 'r', external_gateway_info: { network_id: ext.id } } })
      ).body.router;
      const gatewayIp = router.external_gateway_info.external_fixed_ips[0].ip_address;
      for (const subnet of [inScope, outOfScope]) {
        const r = await admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
        assert.equal(r.status, 200, r.text);
      }
      const port = (await admin.post('/v2.0/ports', { port: { network_id: tenant.id } })).body.port;
      const fip = await admin.post('/v2.0/floatingips', {
        floatingip: { floating_network_id: ext.id, port_id: port.id },
      });
      assert.equal(fip.status, 201, fip.text);
      const url = `/v2.0/bgp-speakers/${speaker.id}`;
      const unbound = await admin.get(`${url}/get_advertised_routes`);
      assert.deepEqual(unbound.body, { advertised_routes: [] });
      const bind = await admin.put(`${url}/add_gateway_network`, { network_id: ext.id });
      assert.equal(bind.status, 200, bind.text);
      assert.deepEqual(bind.body, { network_id: ext.id });
      const again = await admin.put(`${url}/add_gateway_network`, { network_id: ext.id });
      assert.equal(again.status, 409);
      assert.equal(errorType(again), 'BgpSpeakerNetworkBindingError');
      const noNet = await admin.put(`${url}/add_gateway_network`, { network_id: randomUUID() });
      assert.equal(errorType(noNet), 'NetworkNotFound');
      const routes = await admin.get(`${url}/get_advertised_routes`);
      assert.equal(routes.status, 200, routes.text);
      assert.deepEqual(routes.body, {
        advertised_routes: [
          { destination: `${fip.body.floatingip.floating_ip_address}/32`, next_hop: gatewayIp },
          { destination: '10.70.1.0/24', next_hop: gatewayIp },
        ],
      });
      await admin.put(url, { bgp_speaker: { advertise_floating_ip_host_routes: false } });
      const tenantOnly = await admin.get(`${url}/get_advertised_routes`);
      assert.deepEqual(tenantOnly.body.advertised_routes, [{ destination: '10.70.1.0/24', next_hop: gatewayIp }]);
      await admin.put(url, { bgp_speaker: { advertise_floating_ip_host_routes: true } });
      // The node agent's service-only view: the hosting agent's speaker with peer secrets and route origins.
      const hostingAgent = (await admin.get(`${url}/bgp-dragents`)).body.agents[0].id;
      const service = api.as({ project: newProjectId(), roles: ['service'] });
      const served = await service.get(`/v2.0/octonet/bgp-dragents/${hostingAgent}/speakers`);
      assert.equal(served.status, 200, served.text);
      const [hosted] = served.body.bgp_speakers as Json[];
      assert.equal(hosted!.id, speaker.id);
      assert.deepEqual(
        hosted!.peers.map((p: Json) => [p.peer_ip, p.auth_type, p.password]),
        [['192.0.2.1', 'md5', 's3cret']],
      );
      const gatewayPort = (await admin.get(`/v2.0/ports?device_id=${router.id}&device_owner=network:router_gateway`))
        .body.ports[0];
      assert.deepEqual(
        hosted!.advertised_routes.map((r: Json) => [r.kind, r.router_id, r.gateway_port_id, r.fixed_port_id]),
        [
          ['floatingip', router.id, gatewayPort.id, port.id],
          ['tenant_network', router.id, gatewayPort.id, undefined],
        ],
      );
      // noauth's admin (no identity headers, as `bgp-agent --os-url` sends) gets the same.
      const asAdmin = await admin.get(`/v2.0/octonet/bgp-dragents/${hostingAgent}/speakers`);
      assert.deepEqual(asAdmin.body, served.body);
      assert.deepEqual((await admin.get(url)).body.bgp_speaker.networks, [ext.id]);
      const unbind = await admin.put(`${url}/remove_gateway_network`, { network_id: ext.id });
      assert.deepEqual(unbind.body, { network_id: ext.id });
      const unbindAgain = await admin.put(`${url}/remove_gateway_network`, { network_id: ext.id });
      assert.equal(errorType(unbindAgain), 'BgpSpeakerNetworkNotAssociated');
    });

    it('schedules speakers on DR agents through bgp-drinstances', async () => {
      const agentUrl = `/v2.0/agents/${DR_AGENT}/bgp-drinstances`;
      const hosted = await admin.get(agentUrl);
      assert.equal(hosted.status, 200, hosted.text);
      const hosting = (await admin.get(`/v2.0/bgp-speakers/${speaker.id}/bgp-dragents`)).body.agents[0].id;
      const [hostingAgent, idleAgent] =
        hosting === DR_AGENT ? [DR_AGENT, SECOND_DR_AGENT] : [SECOND_DR_AGENT, DR_AGENT];
      const second = (
        await admin.post('/v2.0/bgp-speakers', { bgp_speaker: { name: 's2', local_as: 65000, ip_version: 6 } })
      ).body.bgp_speaker;
      const busy = await admin.post(`/v2.0/agents/${hostingAgent}/bgp-drinstances`, { bgp_speaker_id: second.id });
      assert.equal(busy.status, 409);
      assert.equal(errorType(busy), 'DrAgentAssociationError');
      const notDr = await admin.post(`/v2.0/agents/${CONTROLLER_AGENT}/bgp-drinstances`, { bgp_speaker_id: second.id });
      assert.equal(notDr.status, 404);
      assert.equal(errorType(notDr), 'DrAgentInvalid');
      const listed = await admin.get(`/v2.0/agents/${hostingAgent}/bgp-drinstances`);
      assert.deepEqual(
        listed.body.bgp_speakers.map((s: Json) => s.id),
        [speaker.id],
      );
      // The second speaker went to the idle agent when it was created.
      const idle = await admin.get(`/v2.0/agents/${idleAgent}/bgp-drinstances`);
      assert.deepEqual(
        idle.body.bgp_speakers.map((s: Json) => s.id),
        [second.id],
      );
      const removed = await admin.delete(`/v2.0/agents/${idleAgent}/bgp-drinstances/${second.id}`);
      assert.equal(removed.status, 204);
      const gone = await admin.delete(`/v2.0/agents/${idleAgent}/bgp-drinstances/${second.id}`);
      assert.equal(gone.status, 404);
      assert.equal(errorType(gone), 'DrAgentNotHostingBgpSpeaker');
      assert.deepEqual((await admin.get(`/v2.0/bgp-speakers/${second.id}/bgp-dragents`)).body, { agents: [] });
      const add = await admin.post(`/v2.0/agents/${idleAgent}/bgp-drinstances`, { bgp_speaker_id: second.id });
      assert.equal(add.status, 201, add.text);
      assert.equal(add.text, 'null');
      const unknownAgent = await admin.get(`/v2.0/agents/${randomUUID()}/bgp-drinstances`);
      assert.equal(errorType(unknownAgent), 'AgentNotFound');
      assert.equal((await admin.delete(`/v2.0/bgp-speakers/${second.id}`)).status, 204);
      assert.deepEqual((await admin.get(`/v2.0/agents/${idleAgent}/bgp-drinstances`)).body, { bgp_speakers: [] });
    });

    it('gives an IPv6 speaker the IPv6 tenant prefixes, next hop the IPv6 gateway address', async () => {
      const scope = (await admin.post('/v2.0/address-scopes', { address_scope: { name: 'v6', ip_version: 6 } })).body
        .address_scope;
      const pool = (
        await admin.post('/v2.0/subnetpools', {
          subnetpool: { name: 'v6', prefixes: ['2001:db8::/32'], address_scope_id: scope.id },
        })
      ).body.subnetpool;
      const ext = (await admin.post('/v2.0/networks', { network: { name: 'ext6', 'router:external': true } })).body
        .network;
      await admin.post('/v2.0/subnets', { subnet: { network_id: ext.id, ip_version: 4, cidr: '198.19.0.0/24' } });
      const extV6 = await admin.post('/v2.0/subnets', {
        subnet: { network_id: ext.id, ip_version: 6, subnetpool_id: pool.id, cidr: '2001:db8::/64' },
      });
      assert.equal(extV6.status, 201, extV6.text);
      const tenant = (await admin.post('/v2.0/networks', { network: { name: 't6' } })).body.network;
      const inner = (
        await admin.post('/v2.0/subnets', {
          subnet: { network_id: tenant.id, ip_version: 6, subnetpool_id: pool.id, cidr: '2001:db8:1::/64' },
        })
      ).body.subnet;
      const router = (
        await admin.post('/v2.0/routers', { router: { name: 'r6', external_gateway_info: { network_id: ext.id } } })
      ).body.router;
      await admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: inner.id });
      const gateway6 = (router.external_gateway_info.external_fixed_ips as Json[]).find(
        (ip) => ip.subnet_id === extV6.body.subnet.id,
      ).ip_address;
      const v6 = (
        await admin.post('/v2.0/bgp-speakers', { bgp_speaker: { name: 'v6', local_as: 65010, ip_version: 6 } })
      ).body.bgp_speaker;
      await admin.put(`/v2.0/bgp-speakers/${v6.id}/add_gateway_network`, { network_id: ext.id });
      const routes = await admin.get(`/v2.0/bgp-speakers/${v6.id}/get_advertised_routes`);
      assert.deepEqual(routes.body, { advertised_routes: [{ destination: '2001:db8:1::/64', next_hop: gateway6 }] });
      assert.equal((await admin.delete(`/v2.0/bgp-speakers/${v6.id}`)).status, 204);
    });

    it('is admin only, as n-d-r’s policy', async () => {
      assert.deepEqual((await member.get('/v2.0/bgp-speakers')).body, { bgp_speakers: [] });
      assert.deepEqual((await member.get('/v2.0/bgp-peers')).body, { bgp_peers: [] });
      const create = await member.post('/v2.0/bgp-speakers', { bgp_speaker: { local_as: 65000, ip_version: 4 } });
      assert.equal(create.status, 403);
      assert.equal(errorType(create), 'PolicyNotAuthorized');
      const peerCreate = await member.post('/v2.0/bgp-peers', {
        bgp_peer: { peer_ip: '192.0.2.9', remote_as: 1, auth_type: 'none' },
      });
      assert.equal(peerCreate.status, 403);
      assert.equal((await member.get(`/v2.0/bgp-speakers/${speaker.id}`)).status, 404);
      const action = await member.put(`/v2.0/bgp-speakers/${speaker.id}/add_bgp_peer`, { bgp_peer_id: peer.id });
      assert.equal(action.status, 404);
      assert.equal((await member.get(`/v2.0/bgp-speakers/${speaker.id}/get_advertised_routes`)).status, 404);
      assert.equal((await member.delete(`/v2.0/bgp-speakers/${speaker.id}`)).status, 404);
      const scheduler = await member.get(`/v2.0/agents/${DR_AGENT}/bgp-drinstances`);
      assert.equal(scheduler.status, 403);
      assert.equal((await member.get(`/v2.0/bgp-speakers/${speaker.id}/bgp-dragents`)).status, 403);
    });

    it('serves the hosted speaker with its secrets to the service role only, and never logs them', async () => {
      const hostingAgent = (await admin.get(`/v2.0/bgp-speakers/${speaker.id}/bgp-dragents`)).body.agents[0].id;
      const path = `/v2.0/octonet/bgp-dragents/${hostingAgent}/speakers`;
      const project = newProjectId();
      for (const roles of [['member', 'reader'], ['reader'], ['manager', 'member', 'reader']]) {
        const refused = await api.as({ project, roles }).get(path);
        assert.equal(refused.status, 404, roles.join(','));
        assert.equal(errorType(refused), 'HTTPNotFound');
        assert.doesNotMatch(refused.text, /s3cret/);
      }
      const served = await api.as({ project, roles: ['service'] }).get(path);
      assert.equal(served.status, 200, served.text);
      assert.equal(served.body.bgp_speakers[0].id, speaker.id);
      assert.match(served.text, /s3cret/);
      // An agent that hosts nothing, or no agent at all, gets nothing (as n-d-r's RPC for such a host).
      const unknown = await api
        .as({ project, roles: ['service'] })
        .get(`/v2.0/octonet/bgp-dragents/${randomUUID()}/speakers`);
      assert.deepEqual(unknown.body, { bgp_speakers: [] });
      // Keystone's admin without the service role is refused (noauth's admin is let in: docs/bgp-agent.md).
      const keystoneAdmin = makeContext({ requestId: 'r', projectId: project, roles: ['admin', 'member', 'reader'] });
      assert.equal(POLICY_RULES.get_bgp_dragent_speakers!(keystoneAdmin, {}), false);
      for (const listed of [await admin.get('/v2.0/bgp-peers'), await admin.get('/v2.0/bgp-peers?fields=password')]) {
        assert.equal(listed.status, 200, listed.text);
        assert.doesNotMatch(listed.text, /s3cret/);
      }
      assert.doesNotMatch(JSON.stringify(api.logs()), /s3cret/);
    });

    it('deletes speakers and peers with their bindings', async () => {
      assert.equal((await admin.delete(`/v2.0/bgp-peers/${peer.id}`)).status, 204);
      assert.deepEqual((await admin.get(`/v2.0/bgp-speakers/${speaker.id}`)).body.bgp_speaker.peers, []);
      assert.equal((await admin.delete(`/v2.0/bgp-speakers/${speaker.id}`)).status, 204);
      assert.equal(errorType(await admin.get(`/v2.0/bgp-speakers/${speaker.id}`)), 'BgpSpeakerNotFound');
    });
  });
}

/**
 * Subnet pools over HTTP, on both databases: CRUD with Neutron's defaults and bounds, subnets
 * allocated from a pool (by length, by CIDR, the default length), exhaustion, a pool in use,
 * sharing (admin only) and visibility, tags, and that prefixes only grow.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

for (const backend of BACKENDS) {
  describe(`subnet pools (${backend})`, () => {
    const api = useApi(backend);
    const A = newProjectId();
    const B = newProjectId();
    let a: Client;
    let b: Client;
    let pool: Json;
    let net: Json;

    before(async () => {
      a = api.as({ project: A });
      b = api.as({ project: B });
      net = (await a.post('/v2.0/networks', { network: { name: 'n' } })).body.network;
    });

    const subnet = (body: Record<string, unknown>) =>
      a.post('/v2.0/subnets', { subnet: { network_id: net.id, ip_version: 4, ...body } });

    it('creates a pool with Neutron’s defaults: min /8, max /32, default = min, prefixes canonical', async () => {
      const r = await a.post('/v2.0/subnetpools', {
        subnetpool: { name: 'p', prefixes: ['10.10.0.0/16', '10.10.4.0/24'], default_prefixlen: 26, min_prefixlen: 24 },
      });
      assert.equal(r.status, 201, r.text);
      pool = r.body.subnetpool;
      assert.deepEqual(pool.prefixes, ['10.10.0.0/16'], 'a prefix inside another is folded into it');
      assert.equal(pool.ip_version, 4);
      assert.equal(pool.min_prefixlen, 24);
      assert.equal(pool.max_prefixlen, 32);
      assert.equal(pool.default_prefixlen, 26);
      assert.equal(pool.shared, false);
      assert.equal(pool.address_scope_id, null);
      const plain = (await a.post('/v2.0/subnetpools', { subnetpool: { name: 'q', prefixes: ['fd00::/48'] } })).body
        .subnetpool;
      assert.deepEqual(
        [plain.ip_version, plain.min_prefixlen, plain.max_prefixlen, plain.default_prefixlen],
        [6, 64, 128, 64],
      );
    });

    it('refuses mixed versions and impossible bounds', async () => {
      const mixed = await a.post('/v2.0/subnetpools', {
        subnetpool: { name: 'm', prefixes: ['10.0.0.0/8', 'fd00::/8'] },
      });
      assert.equal(mixed.status, 400);
      assert.equal(mixed.body.NeutronError.type, 'PrefixVersionMismatch');
      const bounds = await a.post('/v2.0/subnetpools', {
        subnetpool: { name: 'b', prefixes: ['10.0.0.0/8'], min_prefixlen: 28, max_prefixlen: 24 },
      });
      assert.equal(bounds.status, 400);
      assert.equal(bounds.body.NeutronError.message, 'Illegal prefix bounds: min_prefixlen=28, max_prefixlen=24.');
      const shared = await a.post('/v2.0/subnetpools', {
        subnetpool: { name: 's', prefixes: ['10.0.0.0/8'], shared: true },
      });
      assert.equal(shared.status, 403, 'sharing a pool is an admin’s');
    });

    it('subnets come from the pool: default length, a given length, a given CIDR, never twice', async () => {
      const first = await subnet({ subnetpool_id: pool.id });
      assert.equal(first.status, 201, first.text);
      assert.equal(first.body.subnet.cidr, '10.10.0.0/26');
      assert.equal(first.body.subnet.subnetpool_id, pool.id);
      assert.equal(first.body.subnet.gateway_ip, '10.10.0.1');
      const second = await subnet({ subnetpool_id: pool.id, prefixlen: 24 });
      assert.equal(second.body.subnet.cidr, '10.10.1.0/24', 'the next aligned /24 after the /26');
      const given = await subnet({ subnetpool_id: pool.id, cidr: '10.10.7.0/24' });
      assert.equal(given.status, 201, given.text);
      const taken = await subnet({ subnetpool_id: pool.id, cidr: '10.10.7.0/25' });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.NeutronError.type, 'SubnetAllocationError');
      const outside = await subnet({ subnetpool_id: pool.id, cidr: '10.11.0.0/24' });
      assert.equal(outside.status, 409);
      const tooShort = await subnet({ subnetpool_id: pool.id, prefixlen: 20 });
      assert.equal(tooShort.status, 400);
      assert.equal(
        tooShort.body.NeutronError.message,
        'Unable to allocate subnet with prefix length 20, minimum allowed prefix is 24.',
      );
      const listed = (await a.get(`/v2.0/subnets?subnetpool_id=${pool.id}`)).body.subnets.map((s: Json) => s.cidr);
      assert.deepEqual(listed.sort(), ['10.10.0.0/26', '10.10.1.0/24', '10.10.7.0/24']);
      const v6 = await subnet({ subnetpool_id: pool.id, ip_version: 6 });
      assert.equal(v6.status, 400);
    });

    it('a full pool answers SubnetAllocationError and creates nothing', async () => {
      const small = (
        await a.post('/v2.0/subnetpools', {
          subnetpool: { name: 'small', prefixes: ['192.168.50.0/24'], min_prefixlen: 24 },
        })
      ).body.subnetpool;
      const other = (await a.post('/v2.0/networks', { network: { name: 'o' } })).body.network;
      const mk = () =>
        a.post('/v2.0/subnets', { subnet: { network_id: other.id, ip_version: 4, subnetpool_id: small.id } });
      assert.equal((await mk()).status, 201);
      const full = await mk();
      assert.equal(full.status, 409);
      assert.equal(
        full.body.NeutronError.message,
        'Failed to allocate subnet: Insufficient prefix space to allocate subnet size /24.',
      );
      assert.equal((await a.get(`/v2.0/subnets?network_id=${other.id}`)).body.subnets.length, 1);
    });

    it('prefixes only grow; a pool in use cannot be deleted; tags work', async () => {
      const shrink = await a.put(`/v2.0/subnetpools/${pool.id}`, { subnetpool: { prefixes: ['10.10.0.0/17'] } });
      assert.equal(shrink.status, 400);
      assert.equal(shrink.body.NeutronError.type, 'IllegalSubnetPoolPrefixUpdate');
      const grow = await a.put(`/v2.0/subnetpools/${pool.id}`, {
        subnetpool: { name: 'p2', prefixes: ['10.10.0.0/16', '10.20.0.0/16'] },
      });
      assert.equal(grow.status, 200, grow.text);
      assert.deepEqual(grow.body.subnetpool.prefixes, ['10.10.0.0/16', '10.20.0.0/16']);
      assert.equal(grow.body.subnetpool.name, 'p2');
      const inUse = await a.delete(`/v2.0/subnetpools/${pool.id}`);
      assert.equal(inUse.status, 409);
      assert.equal(inUse.body.NeutronError.type, 'SubnetPoolInUse');
      assert.equal((await a.put(`/v2.0/subnetpools/${pool.id}/tags/red`)).status, 201);
      assert.deepEqual(
        (await a.get(`/v2.0/subnetpools?tags=red`)).body.subnetpools.map((p: Json) => p.id),
        [pool.id],
      );
    });

    it('other projects see only shared pools, and delete what is unused', async () => {
      assert.equal((await b.get(`/v2.0/subnetpools/${pool.id}`)).status, 404);
      const shared = (
        await api.admin.post('/v2.0/subnetpools', {
          subnetpool: { name: 'public', prefixes: ['172.16.0.0/12'], shared: true },
        })
      ).body.subnetpool;
      assert.deepEqual(
        (await b.get('/v2.0/subnetpools')).body.subnetpools.map((p: Json) => p.id),
        [shared.id],
      );
      const bnet = (await b.post('/v2.0/networks', { network: { name: 'bn' } })).body.network;
      const fromShared = await b.post('/v2.0/subnets', {
        subnet: { network_id: bnet.id, ip_version: 4, subnetpool_id: shared.id, prefixlen: 24 },
      });
      assert.equal(fromShared.status, 201, fromShared.text);
      assert.equal(fromShared.body.subnet.cidr, '172.16.0.0/24');
      assert.equal(
        (await b.delete(`/v2.0/subnetpools/${shared.id}`)).status,
        403,
        'B sees it, but it is not B’s to delete',
      );
      const unused = (await a.post('/v2.0/subnetpools', { subnetpool: { name: 'u', prefixes: ['10.200.0.0/16'] } }))
        .body.subnetpool;
      assert.equal((await a.delete(`/v2.0/subnetpools/${unused.id}`)).status, 204);
      assert.equal((await a.get(`/v2.0/subnetpools/${unused.id}`)).status, 404);
    });
  });
}

/**
 * Network IP availability over HTTP: shape, exact big totals, filters, sorting and paging, fields,
 * policy and errors; on both stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIp } from '../../src/core/ip.js';
import { BACKENDS, newProjectId, useApi, type Client, type Response } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

const URL = '/v2.0/network-ip-availabilities';

function assertError(r: Response, status: number, type: string, message: string): void {
  assert.equal(r.status, status, r.text);
  assert.deepEqual(r.body, { NeutronError: { type, message, detail: '' } });
}

/** Addresses in a subnet's pools, as the API lists them. */
function poolTotal(pools: { start: string; end: string }[]): bigint {
  return pools.reduce((sum, p) => sum + parseIp(p.end)!.value - parseIp(p.start)!.value + 1n, 0n);
}

for (const backend of BACKENDS) {
  describe(`network IP availability (${backend})`, () => {
    const api = useApi(backend);
    const ids = (r: Response) => r.body.network_ip_availabilities.map((n: { network_id: string }) => n.network_id);

    async function createNetwork(client: Client, name: string): Promise<{ id: string; project_id: string }> {
      const r = await client.post('/v2.0/networks', { network: { name } });
      assert.equal(r.status, 201, r.text);
      return r.body.network;
    }

    async function createSubnet(client: Client, body: Record<string, unknown>): Promise<Json> {
      const r = await client.post('/v2.0/subnets', { subnet: body });
      assert.equal(r.status, 201, r.text);
      return r.body.subnet;
    }

    it('shows a network without subnets with zero totals, in Neutron key order', async () => {
      const project = newProjectId();
      const net = await createNetwork(api.as({ project }), 'empty-net');
      const r = await api.admin.get(`${URL}/${net.id}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        network_ip_availability: {
          network_id: net.id,
          network_name: 'empty-net',
          tenant_id: project,
          project_id: project,
          subnet_ip_availability: [],
          used_ips: 0,
          total_ips: 0,
        },
      });
      assert.deepEqual(Object.keys(r.body.network_ip_availability), [
        'network_id',
        'network_name',
        'tenant_id',
        'project_id',
        'subnet_ip_availability',
        'used_ips',
        'total_ips',
      ]);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      const listed = await api.admin.get(`${URL}?network_id=${net.id}`);
      assert.deepEqual(listed.body, { network_ip_availabilities: [r.body.network_ip_availability] });
    });

    it('is for admins and services only: others list nothing and cannot show', async () => {
      const project = newProjectId();
      const net = await createNetwork(api.as({ project }), 'mine');
      const owner = api.as({ project });
      assert.deepEqual((await owner.get(URL)).body, { network_ip_availabilities: [] });
      assertError(await owner.get(`${URL}/${net.id}`), 404, 'HTTPNotFound', 'The resource could not be found.');
      const service = api.as({ project: newProjectId(), roles: ['service'] });
      assert.deepEqual(ids(await service.get(`${URL}?network_id=${net.id}`)), [net.id]);
      assert.equal((await service.get(`${URL}/${net.id}`)).status, 200);
      const missing = '00000000-0000-0000-0000-00000000beef';
      for (const client of [api.admin, owner]) {
        assertError(
          await client.get(`${URL}/${missing}`),
          404,
          'NetworkNotFound',
          `Network ${missing} could not be found.`,
        );
      }
    });

    it('filters by network, name, project and IP version', async () => {
      const a = newProjectId();
      const b = newProjectId();
      const n1 = await createNetwork(api.as({ project: a }), 'ipa-one');
      const n2 = await createNetwork(api.as({ project: a }), 'ipa-two');
      const n3 = await createNetwork(api.as({ project: b }), 'ipa-one');
      const sorted = (...nets: { id: string }[]) => nets.map((n) => n.id).sort();
      assert.deepEqual(ids(await api.admin.get(`${URL}?project_id=${a}`)), sorted(n1, n2));
      assert.deepEqual(ids(await api.admin.get(`${URL}?tenant_id=${b}`)), sorted(n3));
      assert.deepEqual(ids(await api.admin.get(`${URL}?network_name=ipa-one`)), sorted(n1, n3));
      assert.deepEqual(ids(await api.admin.get(`${URL}?network_name=ipa-one&project_id=${a}`)), sorted(n1));
      assert.deepEqual(ids(await api.admin.get(`${URL}?network_id=${n1.id}&network_id=${n2.id}`)), sorted(n1, n2));
      assert.deepEqual(ids(await api.admin.get(`${URL}?project_id=${a}&tenant_id=${b}`)), []);
      // ip_version filters subnets, so networks without any drop out; a non-number matches nothing.
      assert.deepEqual(ids(await api.admin.get(`${URL}?project_id=${a}&ip_version=4`)), []);
      assert.deepEqual(ids(await api.admin.get(`${URL}?ip_version=abc`)), []);
    });

    it('sorts by network_id only, pages with links, and applies fields', async () => {
      const project = newProjectId();
      const nets = [];
      for (const name of ['p1', 'p2', 'p3']) nets.push(await createNetwork(api.as({ project }), name));
      const sorted = nets.map((n) => n.id).sort();
      const desc = await api.admin.get(`${URL}?project_id=${project}&sort_key=network_id&sort_dir=desc`);
      assert.deepEqual(ids(desc), [...sorted].reverse());
      const page1 = await api.admin.get(`${URL}?project_id=${project}&limit=2&fields=network_id&fields=total_ips`);
      assert.equal(page1.status, 200, page1.text);
      assert.deepEqual(page1.body.network_ip_availabilities, [
        { network_id: sorted[0], total_ips: 0 },
        { network_id: sorted[1], total_ips: 0 },
      ]);
      const next = page1.body.network_ip_availabilities_links.find((l: { rel: string }) => l.rel === 'next');
      assert.match(next.href, new RegExp(`marker=${sorted[1]}`));
      const page2 = await api.admin.get(`${URL}?project_id=${project}&limit=2&marker=${sorted[1]}`);
      assert.deepEqual(ids(page2), [sorted[2]]);
      const back = await api.admin.get(`${URL}?project_id=${project}&limit=2&marker=${sorted[2]}&page_reverse=true`);
      assert.deepEqual(ids(back), sorted.slice(0, 2));
      assert.deepEqual(ids(await api.admin.get(`${URL}?project_id=${project}&limit=2&marker=nope`)), []);
      const hidden = await api.admin.get(`${URL}?project_id=${project}&fields=ip_version`);
      assert.deepEqual(hidden.body.network_ip_availabilities, [{}, {}, {}]);
      const show = await api.admin.get(`${URL}/${nets[0]!.id}?fields=network_name&bogus=1`);
      assert.deepEqual(show.body, { network_ip_availability: { network_name: 'p1' } });
    });

    it('refuses unknown filters, sort keys and limits', async () => {
      const bad = (message: string) => ({ type: 'HTTPBadRequest', message });
      const cases: [string, number, { type: string; message: string }][] = [
        ['bogus=1', 400, bad("['bogus'] is invalid attribute for filtering")],
        ['total_ips=3', 400, bad("['total_ips'] is invalid attribute for filtering")],
        ['sort_key=network_name&sort_dir=asc', 400, bad("['network_name'] is invalid attribute for sort_keys")],
        ['sort_key=network_id', 400, bad('The number of sort_keys and sort_dirs must be same')],
        [
          'limit=abc',
          400,
          { type: 'BadRequest', message: "Bad limit request: Limit must be an integer 0 or greater and not 'abc'." },
        ],
      ];
      for (const [query, status, error] of cases) {
        assertError(await api.admin.get(`${URL}?${query}`), status, error.type, error.message);
      }
    });

    it('serves only GET', async () => {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        assert.equal((await api.admin.request(method, URL)).status, 405, method);
        assert.equal((await api.admin.request(method, `${URL}/x`)).status, 405, method);
      }
    });

    it('totals pool sizes exactly, IPv6 included, and counts every allocation', async () => {
      const project = newProjectId();
      const member = api.as({ project });
      const net = await createNetwork(member, 'counted');
      const v4 = await createSubnet(member, {
        network_id: net.id,
        name: 'v4',
        ip_version: 4,
        cidr: '10.20.0.0/24',
        allocation_pools: [
          { start: '10.20.0.10', end: '10.20.0.99' },
          { start: '10.20.0.150', end: '10.20.0.199' },
        ],
      });
      const v6 = await createSubnet(member, { network_id: net.id, name: 'v6', ip_version: 6, cidr: 'fd00:20::/64' });
      const port = await member.post('/v2.0/ports', {
        port: { network_id: net.id, fixed_ips: [{ subnet_id: v4.id, ip_address: '10.20.0.5' }, { subnet_id: v4.id }] },
      });
      assert.equal(port.status, 201, port.text);
      // Service ports (DHCP, metadata) may hold addresses too: count what the network's ports hold.
      const ports = (await api.admin.get(`/v2.0/ports?network_id=${net.id}`)).body.ports as Json[];
      const usedOn = (subnetId: string) =>
        ports.flatMap((p) => p.fixed_ips).filter((ip: { subnet_id: string }) => ip.subnet_id === subnetId).length;
      const v6Total = poolTotal(v6.allocation_pools);
      assert.ok(v6Total > BigInt(Number.MAX_SAFE_INTEGER));

      const r = await api.admin.get(`${URL}/${net.id}`);
      assert.equal(r.status, 200, r.text);
      const body = r.body.network_ip_availability;
      assert.deepEqual(
        body.subnet_ip_availability.map((s: Json) => [s.subnet_id, s.ip_version, s.cidr, s.subnet_name, s.used_ips]),
        [
          [v4.id, 4, '10.20.0.0/24', 'v4', usedOn(v4.id)],
          [v6.id, 6, 'fd00:20::/64', 'v6', usedOn(v6.id)],
        ],
      );
      assert.ok(usedOn(v4.id) >= 2, 'the port holds an address inside and one outside the pools');
      assert.equal(body.subnet_ip_availability[0].total_ips, 140);
      assert.equal(body.used_ips, usedOn(v4.id) + usedOn(v6.id));
      // Exact digits in the raw body: JSON.parse would round them.
      assert.ok(r.text.includes(`"total_ips":${v6Total}}`), r.text);
      assert.ok(r.text.endsWith(`"total_ips":${v6Total + 140n}}}`), r.text);
      assert.deepEqual(ids(await api.admin.get(`${URL}?network_id=${net.id}&ip_version=6`)), [net.id]);
      const v6Only = await api.admin.get(`${URL}?network_id=${net.id}&ip_version=6`);
      assert.deepEqual(
        v6Only.body.network_ip_availabilities[0].subnet_ip_availability.map((s: Json) => s.subnet_id),
        [v6.id],
      );
    });

    it('totals the whole CIDR, network and broadcast included, for a subnet without pools', async () => {
      const project = newProjectId();
      const member = api.as({ project });
      const net = await createNetwork(member, 'no-pools');
      const subnet = await createSubnet(member, {
        network_id: net.id,
        ip_version: 4,
        cidr: '10.30.0.0/28',
        gateway_ip: null,
      });
      // An empty list on create means the default pools; an update to [] leaves none.
      const emptied = await member.put(`/v2.0/subnets/${subnet.id}`, { subnet: { allocation_pools: [] } });
      assert.equal(emptied.status, 200, emptied.text);
      const r = await api.admin.get(`${URL}/${net.id}`);
      assert.equal(r.body.network_ip_availability.subnet_ip_availability[0].total_ips, 16);
    });
  });
}

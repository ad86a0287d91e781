/**
 * The list query language over HTTP, checked against Neutron master (Zed anchor where they agree):
 * filters (OR within a key, AND across keys, converters, fixed_ips, MACs, security groups, tags,
 * empty values, filter validation), `fields`, sorting, pagination with its `_links`, and the URL
 * forms (`.json`, trailing slash); on both stores.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import { assertError } from '../fixtures/errors.js';
import { createNetwork, createPort, networkWithSubnet, type Item } from '../fixtures/topology.js';

const byName = (items: Item[]) => items.map((i) => i.name as string).sort();

for (const backend of BACKENDS) {
  describe(`query (${backend})`, () => {
    const api = useApi(backend);

    describe('filters', () => {
      let client: Client;
      let network: Item;
      let subnet: Item;
      let group: Item;
      const ports: Record<string, Item> = {};
      /** Names of the ports of this network that match `query`. */
      const names = async (query: string) => {
        const r = await client.get(`/v2.0/ports?network_id=${network.id}&${query}`);
        assert.equal(r.status, 200, r.text);
        return byName(r.body.ports);
      };

      before(async () => {
        client = api.as({ project: newProjectId() });
        ({ network, subnet } = await networkWithSubnet(client, '10.90.0.0/24'));
        group = (await client.post('/v2.0/security-groups', { security_group: { name: 'x' } })).body.security_group;
        const specs: [string, Record<string, unknown>][] = [
          [
            'a',
            {
              fixed_ips: [{ ip_address: '10.90.0.11' }],
              mac_address: 'fa:16:3e:00:01:01',
              device_owner: 'compute:nova',
            },
          ],
          [
            'b',
            {
              fixed_ips: [{ ip_address: '10.90.0.12' }],
              mac_address: 'fa:16:3e:00:01:02',
              admin_state_up: false,
              security_groups: [group.id],
            },
          ],
          ['c', { fixed_ips: [{ ip_address: '10.90.0.123' }], mac_address: 'fa:16:3e:00:01:03', description: 'd' }],
          ['', { fixed_ips: [], mac_address: 'fa:16:3e:00:01:04' }],
        ];
        for (const [name, body] of specs) ports[name] = await createPort(client, network.id, { name, ...body });
        const tags: [string, string[]][] = [
          ['a', ['red', 'blue']],
          ['b', ['red']],
          ['c', ['green']],
        ];
        for (const [name, list] of tags) await client.put(`/v2.0/ports/${ports[name]!.id}/tags`, { tags: list });
      });

      it('repeated keys are OR, different keys AND; booleans are converted', async () => {
        assert.deepEqual(await names('name=a&name=b'), ['a', 'b']);
        assert.deepEqual(await names('name=a&name=b&admin_state_up=false'), ['b']);
        assert.deepEqual(await names('admin_state_up=True'), ['', 'a', 'c']);
        assert.deepEqual(await names('admin_state_up=0'), ['b']);
        assertError(
          await client.get(`/v2.0/ports?admin_state_up=maybe`),
          400,
          'InvalidInput',
          "Invalid input for operation: 'maybe' cannot be converted to boolean.",
        );
      });

      it('matches values exactly: no comma lists, case-sensitive, malformed ids match nothing', async () => {
        assert.deepEqual(await names(`id=${ports.a!.id},${ports.b!.id}`), []);
        assert.deepEqual(await names('status=down'), []);
        assert.deepEqual(await names('status=DOWN'), ['', 'a', 'b', 'c']);
        assert.deepEqual(await names('id=not-a-uuid'), []);
        assert.deepEqual((await client.get('/v2.0/ports?network_id=xx')).body.ports, []);
        assert.deepEqual(await names('description=d'), ['c']);
        assert.deepEqual(await names('device_owner=compute'), []);
        assert.deepEqual(await names('device_owner=compute:nova'), ['a']);
      });

      it('fixed_ips: ip_address, subnet_id, ip_address_substr, as key=value pairs', async () => {
        assert.deepEqual(await names('fixed_ips=ip_address%3D10.90.0.12'), ['b']);
        assert.deepEqual(await names('fixed_ips=ip_address=10.90.0.12'), ['b']);
        assert.deepEqual(await names('fixed_ips=ip_address=10.90.0.12&fixed_ips=ip_address=10.90.0.11'), ['a', 'b']);
        assert.deepEqual(await names(`fixed_ips=subnet_id=${subnet.id}`), ['a', 'b', 'c']);
        assert.deepEqual(await names(`fixed_ips=subnet_id=${subnet.id}&fixed_ips=ip_address=10.90.0.11`), ['a']);
        assert.deepEqual(await names('fixed_ips=ip_address_substr=0.12'), ['b', 'c']);
        assert.deepEqual(await names('fixed_ips=ip_address=notanip'), []);
        assert.deepEqual(await names('fixed_ips=bogus=x'), ['', 'a', 'b', 'c']);
        assertError(
          await client.get('/v2.0/ports?fixed_ips=noequals'),
          400,
          'InvalidInput',
          "Invalid input for operation: 'noequals' is not of the form <key>=[value].",
        );
        assertError(
          await client.get('/v2.0/ports?ip_address_substr=0.12'),
          400,
          'HTTPBadRequest',
          "['ip_address_substr'] is invalid attribute for filtering",
        );
      });

      it('mac_address in any spelling; security_groups', async () => {
        assert.deepEqual(await names('mac_address=fa:16:3e:00:01:02'), ['b']);
        assert.deepEqual(await names('mac_address=FA-16-3E-00-01-02'), ['b']);
        assert.deepEqual(await names('mac_address=zz'), []);
        assert.deepEqual(await names(`security_groups=${group.id}`), ['b']);
        assert.deepEqual(
          await names(`security_groups=${group.id}&security_groups=11111111-2222-3333-4444-555555555555`),
          ['b'],
        );
        assert.deepEqual(await names('security_groups=11111111-2222-3333-4444-555555555555'), []);
      });

      it('tags, tags-any, not-tags, not-tags-any; commas equal repeated keys', async () => {
        assert.deepEqual(await names('tags=red,blue'), ['a']);
        assert.deepEqual(await names('tags=red&tags=blue'), ['a']);
        assert.deepEqual(await names('tags=red'), ['a', 'b']);
        assert.deepEqual(await names('tags-any=blue,green'), ['a', 'c']);
        assert.deepEqual(await names('not-tags=red,blue'), ['', 'b', 'c']);
        assert.deepEqual(await names('not-tags-any=red,green'), ['']);
      });

      it('empty tag pieces are the tag "" (tags=red,,blue and tags= match nothing here)', async () => {
        assert.deepEqual(await names('tags=red,,blue'), []);
        assert.deepEqual(await names('tags='), []);
      });

      it('empty values filter for the empty string (empty-string-filtering)', async () => {
        assert.deepEqual(await names('name='), ['']);
        assert.deepEqual(await names('description='), ['', 'a', 'b']);
        assert.deepEqual(await names('device_owner='), ['', 'b', 'c']);
        assert.deepEqual(await names('device_id='), ['', 'a', 'b', 'c']);
        assertError(
          await client.get('/v2.0/ports?admin_state_up='),
          400,
          'InvalidInput',
          "Invalid input for operation: '' cannot be converted to boolean.",
        );
      });

      it('refuses unknown filters, even empty ones, with filter-validation text', async () => {
        const cases: [string, string][] = [
          ['bogus=1', "['bogus']"],
          ['bogus=1&zzz=2', "['bogus', 'zzz']"],
          ['bogus=', "['bogus']"],
          ['shared=true', "['shared']"],
          ['changed_since=2020-01-01T00:00:00Z', "['changed_since']"],
          ['binding:vnic_type=normal', "['binding:vnic_type']"],
          ['allowed_address_pairs=x', "['allowed_address_pairs']"],
          ['dns_name=x', "['dns_name']"],
          ['port_security_enabled=true', "['port_security_enabled']"],
        ];
        for (const [query, keys] of cases) {
          assertError(
            await client.get(`/v2.0/ports?${query}`),
            400,
            'HTTPBadRequest',
            `${keys} is invalid attribute for filtering`,
          );
        }
        assertError(
          await client.get(`/v2.0/ports/${ports.a!.id}?bogus=1`),
          400,
          'HTTPBadRequest',
          "['bogus'] is invalid attribute for filtering",
        );
      });

      it('accepts binding:host_id, ip_allocation, tenant_id and project_id', async () => {
        assert.deepEqual(await names('binding:host_id=x'), []);
        assert.deepEqual(await names('ip_allocation=none'), ['']);
        const project = ports.a!.project_id as string;
        assert.deepEqual(await names(`tenant_id=${project}&name=a`), ['a']);
        assert.deepEqual(await names(`project_id=${project}&name=a`), ['a']);
        assert.deepEqual(await names(`tenant_id=${project}&project_id=xyz`), []);
      });

      it('fields: only the asked-for attributes; unknown and empty names select nothing', async () => {
        const list = async (query: string) =>
          (await client.get(`/v2.0/ports?network_id=${network.id}&name=a&${query}`)).body.ports as Item[];
        assert.deepEqual(await list('fields=id&fields=name'), [{ id: ports.a!.id, name: 'a' }]);
        assert.deepEqual(await list('fields=tenant_id'), [{ tenant_id: ports.a!.project_id }]);
        assert.deepEqual(await list('fields=project_id'), [{ project_id: ports.a!.project_id }]);
        assert.deepEqual(await list('fields=bogus'), [{}]);
        assert.deepEqual(await list('fields=id,name'), [{}]);
        assert.deepEqual(await list('fields='), [{}]);
        assert.deepEqual(await list('fields=name&fields=bogus'), [{ name: 'a' }]);
        const shown = await client.get(`/v2.0/ports/${ports.a!.id}?fields=mac_address`);
        assert.deepEqual(shown.body, { port: { mac_address: 'fa:16:3e:00:01:01' } });
      });

      it('fields apply to POST and PUT answers too', async () => {
        const created = await client.post('/v2.0/networks?fields=name', { network: { name: 'f' } });
        assert.equal(created.status, 201);
        assert.deepEqual(created.body, { network: { name: 'f' } });
        const updated = await client.put(`/v2.0/ports/${ports.c!.id}?fields=name&fields=description`, {
          port: { description: 'e' },
        });
        assert.deepEqual(updated.body, { port: { name: 'c', description: 'e' } });
      });
    });

    describe('sorting and pagination', () => {
      let client: Client;
      /** The four networks' ids in ascending order, and their names. */
      let ids: string[];
      const nameOf = new Map<string, string>();
      const list = async (query: string, path = '/v2.0/networks') => {
        const r = await client.get(`${path}?${query}`);
        assert.equal(r.status, 200, r.text);
        return r.body;
      };
      const idsOf = (body: Item) => (body.networks as Item[]).map((n) => n.id as string);
      const links = (body: Item) => body.networks_links as { rel: string; href: string }[] | undefined;
      const href = (query: string) => `${api.url}/v2.0/networks?${query}`;

      before(async () => {
        client = api.as({ project: newProjectId() });
        for (const name of ['n3', 'n1', 'n2', 'n1']) {
          const net = await createNetwork(client, { name });
          nameOf.set(net.id, name);
        }
        ids = [...nameOf.keys()].sort();
      });

      it('orders by id by default, by sort_key/sort_dir pairs otherwise (id breaks ties)', async () => {
        assert.deepEqual(idsOf(await list('')), ids);
        const expected = (dir: 'asc' | 'desc', idDir: 'asc' | 'desc') =>
          [...ids].sort((a, b) => {
            const byNameOrder = nameOf.get(a)!.localeCompare(nameOf.get(b)!) * (dir === 'asc' ? 1 : -1);
            return byNameOrder || a.localeCompare(b) * (idDir === 'asc' ? 1 : -1);
          });
        assert.deepEqual(idsOf(await list('sort_key=name&sort_dir=asc')), expected('asc', 'asc'));
        assert.deepEqual(idsOf(await list('sort_key=name&sort_dir=desc')), expected('desc', 'asc'));
        assert.deepEqual(
          idsOf(await list('sort_key=name&sort_dir=desc&sort_key=id&sort_dir=desc')),
          expected('desc', 'desc'),
        );
      });

      it('refuses unpaired, unknown, unsortable keys and bad directions', async () => {
        const cases: [string, string][] = [
          ['sort_key=name', 'The number of sort_keys and sort_dirs must be same'],
          ['sort_dir=asc', 'The number of sort_keys and sort_dirs must be same'],
          [
            'sort_key=bogus&sort_dir=asc&sort_key=zz&sort_dir=asc',
            "['bogus', 'zz'] is invalid attribute for sort_keys",
          ],
          ['sort_key=name&sort_dir=DESC', "['DESC'] is invalid value for sort_dirs, valid value is 'asc' and 'desc'"],
          ['sort_key=shared&sort_dir=asc', "['shared'] is invalid attribute for sort_keys"],
          ['sort_key=created_at&sort_dir=asc', "['created_at'] is invalid attribute for sort_keys"],
        ];
        for (const [query, message] of cases) {
          assertError(await client.get(`/v2.0/networks?${query}`), 400, 'HTTPBadRequest', message);
        }
      });

      it('pages forward with next and previous links, as Neutron writes them', async () => {
        const first = await list('limit=2');
        assert.deepEqual(idsOf(first), ids.slice(0, 2));
        assert.deepEqual(links(first), [
          { rel: 'next', href: href(`limit=2&marker=${ids[1]}`) },
          { rel: 'previous', href: href(`limit=2&marker=${ids[0]}&page_reverse=True`) },
        ]);
        const second = await list(`limit=2&marker=${ids[1]}`);
        assert.deepEqual(idsOf(second), ids.slice(2, 4));
        assert.deepEqual(links(second), [
          { rel: 'next', href: href(`limit=2&marker=${ids[3]}`) },
          { rel: 'previous', href: href(`limit=2&marker=${ids[2]}&page_reverse=True`) },
        ]);
        const short = await list(`limit=2&marker=${ids[2]}`);
        assert.deepEqual(idsOf(short), ids.slice(3));
        assert.deepEqual(links(short), [{ rel: 'previous', href: href(`limit=2&marker=${ids[3]}&page_reverse=True`) }]);
        const exact = await list('limit=4');
        assert.deepEqual(
          links(exact)!.map((l) => l.rel),
          ['next', 'previous'],
        );
        const wide = await list('limit=10');
        assert.deepEqual(idsOf(wide), ids);
        assert.deepEqual(links(wide), [{ rel: 'previous', href: href(`limit=10&marker=${ids[0]}&page_reverse=True`) }]);
      });

      it('pages backwards with page_reverse', async () => {
        const last = await list('limit=2&page_reverse=true');
        assert.deepEqual(idsOf(last), ids.slice(2, 4));
        assert.deepEqual(links(last), [
          { rel: 'next', href: href(`limit=2&marker=${ids[3]}`) },
          { rel: 'previous', href: href(`limit=2&marker=${ids[2]}&page_reverse=True`) },
        ]);
        const before2 = await list(`limit=2&page_reverse=true&marker=${ids[2]}`);
        assert.deepEqual(idsOf(before2), ids.slice(0, 2));
        const short = await list(`limit=2&page_reverse=True&marker=${ids[1]}`);
        assert.deepEqual(idsOf(short), ids.slice(0, 1));
        assert.deepEqual(links(short), [{ rel: 'next', href: href(`limit=2&marker=${ids[0]}`) }]);
        assert.deepEqual(
          idsOf(await list('page_reverse=true')),
          [...ids].reverse(),
          'without a limit the whole list is reversed',
        );
      });

      it('keeps the other parameters in their order in the links; an empty page links back without a marker', async () => {
        const filtered = await list('name=n1&limit=1&fields=id');
        const first = idsOf(filtered)[0]!;
        assert.equal(nameOf.get(first), 'n1');
        assert.deepEqual(links(filtered), [
          { rel: 'next', href: href(`name=n1&limit=1&fields=id&marker=${first}`) },
          { rel: 'previous', href: href(`name=n1&limit=1&fields=id&marker=${first}&page_reverse=True`) },
        ]);
        const sorted = await list('limit=1&sort_key=name&sort_dir=desc&fields=id&fields=name');
        const top = idsOf(sorted)[0]!;
        assert.equal(nameOf.get(top), 'n3');
        assert.equal(
          links(sorted)![0]!.href,
          href(`limit=1&sort_key=name&sort_dir=desc&fields=id&fields=name&marker=${top}`),
        );
        const empty = await list('name=zzz&limit=2');
        assert.deepEqual(empty.networks, []);
        assert.deepEqual(links(empty), [{ rel: 'previous', href: href('name=zzz&limit=2&page_reverse=True') }]);
      });

      it('no links without a limit or with limit=0; a marker alone is ignored', async () => {
        for (const query of ['', 'limit=0', `marker=${ids[1]}`]) {
          const body = await list(query);
          assert.deepEqual(idsOf(body), ids, query);
          assert.equal(links(body), undefined, query);
        }
      });

      it('refuses limits that are no non-negative integers', async () => {
        for (const value of ['-1', 'abc', '', '1.5']) {
          assertError(
            await client.get(`/v2.0/networks?limit=${value}`),
            400,
            'BadRequest',
            `Bad limit request: Limit must be an integer 0 or greater and not '${value}'.`,
          );
        }
      });

      it('an unknown marker: 404 for networks and ports, ignored for subnets', async () => {
        const missing = '11111111-2222-3333-4444-555555555555';
        assertError(
          await client.get(`/v2.0/networks?limit=2&marker=${missing}`),
          404,
          'NetworkNotFound',
          `Network ${missing} could not be found.`,
        );
        assertError(
          await client.get(`/v2.0/ports?limit=2&marker=${missing}`),
          404,
          'PortNotFound',
          `Port ${missing} could not be found.`,
        );
        const net = await createNetwork(client, { name: 'with-subnets' });
        for (const cidr of ['10.1.0.0/24', '10.2.0.0/24', '10.3.0.0/24']) {
          await client.post('/v2.0/subnets', {
            subnet: { network_id: net.id, cidr, ip_version: 4, enable_dhcp: false },
          });
        }
        const subnets = await list(`limit=2&marker=${missing}`, '/v2.0/subnets');
        assert.equal(subnets.subnets.length, 2);
        assert.deepEqual(
          (subnets.subnets_links as Item[]).map((l) => l.rel),
          ['next', 'previous'],
        );
        await client.delete(`/v2.0/networks/${net.id}`);
      });
    });

    describe('URL forms', () => {
      it('accepts .json and a trailing slash on collections and items', async () => {
        const client = api.as({ project: newProjectId() });
        const net = await createNetwork(client, { name: 'forms' });
        for (const path of ['/v2.0/networks.json?name=forms', '/v2.0/networks/?name=forms']) {
          const r = await client.get(path);
          assert.equal(r.status, 200, path);
          assert.deepEqual(
            (r.body.networks as Item[]).map((n) => n.id),
            [net.id],
            path,
          );
        }
        for (const path of [`/v2.0/networks/${net.id}.json`, `/v2.0/networks/${net.id}/`]) {
          const r = await client.get(path);
          assert.equal(r.status, 200, path);
          assert.equal(r.body.network.id, net.id, path);
        }
        const created = await client.post('/v2.0/networks.json', { network: { name: 'j' } });
        assert.equal(created.status, 201);
        assert.equal(created.body.network.name, 'j');
        const updated = await client.put(`/v2.0/networks/${net.id}.json`, { network: { name: 'renamed' } });
        assert.equal(updated.body.network.name, 'renamed');
        assert.equal((await client.delete(`/v2.0/networks/${created.body.network.id}/`)).status, 204);
      });
    });
  });
}

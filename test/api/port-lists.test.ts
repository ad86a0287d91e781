/**
 * Long port lists (more than the 50 ports whose children are read by id): a whole list reads its
 * ports' children joined to the list's own condition, a page sorted by id alone joined within
 * its ids, other pages by id, a show reads one port's. Every port must look the same whichever
 * way it was read, for an admin and for a member (the visibility scope and the filters are part
 * of the join), on every store.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import { networkWithSubnet, type Item } from '../fixtures/topology.js';
import { adminContext } from '../../src/core/context.js';
import { EMPTY_LIST_QUERY } from '../../src/core/list-query.js';

/** More ports than `CHILDREN_TOGETHER_MAX` (store/ports.ts). */
const PORTS = 60;

for (const backend of BACKENDS) {
  describe(`long port lists (${backend})`, () => {
    const api = useApi(backend);
    const project = newProjectId();
    let client: Client;
    let network: Item;
    let subnet: Item;
    /** Each port as `GET /v2.0/ports/{id}` shows it, by id (the network's DHCP port too, if any). */
    const shown = new Map<string, Item>();
    /** The same as an admin sees them (binding attributes too). */
    const shownToAdmin = new Map<string, Item>();
    /** Ports the network had before ours (octonet's DHCP port, if it makes one). */
    let service = 0;

    before(async () => {
      client = api.as({ project });
      ({ network, subnet } = await networkWithSubnet(client, '10.60.0.0/24'));
      const before = (await client.get(`/v2.0/ports?network_id=${network.id}`)).body as { ports: Item[] };
      service = before.ports.length;
      for (const port of before.ports) {
        shown.set(port.id as string, port);
        shownToAdmin.set(
          port.id as string,
          ((await api.admin.get(`/v2.0/ports/${port.id}`)).body as { port: Item }).port,
        );
      }
      const ports = Array.from({ length: PORTS }, (_, i) => ({
        network_id: network.id,
        name: `p${i}`,
        device_id: `dev-${i % 7}`,
        // Children of every kind on some ports, two of a kind on a few (their order matters).
        ...(i % 3 === 0 && {
          allowed_address_pairs: [{ ip_address: `10.61.0.${i}` }, { ip_address: `10.61.1.${i}` }],
        }),
        ...(i % 4 === 0 && {
          extra_dhcp_opts: [
            { opt_name: 'tftp-server', opt_value: `10.62.0.${i}` },
            { opt_name: 'bootfile-name', opt_value: `boot-${i}` },
          ],
        }),
        ...(i % 5 === 0 && { fixed_ips: [{ subnet_id: subnet.id }, { subnet_id: subnet.id }] }),
      }));
      const created = await client.post('/v2.0/ports', { ports });
      assert.equal(created.status, 201, created.text);
      const ids = (created.body as { ports: Item[] }).ports.map((p) => p.id as string);
      for (const [i, id] of ids.entries()) {
        const tagged = await client.put(`/v2.0/ports/${id}/tags`, { tags: [`t${i % 3}`, 'long-list'] });
        assert.equal(tagged.status, 200, tagged.text);
      }
      for (const id of ids) {
        const response = await client.get(`/v2.0/ports/${id}`);
        assert.equal(response.status, 200);
        shown.set(id, (response.body as { port: Item }).port);
        shownToAdmin.set(id, ((await api.admin.get(`/v2.0/ports/${id}`)).body as { port: Item }).port);
      }
    });

    /** The listed ports of the test network, each checked against its show. */
    function assertSameAsShown(listed: Item[], expectedCount: number, shows = shown) {
      const ours = listed.filter((p) => p.network_id === network.id);
      assert.equal(ours.length, expectedCount);
      for (const port of ours) assert.deepEqual(port, shows.get(port.id as string));
      const ids = ours.map((p) => p.id as string);
      assert.deepEqual(ids, [...ids].sort(), 'ordered by id');
    }

    it('a whole list shows every port as its show does, for the member and for an admin', async () => {
      const mine = await client.get('/v2.0/ports');
      assert.equal(mine.status, 200);
      assertSameAsShown((mine.body as { ports: Item[] }).ports, PORTS + service);
      const all = await api.admin.get('/v2.0/ports');
      assertSameAsShown((all.body as { ports: Item[] }).ports, PORTS + service, shownToAdmin);
    });

    it('filters apply to the children read with a whole list', async () => {
      const bySubnet = await client.get(`/v2.0/ports?fixed_ips=subnet_id%3D${subnet.id}&device_owner=`);
      assertSameAsShown((bySubnet.body as { ports: Item[] }).ports, PORTS);
      const tagged = await client.get('/v2.0/ports?tags=long-list&not-tags=t0');
      assertSameAsShown((tagged.body as { ports: Item[] }).ports, PORTS - PORTS / 3);
      const someFields = await client.get(`/v2.0/ports?network_id=${network.id}&fields=id&fields=fixed_ips`);
      const listed = (someFields.body as { ports: Item[] }).ports;
      assert.equal(listed.length, PORTS + service);
      for (const port of listed) {
        const full = shown.get(port.id as string);
        if (full) assert.deepEqual(port, { id: full.id, fixed_ips: full.fixed_ips });
      }
    });

    it('pages give the same ports as the whole list, in every order', async () => {
      // Pages of more than 50 ports sorted by id alone read their children within the page's ids
      // (store/ports.ts, loadListedPortRecords); pages sorted otherwise, and short ones, by id.
      for (const sort of ['', '&sort_key=id&sort_dir=desc', '&sort_key=name&sort_dir=asc']) {
        const url = `/v2.0/ports?network_id=${network.id}${sort}`;
        const whole = ((await client.get(url)).body as { ports: Item[] }).ports;
        assert.equal(whole.length, PORTS + service);
        for (const size of [25, 55]) {
          const paged: Item[] = [];
          for (let marker = ''; ;) {
            const page = await client.get(`${url}&limit=${size}${marker}`);
            assert.equal(page.status, 200, page.text);
            const ports = (page.body as { ports: Item[] }).ports;
            paged.push(...ports);
            if (ports.length < size) break;
            marker = `&marker=${ports[ports.length - 1]!.id as string}`;
          }
          assert.deepEqual(paged, whole, `pages of ${size}${sort}`);
        }
        const fromEnd = await client.get(`${url}&limit=55&marker=${whole.at(-1)!.id as string}&page_reverse=True`);
        assert.deepEqual((fromEnd.body as { ports: Item[] }).ports, whole.slice(-56, -1), `a reversed page${sort}`);
      }
    });

    /**
     * An admin's list is answered from cached views (core/ports/view-cache.ts): after each kind of
     * change, it must equal the ports' shows and the uncached list (the same list with `fields`
     * naming every attribute, which builds the views afresh), whole and paged.
     */
    async function assertAdminListFresh(label: string, touched: readonly string[]) {
      const url = `/v2.0/ports?network_id=${network.id}`;
      const listed = ((await api.admin.get(url)).body as { ports: Item[] }).ports;
      const fields = Object.keys(listed[0]!)
        .map((f) => `fields=${encodeURIComponent(f)}`)
        .join('&');
      const uncached = ((await api.admin.get(`${url}&${fields}`)).body as { ports: Item[] }).ports;
      assert.deepEqual(listed, uncached, label);
      const page = (
        (await api.admin.get(`${url}&limit=20&marker=${listed[9]!.id as string}`)).body as { ports: Item[] }
      ).ports;
      assert.deepEqual(page, listed.slice(10, 30), `${label}: a page`);
      for (const id of touched) {
        // An admin's show is answered from the cache too; with `fields` it is built afresh.
        const show = ((await api.admin.get(`/v2.0/ports/${id}`)).body as { port: Item }).port;
        const fresh = ((await api.admin.get(`/v2.0/ports/${id}?${fields}`)).body as { port: Item }).port;
        assert.deepEqual(show, fresh, `${label}: ${id} shown`);
        assert.deepEqual(
          listed.find((p) => p.id === id),
          show,
          `${label}: ${id}`,
        );
      }
      return listed;
    }

    it("an admin's cached list follows every kind of change of a port", async () => {
      const admin = api.admin;
      const listed = await assertAdminListFresh('before', []);
      const [a, b, c, d] = listed.filter((p) => p.device_owner === '').map((p) => p.id as string);
      const change = async (id: string, port: Item) => {
        const r = await admin.put(`/v2.0/ports/${id!}`, { port });
        assert.equal(r.status, 200, r.text);
      };
      await change(a!, { name: 'renamed', description: 'd', admin_state_up: false });
      await assertAdminListFresh('name, description, admin_state_up', [a!]);
      await change(a!, { fixed_ips: [{ subnet_id: subnet.id }, { subnet_id: subnet.id }] });
      await assertAdminListFresh('fixed_ips', [a!]);
      await change(b!, { 'binding:host_id': 'host-1' });
      await assertAdminListFresh('binding', [b!]);
      await change(b!, { security_groups: [] });
      await assertAdminListFresh('security_groups', [b!]);
      await change(c!, { port_security_enabled: false, allowed_address_pairs: [], security_groups: [] });
      await change(c!, { extra_dhcp_opts: [{ opt_name: 'mtu', opt_value: '1400' }], dns_name: 'host-c' });
      await assertAdminListFresh('port security, address pairs, extra DHCP options, DNS name', [c!]);
      await change(d!, { allowed_address_pairs: [{ ip_address: '10.63.0.1' }] });
      assert.equal((await admin.put(`/v2.0/ports/${d!}/tags/late`, undefined)).status, 201);
      await assertAdminListFresh('address pairs, tag added', [d!]);
      assert.equal((await admin.delete(`/v2.0/ports/${d!}/tags/late`)).status, 204);
      await assertAdminListFresh('tag removed', [d!]);

      const policy = await admin.post('/v2.0/qos/policies', { policy: { name: 'port-lists' } });
      assert.equal(policy.status, 201, policy.text);
      const policyId = (policy.body as { policy: Item }).policy.id as string;
      await change(a!, { qos_policy_id: policyId });
      await assertAdminListFresh('port QoS policy', [a!]);
      // The network's policy shows on every port without a new port revision.
      const onNet = await admin.put(`/v2.0/networks/${network.id as string}`, { network: { qos_policy_id: policyId } });
      assert.equal(onNet.status, 200, onNet.text);
      const withNetQos = await assertAdminListFresh('network QoS policy', [a!, b!]);
      assert.ok(withNetQos.every((p) => p.qos_network_policy_id === policyId));
      await admin.put(`/v2.0/networks/${network.id as string}`, { network: { qos_policy_id: null } });
      await assertAdminListFresh('network QoS policy removed', [a!, b!]);

      // An auto-address subnet gives every port an address; deleting it takes them back.
      const v6 = await admin.post('/v2.0/subnets', {
        subnet: {
          network_id: network.id,
          ip_version: 6,
          cidr: 'fd00:60::/64',
          ipv6_address_mode: 'slaac',
          ipv6_ra_mode: 'slaac',
        },
      });
      assert.equal(v6.status, 201, v6.text);
      const v6Id = (v6.body as { subnet: Item }).subnet.id as string;
      const withV6 = await assertAdminListFresh('auto-address subnet added', [a!, b!, c!]);
      assert.ok(withV6.some((p) => (p.fixed_ips as Item[]).some((f) => f.subnet_id === v6Id)));
      assert.equal((await admin.delete(`/v2.0/subnets/${v6Id}`)).status, 204);
      const withoutV6 = await assertAdminListFresh('auto-address subnet deleted', [a!, b!, c!]);
      assert.ok(withoutV6.every((p) => (p.fixed_ips as Item[]).every((f) => f.subnet_id !== v6Id)));

      assert.equal((await admin.delete(`/v2.0/ports/${c!}`)).status, 204);
      const afterDelete = await assertAdminListFresh('port deleted', [a!]);
      assert.ok(!afterDelete.some((p) => p.id === c));
      // The member's own list (never cached) agrees with the shows too.
      for (const id of [a!, b!]) {
        const mine = ((await client.get(`/v2.0/ports?id=${id}`)).body as { ports: Item[] }).ports;
        assert.deepEqual(mine, [((await client.get(`/v2.0/ports/${id}`)).body as { port: Item }).port]);
      }
    });

    it('pages that keep missing the cache (a walk of more ports than it holds) read the same ports', async () => {
      const admin = api.admin;
      const url = `/v2.0/ports?network_id=${network.id as string}`;
      const uncachedList = async () => {
        const sample = ((await admin.get(url)).body as { ports: Item[] }).ports[0]!;
        const fields = Object.keys(sample)
          .map((f) => `fields=${encodeURIComponent(f)}`)
          .join('&');
        return ((await admin.get(`${url}&${fields}`)).body as { ports: Item[] }).ports;
      };
      const walk = async (size: number) => {
        const paged: Item[] = [];
        for (let marker = ''; ;) {
          const ports = ((await admin.get(`${url}&limit=${size}${marker}`)).body as { ports: Item[] }).ports;
          paged.push(...ports);
          if (ports.length < size) return paged;
          marker = `&marker=${ports[ports.length - 1]!.id as string}`;
        }
      };
      const policy = await admin.post('/v2.0/qos/policies', { policy: { name: 'port-lists-walk' } });
      assert.equal(policy.status, 201, policy.text);
      const policyId = (policy.body as { policy: Item }).policy.id as string;
      // A network QoS change leaves every cached view of its ports stale: each page of the walk
      // misses, and after a few such pages the lists read their rows with the versions. Once
      // they do, pages of more than 50 ports read their children within the page's ids and take
      // the network's policy from the versions.
      let uncached: Item[] = [];
      for (const [qos, size] of [
        [policyId, 5],
        [null, 55],
        [policyId, 55],
        [null, 5],
      ] as const) {
        const changed = await admin.put(`/v2.0/networks/${network.id as string}`, { network: { qos_policy_id: qos } });
        assert.equal(changed.status, 200, changed.text);
        const paged = await walk(size);
        uncached = await uncachedList();
        assert.ok(uncached.every((p) => p.qos_network_policy_id === qos));
        assert.deepEqual(paged, uncached, `walk by ${size} with network QoS ${qos}`);
        assert.deepEqual(((await admin.get(url)).body as { ports: Item[] }).ports, uncached, 'the whole list after');
      }
      assert.deepEqual(await walk(5), uncached, 'a second walk, from the cache');
    });

    it("an admin's list asked again with nothing written is the same, and changes with a write by another connection", async () => {
      const url = `/v2.0/ports?network_id=${network.id}`;
      const first = await api.admin.get(url);
      const again = await api.admin.get(url);
      assert.equal(again.text, first.text);
      if (backend !== 'sqlite') return;
      // SQLite keeps a list while its change token stands (core/ports/cached-views.ts): a commit
      // from outside the server's own connection (a CLI tool, another process) must retire it.
      const port = (first.body as { ports: Item[] }).ports.find((p) => p.device_owner === '')!;
      const other = new Database((api.config.database as string).slice('sqlite:'.length));
      try {
        other
          .prepare('UPDATE ports SET name = ?, revision_number = revision_number + 1 WHERE id = ?')
          .run('renamed-outside', port.id);
      } finally {
        other.close();
      }
      const after = ((await api.admin.get(url)).body as { ports: Item[] }).ports;
      assert.equal(after.find((p) => p.id === port.id)!.name, 'renamed-outside');
    });

    it("another project's member lists none of them", async () => {
      const other = await api.as({ project: newProjectId() }).get('/v2.0/ports');
      assert.equal(other.status, 200);
      assert.equal((other.body as { ports: Item[] }).ports.filter((p) => p.network_id === network.id).length, 0);
    });
  });

  describe(`port views kept packed (${backend})`, () => {
    // Room for two views as bytes: every other view a list or show answers from the cache is
    // unpacked (core/ports/view-cache.ts, packed-texts.ts).
    const api = useApi(backend, { config: { port_view_cache: { text_bytes: 3000, packed_bytes: 4 * 1024 * 1024 } } });

    it('lists, pages and shows give every view as the database does, and follow changes', async () => {
      const admin = api.admin;
      const { network, subnet } = await networkWithSubnet(admin, '10.64.0.0/24');
      const url = `/v2.0/ports?network_id=${network.id as string}`;
      const ports = Array.from({ length: 40 }, (_, i) => ({
        network_id: network.id,
        name: [`p${i}`, 'naïve "quoted" \\ ☃', ''][i % 3],
        device_id: `dev-${i}`,
        // Other shapes than the first port's: more children, more tokens.
        ...(i % 4 === 1 && { allowed_address_pairs: [{ ip_address: `10.65.0.${i}` }] }),
        ...(i % 5 === 2 && { fixed_ips: [{ subnet_id: subnet.id }, { subnet_id: subnet.id }] }),
      }));
      const created = await admin.post('/v2.0/ports', { ports });
      assert.equal(created.status, 201, created.text);
      const fromDatabase = async () => {
        const sample = ((await admin.get(url)).body as { ports: Item[] }).ports[0]!;
        const fields = Object.keys(sample).map((f) => `fields=${encodeURIComponent(f)}`);
        return ((await admin.get(`${url}&${fields.join('&')}`)).body as { ports: Item[] }).ports;
      };
      const listed = async (query = '') => ((await admin.get(url + query)).body as { ports: Item[] }).ports;
      let expected = await fromDatabase();
      assert.equal(expected.length, 40);
      assert.deepEqual(await listed(), expected);
      assert.deepEqual(await listed(), expected, 'again, unpacked again');
      const paged: Item[] = [];
      for (let marker = ''; ;) {
        const page = await listed(`&limit=7${marker}`);
        paged.push(...page);
        if (page.length < 7) break;
        marker = `&marker=${page[page.length - 1]!.id as string}`;
      }
      assert.deepEqual(paged, expected, 'pages of 7');
      for (const port of expected) {
        const shown = await admin.get(`/v2.0/ports/${port.id as string}`);
        assert.deepEqual((shown.body as { port: Item }).port, port);
      }
      const renamed = expected[3]!.id as string;
      const update = await admin.put(`/v2.0/ports/${renamed}`, { port: { name: 'renamed ✓' } });
      assert.equal(update.status, 200, update.text);
      // Push the renamed port's new view out of the bytes too, then read everything again.
      for (const port of expected.slice(0, 5)) await admin.get(`/v2.0/ports/${port.id as string}`);
      expected = await fromDatabase();
      assert.equal(expected.find((p) => p.id === renamed)!.name, 'renamed ✓');
      assert.deepEqual(await listed(), expected, 'after the update');
    });
  });
}

describe('lists kept while the database is unchanged (sqlite)', () => {
  // SQLite has a change token: an admin's list asked again with nothing written in between is
  // kept, and from then on answered as the same object, marked `kept`, whose body the route keeps
  // too (api/resource-routes.ts). A list asked once, or with packed views, is not kept: its entry
  // and body would grow the old generation.
  const bytes = useApi('sqlite');
  const packed = useApi('sqlite', { config: { port_view_cache: { text_bytes: 0, packed_bytes: 4 * 1024 * 1024 } } });
  const ctx = adminContext('test');

  const listTwice = async (api: typeof bytes) => {
    const { network } = await networkWithSubnet(api.admin, '10.66.0.0/24');
    const created = await api.admin.post('/v2.0/ports', { ports: [0, 1, 2].map(() => ({ network_id: network.id })) });
    assert.equal(created.status, 201, created.text);
    const query = { ...EMPTY_LIST_QUERY, filters: { network_id: [network.id] } };
    const once = (await api.server.services.ports.listTexts(ctx, query))!;
    assert.equal(once.kept, undefined, 'a list asked once is not kept');
    const first = (await api.server.services.ports.listTexts(ctx, query))!;
    const again = (await api.server.services.ports.listTexts(ctx, query))!;
    assert.equal(first.texts.length, 3);
    return { first, again, query, port: (created.body as { ports: Item[] }).ports[0]! };
  };

  it('keeps a list of views as bytes until a write, and does not keep one with packed views', async () => {
    const { first, again, query, port } = await listTwice(bytes);
    assert.equal(first.kept, true);
    assert.equal(again, first, 'the same list object, nothing read');
    const renamed = await bytes.admin.put(`/v2.0/ports/${port.id as string}`, { port: { name: 'renamed' } });
    assert.equal(renamed.status, 200, renamed.text);
    const after = (await bytes.server.services.ports.listTexts(ctx, query))!;
    assert.notEqual(after, first, 'read again after a write');

    const unpacked = await listTwice(packed);
    assert.ok(
      unpacked.first.texts.every((text) => !Buffer.isBuffer(text)),
      'every view packed',
    );
    assert.equal(unpacked.first.kept, undefined);
    assert.notEqual(unpacked.again, unpacked.first);
  });
});

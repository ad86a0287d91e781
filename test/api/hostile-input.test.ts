/**
 * Input a client controls that once reached the database or a recursive routine: NUL bytes,
 * invalid UTF-8, integers beyond a column, absurd `limit`s, deep JSON, another project's marker,
 * and the IPv6 subnet-router anycast address as a fixed IP. Each is refused (or clamped) as
 * Neutron does, identically on every backend, and never answered with a 5xx.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Response } from '../fixtures/api.js';

/** Sends raw bytes as a request body (fetch would re-encode a string as UTF-8). */
function sendBytes(
  base: string,
  method: string,
  path: string,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function assertRefused(r: Response | { status: number; text: string }, status: number, type?: string): void {
  assert.equal(r.status, status, r.text);
  const body = JSON.parse(r.text) as { NeutronError?: { type: string } };
  assert.ok(body.NeutronError, r.text);
  if (type) assert.equal(body.NeutronError.type, type, r.text);
}

const deep = (n: number) => '{"network": {"name": ' + '['.repeat(n) + ']'.repeat(n) + '}}';

for (const backend of BACKENDS) {
  describe(`hostile input (${backend})`, () => {
    const api = useApi(backend);

    it('refuses NUL bytes in bodies, tags, filters and paths with a 400', async () => {
      assertRefused(await api.admin.post('/v2.0/networks', { network: { name: 'a\u0000b' } }), 400);
      assertRefused(await api.admin.post('/v2.0/networks', { network: { description: '\u0000' } }), 400);
      const net = await api.admin.post('/v2.0/networks', { network: { name: 'nul' } });
      assert.equal(net.status, 201, net.text);
      const id = net.body.network.id as string;
      assertRefused(await api.admin.put(`/v2.0/networks/${id}`, { network: { name: 'x\u0000' } }), 400);
      assertRefused(await api.admin.put(`/v2.0/networks/${id}/tags/a%00b`), 400);
      assertRefused(await api.admin.put(`/v2.0/networks/${id}/tags`, { tags: ['ok', 'a\u0000'] }), 400);
      assertRefused(await api.admin.get('/v2.0/networks?name=a%00b'), 400);
      assertRefused(await api.admin.get('/v2.0/networks?tags=a%00b'), 400);
      assertRefused(await api.admin.get('/v2.0/ports?device_id=%00'), 400);
      assertRefused(await api.admin.get('/v2.0/networks?sort_key=name&sort_dir=asc&limit=1&marker=%00'), 400);
      assertRefused(await api.admin.get('/v2.0/networks/a%00b'), 400);
      assertRefused(await api.admin.delete('/v2.0/ports/%00'), 400);
      assertRefused(await api.admin.get(`/v2.0/quotas/a%00b`), 400);
      // Nothing was stored.
      const names = (await api.admin.get('/v2.0/networks')).body.networks.map((n: { name: string }) => n.name);
      assert.ok(!names.some((n: string) => n.includes('\u0000')));
    });

    it('refuses a body that is not valid UTF-8 instead of storing U+FFFD', async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"network": {"name": "a'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}'),
      ]);
      assertRefused(await sendBytes(api.url, 'POST', '/v2.0/networks', bytes), 400, 'HTTPBadRequest');
      const lone = Buffer.from('{"network": {"name": "\xed\xa0\x80"}}', 'latin1'); // an encoded surrogate
      assertRefused(await sendBytes(api.url, 'POST', '/v2.0/networks', lone), 400, 'HTTPBadRequest');
      const names = (await api.admin.get('/v2.0/networks')).body.networks.map((n: { name: string }) => n.name);
      assert.ok(!names.some((n: string) => n.includes('\ufffd')));
      // Valid multi-byte UTF-8 still works.
      const ok = await sendBytes(api.url, 'POST', '/v2.0/networks', Buffer.from('{"network": {"name": "ünï ☃"}}'));
      assert.equal(ok.status, 201, ok.text);
      assert.equal(JSON.parse(ok.text).network.name, 'ünï ☃');
    });

    it('checks integers against their column and filters against their type', async () => {
      assertRefused(
        await api.admin.post('/v2.0/subnetpools', {
          subnetpool: { name: 'p', prefixes: ['10.0.0.0/8'], default_prefixlen: 24, default_quota: 2147483648 },
        }),
        400,
      );
      assertRefused(await api.admin.get('/v2.0/networks?mtu=99999999999999999999999'), 400);
      assertRefused(await api.admin.get('/v2.0/networks?mtu=9223372036854775808'), 400);
      assertRefused(await api.admin.get('/v2.0/networks?revision_number=abc'), 400);
      assertRefused(await api.admin.get('/v2.0/networks?revision_number=99999999999999999999'), 400);
      assertRefused(await api.admin.put(`/v2.0/quotas/${'p'.repeat(300)}`, { quota: { network: 5 } }), 400);
      assertRefused(await api.admin.put(`/v2.0/quotas/${newProjectId()}`, { quota: { network: 2 ** 40 } }), 400);
      assertRefused(await api.admin.post('/v2.0/networks', { network: { mtu: 2 ** 40 } }), 400);
      assertRefused(
        await api.admin.post('/v2.0/networks', { network: { name: 'x', project_id: 'p'.repeat(300) } }),
        400,
      );
    });

    it('takes a limit beyond any column as "no limit" and refuses one that is not a number', async () => {
      for (const limit of ['9223372036854775808', '1' + '0'.repeat(400), '18446744073709551616']) {
        const r = await api.admin.get(`/v2.0/networks?limit=${limit}`);
        assert.equal(r.status, 200, `${limit.slice(0, 30)}: ${r.text}`);
        assert.ok(Array.isArray(r.body.networks));
      }
      assertRefused(await api.admin.get('/v2.0/networks?limit=-1'), 400, 'BadRequest');
      assertRefused(await api.admin.get('/v2.0/networks?limit=1e3'), 400, 'BadRequest');
    });

    it('refuses JSON nested 5,000 deep with a 400, in a body and in binding:profile', async () => {
      assertRefused(await api.admin.post('/v2.0/networks', deep(5000)), 400, 'HTTPBadRequest');
      assertRefused(await api.admin.post('/v2.0/networks', deep(100_000)), 400, 'HTTPBadRequest');
      const net = await api.admin.post('/v2.0/networks', { network: { name: 'deep' } });
      const profile = '{"port": {"network_id": "' + net.body.network.id + '", "binding:profile": ' + deep(5000) + '}}';
      assertRefused(await api.admin.post('/v2.0/ports', profile), 400, 'HTTPBadRequest');
      // Ordinary nesting still works.
      const admin = api.as({ project: newProjectId(), roles: ['service', 'member', 'reader'] });
      const ok = await admin.post('/v2.0/ports', {
        port: { network_id: net.body.network.id, 'binding:profile': { a: { b: { c: [1, [2, [3]]] } } } },
      });
      assert.equal(ok.status, 201, ok.text);
    });

    it('answers 404 for a marker in another project, as for one that does not exist', async () => {
      const a = api.as({ project: newProjectId() });
      const b = api.as({ project: newProjectId() });
      const secret = await a.post('/v2.0/networks', { network: { name: 'm-secret' } });
      assert.equal(secret.status, 201, secret.text);
      const own = await b.post('/v2.0/networks', { network: { name: 'm-own' } });
      assert.equal(own.status, 201, own.text);
      const marker = secret.body.network.id as string;
      for (const q of ['sort_key=name&sort_dir=asc&limit=1', 'limit=1', 'limit=1&page_reverse=true']) {
        assertRefused(await b.get(`/v2.0/networks?${q}&marker=${marker}`), 404, 'NetworkNotFound');
      }
      // Its owner may page from it.
      assert.equal((await a.get(`/v2.0/networks?sort_key=name&sort_dir=asc&limit=1&marker=${marker}`)).status, 200);
      // A port, a router, a security group and a subnet of A's are markers B cannot use either.
      const port = await a.post('/v2.0/ports', { port: { network_id: marker } });
      assertRefused(await b.get(`/v2.0/ports?limit=1&marker=${port.body.port.id}`), 404);
      const router = await a.post('/v2.0/routers', { router: { name: 'r' } });
      assertRefused(await b.get(`/v2.0/routers?limit=1&marker=${router.body.router.id}`), 404);
      // Subnets and security groups page from the start on a marker they cannot find (as Neutron's
      // pager does): B sees only its own rows either way.
      const sg = await a.post('/v2.0/security-groups', { security_group: { name: 'sg-secret' } });
      const sgs = await b.get(`/v2.0/security-groups?limit=5&marker=${sg.body.security_group.id}`);
      assert.equal(sgs.status, 200, sgs.text);
      assert.ok(!sgs.text.includes('sg-secret'));
      const subnet = await a.post('/v2.0/subnets', {
        subnet: { network_id: marker, cidr: '10.9.0.0/24', ip_version: 4 },
      });
      await b.post('/v2.0/subnets', {
        subnet: { network_id: own.body.network.id, cidr: '10.8.0.0/24', ip_version: 4 },
      });
      const subnets = await b.get(`/v2.0/subnets?limit=5&sort_key=cidr&sort_dir=asc&marker=${subnet.body.subnet.id}`);
      assert.equal(subnets.status, 200, subnets.text);
      assert.deepEqual(
        subnets.body.subnets.map((s: { cidr: string }) => s.cidr),
        ['10.8.0.0/24'],
      );
    });

    it("refuses IPv6's subnet-router anycast address for a non-router port, as Neutron's check_subnet_ip", async () => {
      const net = await api.admin.post('/v2.0/networks', { network: { name: 'anycast' } });
      const networkId = net.body.network.id as string;
      const subnet = await api.admin.post('/v2.0/subnets', {
        subnet: { network_id: networkId, cidr: 'fd00:1::/64', ip_version: 6 },
      });
      assert.equal(subnet.status, 201, subnet.text);
      const subnetId = subnet.body.subnet.id as string;
      for (const fixed of [{ subnet_id: subnetId, ip_address: 'fd00:1::' }, { ip_address: 'fd00:1::' }]) {
        const r = await api.admin.post('/v2.0/ports', {
          port: { network_id: networkId, device_owner: 'compute:nova', fixed_ips: [fixed] },
        });
        assertRefused(r, 400);
      }
      // A router's port may hold it (Neutron's ROUTER_PORT_OWNERS).
      const router = await api.admin.post('/v2.0/ports', {
        port: {
          network_id: networkId,
          device_owner: 'network:router_interface',
          fixed_ips: [{ subnet_id: subnetId, ip_address: 'fd00:1::' }],
        },
      });
      assert.equal(router.status, 201, router.text);
    });

    it('takes falsy service_types and empty dns_nameservers as none, a dict of name servers as its keys (as Neutron iterates them)', async () => {
      const net = await api.admin.post('/v2.0/networks', { network: { name: 'falsy' } });
      const networkId = net.body.network.id as string;
      const bodies = [
        { service_types: 0 },
        { service_types: false },
        { service_types: '' },
        { dns_nameservers: '' },
        { dns_nameservers: {} },
      ];
      for (const [i, extra] of bodies.entries()) {
        const r = await api.admin.post('/v2.0/subnets', {
          subnet: { network_id: networkId, cidr: `10.77.${i}.0/24`, ip_version: 4, ...extra },
        });
        assert.equal(r.status, 201, `${JSON.stringify(extra)}: ${r.text}`);
        assert.deepEqual(r.body.subnet.service_types, [], JSON.stringify(extra));
        assert.deepEqual(r.body.subnet.dns_nameservers, [], JSON.stringify(extra));
        const updated = await api.admin.put(`/v2.0/subnets/${r.body.subnet.id}`, { subnet: extra });
        assert.equal(updated.status, 200, `update ${JSON.stringify(extra)}: ${updated.text}`);
      }
      // A dict is its keys, as Neutron iterates it.
      const keys = await api.admin.post('/v2.0/subnets', {
        subnet: { network_id: networkId, cidr: '10.77.8.0/24', ip_version: 4, dns_nameservers: { '192.0.2.53': 1 } },
      });
      assert.equal(keys.status, 201, keys.text);
      assert.deepEqual(keys.body.subnet.dns_nameservers, ['192.0.2.53']);
      // Anything else that is not a list is still refused.
      const dict = await api.admin.post('/v2.0/subnets', {
        subnet: { network_id: networkId, cidr: '10.77.9.0/24', ip_version: 4, service_types: { a: 1 } },
      });
      assertRefused(dict, 400);
    });
  });
}

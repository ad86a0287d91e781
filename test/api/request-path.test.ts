/**
 * What every request goes through besides its route: the request id header, the one access line
 * (with that id, the caller, never a token), the request metrics, and the checks made before the
 * route runs (Accept, NUL in the URL), whose errors keep Neutron's body and the request id.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, useApi } from '../fixtures/api.js';

for (const backend of BACKENDS) {
  describe(`request path (${backend})`, () => {
    const api = useApi(backend);

    it('logs one access line per request, with the id the client got and without the token', async () => {
      const client = api.as({ project: 'p-log', user: 'u-log', roles: ['member', 'reader'] });
      const response = await client.get('/v2.0/ports/no-such-port', { 'x-auth-token': 'gAAAAAsecret' });
      assert.equal(response.status, 404);
      const id = response.headers.get('x-openstack-request-id');
      assert.match(id ?? '', /^req-[0-9a-f-]{36}$/);
      const lines = api.logs().filter((l) => l.request_id === id);
      assert.equal(lines.length, 1, JSON.stringify(lines));
      const { time: _time, pid: _pid, hostname: _host, ms, ...rest } = lines[0]!;
      assert.equal(typeof ms, 'number');
      assert.deepEqual(rest, {
        level: 30,
        service: 'octonet',
        request_id: id,
        method: 'GET',
        url: '/v2.0/ports/no-such-port',
        status: 404,
        project: 'p-log',
        user: 'u-log',
        msg: 'request',
      });
      assert.ok(!JSON.stringify(api.logs()).includes('gAAAAAsecret'));
    });

    it('gives every request its own id', async () => {
      const ids = new Set<string | null>();
      for (let i = 0; i < 3; i++)
        ids.add((await api.admin.get('/v2.0/networks')).headers.get('x-openstack-request-id'));
      assert.equal(ids.size, 3);
    });

    it('counts requests by method, route and status in the metrics', async () => {
      const network = await api.admin.post('/v2.0/networks', { network: { name: 'metered' } });
      const path = `/v2.0/networks/${(network.body as { network: { id: string } }).network.id}`;
      for (let i = 0; i < 2; i++) assert.equal((await api.admin.get(path)).status, 200);
      const metrics = (await api.admin.get('/metrics')).text;
      const count = metrics.match(
        /^octonet_api_request_seconds_count\{method="GET",route="\/v2\.0\/networks\/:id",status="200"\} (\d+)$/m,
      );
      assert.ok(count, metrics.slice(0, 2000));
      assert.ok(Number(count[1]) >= 2);
    });

    it('answers JSON without a charset, as Neutron', async () => {
      const response = await api.admin.get('/v2.0/networks');
      assert.equal(response.headers.get('content-type'), 'application/json');
    });

    it('refuses an Accept without JSON and a NUL in the URL before the route, with the request id', async () => {
      const refused = await api.admin.get('/v2.0/networks', { accept: 'text/html' });
      assert.equal(refused.status, 406);
      assert.equal((refused.body as { NeutronError: { type: string } }).NeutronError.type, 'HTTPNotAcceptable');
      assert.match(refused.headers.get('x-openstack-request-id') ?? '', /^req-/);
      const nul = await api.admin.get('/v2.0/networks/a%00b');
      assert.equal(nul.status, 400);
      assert.equal(nul.headers.get('content-type'), 'application/json');
      assert.match(nul.headers.get('x-openstack-request-id') ?? '', /^req-/);
    });
  });
}

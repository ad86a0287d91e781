/**
 * Availability zones over HTTP: the (still empty) list, its filters and fields, and the errors;
 * on both stores. Zones come from OVN gateway chassis once the OVN driver exists.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi } from '../fixtures/api.js';

for (const backend of BACKENDS) {
  describe(`availability zones (${backend})`, () => {
    const api = useApi(backend);

    it('lists no zones to an admin, a member and a caller without roles', async () => {
      for (const client of [
        api.admin,
        api.as({ project: newProjectId() }),
        api.as({ project: newProjectId(), roles: [] }),
      ]) {
        const r = await client.get('/v2.0/availability_zones');
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body, { availability_zones: [] });
      }
    });

    it('accepts the documented filters and fields, and ignores sorting and paging', async () => {
      for (const query of [
        'name=az1',
        'resource=router&state=available',
        'name=az1&name=az2',
        'name=',
        'fields=name&fields=state',
        'fields=bogus',
        'sort_key=bogus&sort_dir=sideways',
        'limit=abc&marker=x&page_reverse=true',
      ]) {
        const r = await api.admin.get(`/v2.0/availability_zones?${query}`);
        assert.equal(r.status, 200, `${query}: ${r.text}`);
        assert.deepEqual(r.body, { availability_zones: [] });
      }
    });

    it('refuses filters on other attributes', async () => {
      const r = await api.admin.get('/v2.0/availability_zones?bogus=1&project_id=x');
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, {
        NeutronError: {
          type: 'HTTPBadRequest',
          message: "['bogus', 'project_id'] is invalid attribute for filtering",
          detail: '',
        },
      });
    });

    it('has no show and no writes', async () => {
      const show = await api.admin.get('/v2.0/availability_zones/az1');
      assert.equal(show.status, 404);
      assert.equal(show.body.NeutronError.type, 'HTTPNotFound');
      for (const method of ['POST', 'PUT', 'DELETE']) {
        assert.equal((await api.admin.request(method, '/v2.0/availability_zones')).status, 405, method);
        assert.equal((await api.admin.request(method, '/v2.0/availability_zones/az1')).status, 405, method);
      }
    });
  });
}

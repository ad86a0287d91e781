/**
 * The topology feed (`GET /topology.json`) over HTTP, without a data plane: load balancer VIPs are
 * recognised from the ports alone (an Octavia VIP port, amphora ports listing it as an allowed
 * address pair); a project sees only its own; hosts and holders are for admins only.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

for (const backend of BACKENDS) {
  describe(`topology feed (${backend})`, () => {
    const api = useApi(backend);
    const project = newProjectId();
    let member: Client;
    let vip: Json;
    let amphora: Json;

    const created = async (client: Client, path: string, body: unknown) => {
      const r = await client.post(path, body);
      assert.equal(r.status, 201, r.text);
      return r.body;
    };

    before(async () => {
      member = api.as({ project });
      const { network } = await created(member, '/v2.0/networks', { network: { name: 'lb' } });
      await created(member, '/v2.0/subnets', {
        subnet: { network_id: network.id, cidr: '10.5.0.0/24', ip_version: 4 },
      });
      vip = (
        await created(api.admin, '/v2.0/ports', {
          port: { network_id: network.id, project_id: project, device_owner: 'Octavia', name: 'octavia-lb-vip' },
        })
      ).port;
      const address = vip.fixed_ips[0].ip_address;
      amphora = (
        await created(api.admin, '/v2.0/ports', {
          port: {
            network_id: network.id,
            project_id: project,
            name: 'amphora',
            device_owner: 'compute:nova',
            'binding:host_id': 'node7',
            allowed_address_pairs: [{ ip_address: address }],
          },
        })
      ).port;
      // A plain port on the same network is no VIP.
      await created(member, '/v2.0/ports', { port: { network_id: network.id, name: 'plain' } });
    });

    it('lists the VIP with its amphorae; admins also see hosts and the holder', async () => {
      const r = await api.admin.get('/topology.json');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.load_balancer_vips, [
        {
          port_id: vip.id,
          name: 'octavia-lb-vip',
          network_id: vip.network_id,
          ip_address: vip.fixed_ips[0].ip_address,
          host: '',
          held_by: null,
          amphorae: [{ port_id: amphora.id, name: 'amphora', device_owner: 'compute:nova', host: 'node7' }],
          floating_ips: [],
        },
      ]);
      assert.ok(r.body.networks.some((n: Json) => n.id === vip.network_id && n.subnets[0] === '10.5.0.0/24'));
    });

    it('shows a project its own VIPs without hosts, and other projects nothing', async () => {
      const own = (await member.get('/topology.json')).body.load_balancer_vips;
      assert.equal(own.length, 1);
      assert.equal('host' in own[0], false);
      assert.equal('held_by' in own[0], false);
      assert.equal('host' in own[0].amphorae[0], false);
      const other = await api.as({ project: newProjectId() }).get('/topology.json');
      assert.deepEqual(other.body.load_balancer_vips, []);
      assert.deepEqual(other.body.nodes, []);
    });

    it('shows BGP speakers to admins only, as neutron-dynamic-routing does', async () => {
      const r = await api.admin.post('/v2.0/bgp-speakers', {
        bgp_speaker: { name: 'feed-speaker', local_as: 65001, ip_version: 4 },
      });
      assert.equal(r.status, 201, r.text);
      const admin = (await api.admin.get('/topology.json')).body.bgp_speakers as Json[];
      const shown = admin.find((s) => s.id === r.body.bgp_speaker.id);
      assert.deepEqual(shown, {
        id: r.body.bgp_speaker.id,
        name: 'feed-speaker',
        local_as: 65001,
        ip_version: 4,
        peers: [],
        dragents: [],
        routes: [],
      });
      assert.deepEqual((await member.get('/topology.json')).body.bgp_speakers, []);
    });
  });
}

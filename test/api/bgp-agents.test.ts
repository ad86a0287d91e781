/**
 * BGP agents as n-d-r's DR agents, read from a real OVN southbound database: a node's agent
 * registers with `octonet:bgp-agent-id` and `octonet:bgp-agent-heartbeat` in its chassis'
 * `Chassis_Private.external_ids` (written here with `ovn-sbctl`, as the agent writes them), and
 * shows in `GET /v2.0/agents` as a `BGP dynamic routing agent` beside the chassis' own agent; a new
 * speaker is scheduled to it; a stale heartbeat makes it dead; updating and deleting it touch only
 * its registration.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { BACKENDS, useApi } from '../fixtures/api.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';
import type { Json } from '../fixtures/json.js';

const DR = 'BGP dynamic routing agent';

for (const backend of BACKENDS) {
  describe(`BGP DR agents from the SB (${backend})`, () => {
    const ovn = useOvnCentral();
    const api = useApi(backend, { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });
    const agentId = randomUUID();
    const nbCfg = () => Number(ovn.nbctl('get', 'NB_Global', '.', 'nb_cfg').trim());
    const drAgents = async () =>
      ((await api.admin.get(`/v2.0/agents?agent_type=${encodeURIComponent(DR)}`)).body.agents ?? []) as Json[];

    before(() => {
      ovn.addChassis('gw1', '192.0.2.21', { 'ovn-cms-options': 'enable-chassis-as-gw' });
      ovn.addChassis('compute1', '192.0.2.22', {});
    });

    it('lists a registered BGP agent as a DR agent, and only that one', async () => {
      assert.deepEqual(await drAgents(), []);
      ovn.sbctl(
        'set',
        'Chassis_Private',
        'gw1',
        `external_ids:octonet\\:bgp-agent-id=${agentId}`,
        `external_ids:octonet\\:bgp-agent-heartbeat=${nbCfg()}`,
      );
      const [agent] = await eventually(async () => {
        const found = await drAgents();
        assert.equal(found.length, 1);
        return found;
      });
      assert.equal(agent!.id, agentId);
      assert.equal(agent!.binary, 'neutron-bgp-dragent');
      assert.equal(agent!.topic, 'bgp_dragent');
      assert.equal(agent!.host, 'gw1');
      assert.equal(agent!.alive, true);
      const all = (await api.admin.get('/v2.0/agents')).body.agents as Json[];
      assert.equal(all.length, 3, 'two chassis agents and the DR agent');
    });

    it('schedules a new speaker to the alive DR agent', async () => {
      const speaker = (
        await api.admin.post('/v2.0/bgp-speakers', { bgp_speaker: { name: 's', local_as: 64512, ip_version: 4 } })
      ).body.bgp_speaker;
      const hosting = await api.admin.get(`/v2.0/bgp-speakers/${speaker.id}/bgp-dragents`);
      assert.deepEqual(
        hosting.body.agents.map((a: Json) => a.id),
        [agentId],
      );
      const instances = await api.admin.get(`/v2.0/agents/${agentId}/bgp-drinstances`);
      assert.deepEqual(
        instances.body.bgp_speakers.map((s: Json) => s.id),
        [speaker.id],
      );
      const chassisAgent = await api.admin.post('/v2.0/agents/compute1/bgp-drinstances', {
        bgp_speaker_id: speaker.id,
      });
      assert.equal(chassisAgent.body.NeutronError.type, 'DrAgentInvalid');
    });

    it('sets the description in the registration', async () => {
      const r = await api.admin.put(`/v2.0/agents/${agentId}`, { agent: { description: 'cloudgw side' } });
      assert.equal(r.status, 200, r.text);
      await eventually(async () =>
        assert.equal((await api.admin.get(`/v2.0/agents/${agentId}`)).body.agent.description, 'cloudgw side'),
      );
      assert.equal(
        ovn.sbctl('get', 'Chassis_Private', 'gw1', 'external_ids:octonet\\:bgp-agent-description').trim(),
        '"cloudgw side"',
      );
    });

    it('is dead once its heartbeat falls behind and its chassis is quiet', async () => {
      ovn.sbctl(
        'set',
        'Chassis_Private',
        'gw1',
        `external_ids:octonet\\:bgp-agent-heartbeat=${nbCfg() - 5}`,
        'nb_cfg_timestamp=0',
      );
      await eventually(async () => assert.equal((await drAgents())[0]?.alive, false));
    });

    it('deleting it removes its registration and leaves the chassis', async () => {
      assert.equal((await api.admin.delete(`/v2.0/agents/${agentId}`)).status, 204);
      await eventually(async () => assert.deepEqual(await drAgents(), []));
      assert.ok(ovn.sbRows('Chassis').some((c) => c.name === 'gw1'));
      assert.equal((await api.admin.get('/v2.0/agents/gw1')).status, 200);
    });
  });
}

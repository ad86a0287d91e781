/**
 * Chassis as agents and port binding to them. The chassis here are SB rows written with
 * `ovn-sbctl` as ovn-controller would write them (no data plane in this file; the lab tests run
 * real ovn-controllers): a plain chassis and a gateway chassis.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi } from '../fixtures/api.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';
import type { Json } from '../fixtures/json.js';

for (const backend of BACKENDS) {
  describe(`OVN agents and binding (${backend})`, () => {
    const ovn = useOvnCentral();
    const api = useApi(backend, { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });
    const nbCfg = () => Number(ovn.nbctl('get', 'NB_Global', '.', 'nb_cfg').trim());

    before(() => {
      ovn.addChassis('compute1', '192.0.2.11', { 'ovn-bridge-mappings': 'physnet1:br-ex', 'datapath-type': 'netdev' });
      ovn.addChassis('gateway1', '192.0.2.12', {
        'ovn-bridge-mappings': 'physnet1:br-ex',
        'ovn-cms-options': 'enable-chassis-as-gw,availability-zones=az1:az2',
      });
    });

    const agents = async () => {
      const r = await api.admin.get('/v2.0/agents');
      assert.equal(r.status, 200);
      return r.body.agents as Json[];
    };

    it('lists each chassis as an OVN Controller (Gateway) agent, as ML2/OVN shows them', async () => {
      const list = await eventually(async () => {
        const found = await agents();
        assert.equal(found.length, 2);
        return found;
      });
      const compute = list.find((a) => a.id === 'compute1');
      assert.deepEqual(Object.keys(compute).sort(), [
        'admin_state_up',
        'agent_type',
        'alive',
        'availability_zone',
        'binary',
        'configurations',
        'description',
        'heartbeat_timestamp',
        'host',
        'id',
        'topic',
      ]);
      assert.equal(compute.agent_type, 'OVN Controller agent');
      assert.equal(compute.binary, 'ovn-controller');
      assert.equal(compute.host, 'compute1');
      assert.equal(compute.topic, 'n/a');
      assert.equal(compute.alive, true);
      assert.equal(compute.admin_state_up, true);
      assert.deepEqual(compute.configurations, { chassis_name: 'compute1', 'bridge-mappings': 'physnet1:br-ex' });
      assert.match(compute.heartbeat_timestamp, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      const gateway = list.find((a) => a.id === 'gateway1');
      assert.equal(gateway.agent_type, 'OVN Controller Gateway agent');
      assert.equal(gateway.availability_zone, 'az1, az2');
    });

    it('filters and fields apply; members see no agents and cannot show one', async () => {
      const r = await api.admin.get('/v2.0/agents?agent_type=OVN%20Controller%20Gateway%20agent&fields=id&fields=host');
      assert.deepEqual(r.body.agents, [{ id: 'gateway1', host: 'gateway1' }]);
      const member = api.as({ project: newProjectId() });
      assert.deepEqual((await member.get('/v2.0/agents')).body.agents, []);
      const show = await member.get('/v2.0/agents/compute1');
      assert.equal(show.status, 404);
      assert.equal(show.body.NeutronError.type, 'AgentNotFound');
    });

    it('an update sets the description; turning the agent off is refused', async () => {
      let r = await api.admin.put('/v2.0/agents/compute1', { agent: { description: 'rack 4' } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { agent: { description: 'rack 4' } });
      assert.equal((await api.admin.get('/v2.0/agents/compute1')).body.agent.description, 'rack 4');
      r = await api.admin.put('/v2.0/agents/compute1', { agent: { admin_state_up: false } });
      assert.equal(r.status, 400);
      assert.equal(r.body.NeutronError.message, 'Bad agent request: OVN agent status cannot be updated.');
    });

    it('a port bound to a live chassis is an ovs port; to an unknown or dead one, binding_failed', async () => {
      const net = (await api.admin.post('/v2.0/networks', { network: { name: 'bind' } })).body.network;
      const bind = async (host: string) =>
        (await api.admin.post('/v2.0/ports', { port: { network_id: net.id, 'binding:host_id': host } })).body.port;
      const bound = await bind('compute1');
      assert.equal(bound['binding:vif_type'], 'ovs');
      // os-vif plugs by bridge_name and datapath_type (the chassis' integration bridge datapath).
      assert.deepEqual(bound['binding:vif_details'], {
        port_filter: true,
        connectivity: 'l2',
        bridge_name: 'br-int',
        datapath_type: 'netdev',
      });
      const lsp = ovn.nbRows('Logical_Switch_Port').find((r) => r.name === bound.id);
      assert.deepEqual(lsp.options, { 'requested-chassis': 'compute1', mcast_flood_reports: 'true' });
      assert.equal((await bind('nowhere'))['binding:vif_type'], 'binding_failed');
      // compute1 stops answering: far behind on nb_cfg and silent for longer than agent_down_time.
      ovn.sbctl('set', 'Chassis_Private', 'compute1', `nb_cfg=${nbCfg() - 5}`, 'nb_cfg_timestamp=0');
      // octonet sees the SB change through its monitor, a moment after ovn-sbctl returns.
      await eventually(async () => assert.equal((await agents()).find((a) => a.id === 'compute1').alive, false));
      assert.equal((await bind('compute1'))['binding:vif_type'], 'binding_failed');
    });

    it('deleting an agent removes its chassis from the SB', async () => {
      assert.equal((await api.admin.delete('/v2.0/agents/compute1')).status, 204);
      assert.equal(
        (await agents()).find((a) => a.id === 'compute1'),
        undefined,
      );
      assert.equal(
        ovn.sbRows('Chassis').find((c) => c.name === 'compute1'),
        undefined,
      );
      assert.equal((await api.admin.delete('/v2.0/agents/compute1')).status, 404);
    });

    it("a chassis' neutron-ovn-metadata-agent is an OVN Metadata agent, alive with its chassis", async () => {
      const id = '6a1d3e2b-5c4f-5e6a-9b8c-7d6e5f4a3b2c';
      // What the agent writes at registration and on every SB_Global update.
      ovn.sbctl(
        'set',
        'Chassis_Private',
        'gateway1',
        `external_ids:"neutron:ovn-metadata-id"="${id}"`,
        `external_ids:"neutron:ovn-metadata-sb-cfg"="${nbCfg()}"`,
      );
      const metadata = await eventually(async () => {
        const found = (await agents()).find((a) => a.id === id);
        assert.ok(found);
        return found;
      });
      assert.equal(metadata.agent_type, 'OVN Metadata agent');
      assert.equal(metadata.binary, 'neutron-ovn-metadata-agent');
      assert.equal(metadata.host, 'gateway1');
      assert.equal(metadata.alive, true);
      assert.equal(metadata.configurations.chassis_name, 'gateway1');
      let r = await api.admin.get('/v2.0/agents?agent_type=OVN%20Metadata%20agent&fields=id');
      assert.deepEqual(r.body.agents, [{ id }]);
      r = await api.admin.put(`/v2.0/agents/${id}`, { agent: { description: 'metadata on gw' } });
      assert.equal(r.status, 200);
      await eventually(async () =>
        assert.equal((await api.admin.get(`/v2.0/agents/${id}`)).body.agent.description, 'metadata on gw'),
      );
      // The controller agent keeps its own description.
      assert.equal((await api.admin.get('/v2.0/agents/gateway1')).body.agent.description, '');
      // Its ovn-controller stops answering: the metadata agent is not alive either.
      ovn.sbctl('set', 'Chassis_Private', 'gateway1', `nb_cfg=${nbCfg() - 5}`, 'nb_cfg_timestamp=0');
      await eventually(async () => assert.equal((await agents()).find((a) => a.id === id).alive, false));
    });
  });
}

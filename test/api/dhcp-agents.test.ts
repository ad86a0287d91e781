/**
 * The DHCP agent scheduler's URLs without DHCP agents, over HTTP on both databases: a network's
 * DHCP agents are none; an agent (a test driver reports one OVN controller agent, as ML2/OVN does)
 * hosts no network, cannot be given one (InvalidDHCPAgent) or lose one (NetworkNotHostedByDhcpAgent);
 * an unknown agent is AgentNotFound; admin only; the extension stays unadvertised. The real
 * `openstack network agent list --network` then prints an empty table instead of ML2/OVN's 404.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { MechanismDriver } from '../../src/drivers/contract.js';
import { BACKENDS, newProjectId, useApi } from '../fixtures/api.js';
import { OpenstackCli } from '../fixtures/openstack-cli.js';

const AGENT = {
  id: 'compute1',
  agent_type: 'OVN Controller agent',
  binary: 'ovn-controller',
  host: 'compute1',
  topic: 'n/a',
  alive: true,
  admin_state_up: true,
  configurations: {},
  description: '',
  availability_zone: '',
  heartbeat_timestamp: '2026-11-25 00:00:00.000000+00:00',
};

const reporter: MechanismDriver = {
  name: 'test-agents',
  agents: { listAgents: async () => [AGENT], describeAgent: async () => false, deleteAgent: async () => false },
};

for (const backend of BACKENDS) {
  describe(`DHCP agent URLs without DHCP agents (${backend})`, () => {
    const api = useApi(backend, { drivers: [reporter] });
    let networkId = '';

    before(async () => {
      networkId = (await api.admin.post('/v2.0/networks', { network: { name: 'd' } })).body.network.id;
    });

    it("a network's DHCP agents: none", async () => {
      const r = await api.admin.get(`/v2.0/networks/${networkId}/dhcp-agents`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { agents: [] });
    });

    it("an agent's DHCP networks: none; AgentNotFound for an unknown agent", async () => {
      let r = await api.admin.get('/v2.0/agents/compute1/dhcp-networks');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { networks: [] });
      r = await api.admin.get('/v2.0/agents/nope/dhcp-networks');
      assert.equal(r.status, 404);
      assert.equal(r.body.NeutronError.type, 'AgentNotFound');
    });

    it('adding a network: NetworkNotFound, AgentNotFound, then InvalidDHCPAgent', async () => {
      let r = await api.admin.post('/v2.0/agents/compute1/dhcp-networks', {
        network_id: '00000000-0000-0000-0000-000000000000',
      });
      assert.equal(r.status, 404);
      assert.equal(r.body.NeutronError.type, 'NetworkNotFound');
      r = await api.admin.post('/v2.0/agents/nope/dhcp-networks', { network_id: networkId });
      assert.equal(r.body.NeutronError.type, 'AgentNotFound');
      r = await api.admin.post('/v2.0/agents/compute1/dhcp-networks', { network_id: networkId });
      assert.equal(r.status, 404);
      assert.deepEqual(r.body.NeutronError, {
        type: 'InvalidDHCPAgent',
        message: 'Agent compute1 is not a valid DHCP Agent or has been disabled.',
        detail: '',
      });
      r = await api.admin.post('/v2.0/agents/compute1/dhcp-networks', {});
      assert.equal(r.status, 400);
    });

    it('removing a network: NetworkNotHostedByDhcpAgent (409); AgentNotFound for an unknown agent', async () => {
      let r = await api.admin.delete(`/v2.0/agents/compute1/dhcp-networks/${networkId}`);
      assert.equal(r.status, 409);
      assert.equal(r.body.NeutronError.type, 'NetworkNotHostedByDhcpAgent');
      assert.equal(r.body.NeutronError.message, `The network ${networkId} is not hosted by the DHCP Agent compute1.`);
      r = await api.admin.delete(`/v2.0/agents/nope/dhcp-networks/${networkId}`);
      assert.equal(r.body.NeutronError.type, 'AgentNotFound');
    });

    it('admin only; the dhcp_agent_scheduler extension is not advertised', async () => {
      const member = api.as({ project: newProjectId() });
      let r = await member.get(`/v2.0/networks/${networkId}/dhcp-agents`);
      assert.equal(r.status, 403);
      assert.equal(r.body.NeutronError.type, 'PolicyNotAuthorized');
      r = await member.get('/v2.0/agents/compute1/dhcp-networks');
      assert.equal(r.status, 403);
      r = await api.admin.get('/v2.0/extensions/dhcp_agent_scheduler');
      assert.equal(r.status, 404);
    });

    if (backend === 'sqlite') {
      it('openstack network agent list --network prints no agents', async () => {
        const cli = new OpenstackCli(api.url);
        assert.deepEqual(await cli.json(['network', 'agent', 'list', '--network', networkId]), []);
      });
    }
  });
}

/**
 * Debian's neutron-ovn-metadata-agent on a lab node, against octonet's OVN as against ML2/OVN: a
 * lab VM fetches http://169.254.169.254/openstack/latest/meta_data.json through it (DHCP's
 * option 121 route → the network's localport metadata port → the agent's ovnmeta namespace and
 * haproxy → the agent's proxy → a stand-in for nova-api-metadata, which checks the instance id,
 * project and signature as Nova does). The agent registers in SB and octonet lists it.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID, createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { startMetadataAgent, type MetadataAgent } from '../fixtures/metadata-agent.js';
import type { Json } from '../fixtures/json.js';
import { check, created, notRoot, pollUntil, useLab } from '../lab/lab-fixture.js';

describe('the OVN metadata agent on octonet serves a VM its metadata', { skip: notRoot }, () => {
  const { lab } = useLab({ name: 'novameta', nodes: 1 });
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb } }) });
  const secret = randomBytes(12).toString('hex');
  const serverId = randomUUID();
  let agent: MetadataAgent | undefined;
  let network: Json;
  let port: Json;

  before(async () => {
    ({ network } = await created(api.admin, '/v2.0/networks', { network: { name: 'meta-net' } }));
    await created(api.admin, '/v2.0/subnets', {
      subnet: { network_id: network.id, cidr: '10.30.0.0/24', ip_version: 4 },
    });
    ({ port } = await created(api.admin, '/v2.0/ports', {
      port: {
        network_id: network.id,
        device_id: serverId,
        device_owner: 'compute:nova',
        'binding:host_id': 'node1',
      },
    }));
    agent = await startMetadataAgent(lab(), 'node1', secret);
  });
  after(async () => {
    await agent?.stop();
  });

  it('the network has its localport metadata port, and DHCP routes 169.254.169.254 to it', async () => {
    const ports = (await api.admin.get(`/v2.0/ports?network_id=${network.id}&device_owner=network:distributed`)).body
      .ports;
    assert.equal(ports.length, 1);
    const metadataIp = ports[0].fixed_ips[0].ip_address;
    assert.equal(await lab().nbctl('get', 'Logical_Switch_Port', ports[0].id, 'type'), 'localport');
    await lab().createVm({ node: 'node1', port: port.id, name: 'meta-vm' });
    const routes = await check(lab(), lab().vmCommand('meta-vm', ['ip', '-4', 'route']));
    assert.match(routes, new RegExp(`^169\\.254\\.169\\.254 via ${metadataIp.replace(/\./g, '\\.')} `, 'm'));
  });

  it('the VM fetches meta_data.json through the agent; Nova (stand-in) saw the right instance and signature', async () => {
    const url = 'http://169.254.169.254/openstack/latest/meta_data.json';
    const fetchOnce = () =>
      lab().exec(lab().vmCommand('meta-vm', ['curl', '-sf', '--max-time', '5', url]), { timeoutMs: 15_000 });
    // The agent provisions the namespace once it sees the port bound on its chassis.
    const body = await pollUntil(
      async () => {
        const r = await fetchOnce();
        return r.code === 0 ? r.stdout : undefined;
      },
      `metadata through the agent; its log:\n${agent!.log().split('\n').slice(-30).join('\n')}`,
      60_000,
    );
    const metadata = JSON.parse(body);
    assert.equal(metadata.uuid, serverId);
    assert.equal(metadata.project_id, port.project_id);
    const seen = agent!.standinRequests().find((r) => r.status === 200)!;
    assert.equal(seen.instanceId, serverId, "X-Instance-ID is the port's device_id");
    assert.equal(seen.projectId, port.project_id, "X-Tenant-ID is the port's project");
    assert.equal(seen.forwardedFor, port.fixed_ips[0].ip_address, "X-Forwarded-For is the VM's address");
    assert.equal(seen.signature, createHmac('sha256', secret).update(serverId).digest('hex'));
  });

  it('the agent registered in SB and octonet lists it as an alive OVN Metadata agent', async () => {
    const agents = await pollUntil(async () => {
      const r = await api.admin.get('/v2.0/agents?agent_type=OVN%20Metadata%20agent');
      return r.status === 200 && r.body.agents.length === 1 ? r.body.agents : undefined;
    }, 'the metadata agent in GET /v2.0/agents');
    assert.equal(agents[0].binary, 'neutron-ovn-metadata-agent');
    assert.equal(agents[0].host, 'node1');
    assert.equal(agents[0].alive, true);
  });
});

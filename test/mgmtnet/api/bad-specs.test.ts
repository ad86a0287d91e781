/**
 * Bad specs are refused before anything is created, with a message naming the field: overlapping
 * CIDRs, an unknown chassis (octonet with OVN central: agents come from the SB), an MTU too large for
 * geneve, and project trouble with real Keystone credentials (a project that does not exist, another
 * project without admin, a provider topology without admin). Each case asserts zero writes and that
 * no tagged object exists afterwards. The same Keystone run also proves the password/`clouds.yaml`
 * path of the client end to end (a member creates the per-node-ports network in its own project).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi, type TestApi } from '../../fixtures/api.js';
import { useKeystone } from '../../fixtures/keystone.js';
import { eventually, useOvnCentral } from '../../fixtures/ovn-central.js';
import { NeutronClient } from '../../../src/mgmtnet/neutron-client.js';
import { applySpec } from '../../../src/mgmtnet/reconcile.js';
import { SpecError, validateSpec } from '../../../src/mgmtnet/spec.js';
import { clientFor, makeSpec, rawSpec } from '../fixtures.js';

async function assertNothingOwned(api: TestApi, name: string): Promise<void> {
  for (const collection of ['networks', 'subnets', 'ports', 'routers', 'security-groups']) {
    const list = (await api.admin.get(`/v2.0/${collection}?tags=octonet-mgmt-net:${name}`)).body[
      collection.replace(/-/g, '_')
    ];
    assert.deepEqual(list, [], `no ${collection} of ${name}`);
  }
}

function refusedWith(field: string, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof SpecError, `a SpecError, got ${String(error)}`);
    assert.equal(error.field, field);
    assert.match(error.message, pattern);
    assert.ok(error.message.startsWith(`${field}: `));
    return true;
  };
}

describe('mgmt-net bad specs (octonet with OVN central)', () => {
  const ovn = useOvnCentral();
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });

  before(async () => {
    ovn.addChassis('node1', '192.0.2.31');
    ovn.addChassis('node2', '192.0.2.32');
    await eventually(async () => {
      const agents = (await api.admin.get('/v2.0/agents')).body.agents;
      assert.equal(agents.length, 2);
    });
  });

  it('refuses a link-router provider CIDR that overlaps the tenant CIDR', () => {
    assert.throws(
      () =>
        makeSpec({
          topology: 'link-router',
          network: { cidr: '172.24.0.0/16' },
          linkRouter: { cidr: '172.24.8.0/24' },
        }),
      refusedWith('spec.linkRouter.cidr', /172\.24\.8\.0\/24 overlaps the tenant CIDR 172\.24\.0\.0\/16/),
    );
  });

  it('refuses an MTU larger than geneve carries on the underlay', () => {
    assert.throws(
      () => makeSpec({ network: { cidr: '172.24.0.0/16', mtu: 9000 } }),
      refusedWith('spec.network.mtu', /9000 is larger than 1442.*geneve/),
    );
    // The same MTU is fine where the spec says the underlay carries jumbo frames.
    assert.equal(makeSpec({ network: { cidr: '172.24.0.0/16', mtu: 8900, underlayMtu: 9000 } }).spec.network.mtu, 8900);
  });

  it('refuses a chassis that is not a known OVN chassis, before any write', async () => {
    const client = clientFor(api.url);
    const spec = makeSpec(
      {
        nodes: [
          { name: 'node1', chassis: 'node1' },
          { name: 'node9', chassis: 'node9.example' },
        ],
      },
      'badnode',
    );
    await assert.rejects(
      applySpec(spec, client),
      refusedWith(
        'spec.nodes.1.chassis',
        /"node9\.example" \(node node9\) is not a known OVN chassis \(known: node1, node2\)/,
      ),
    );
    assert.equal(client.calls.writes, 0);
    await assertNothingOwned(api, 'badnode');
  });

  it('sets binding:host_id to a known chassis', async () => {
    const client = clientFor(api.url);
    const report = await applySpec(makeSpec({ nodes: [{ name: 'node1', chassis: 'node1' }] }, 'goodnode'), client);
    assert.equal(report.error, undefined);
    assert.deepEqual(
      report.nodes.map((n) => [n.name, n.chassis]),
      [['node1', 'node1']],
    );
  });
});

describe('mgmt-net project checks (octonet with Keystone)', () => {
  const keystone = useKeystone();
  const api = useApi('sqlite', { config: () => keystone.octonetConfig() });
  let clouds: string;

  before(async () => {
    await keystone.setEndpoint('network', api.url);
    clouds = keystone.writeCloudsYaml();
  });

  const clientAs = (cloud: string) =>
    NeutronClient.fromEnvironment(undefined, { OS_CLOUD: cloud, OS_CLIENT_CONFIG_FILE: clouds });

  const ownedAsAdmin = async (name: string) => {
    const admin = await clientAs('cloudAdmin');
    const out: string[] = [];
    for (const collection of ['networks', 'subnets', 'ports', 'security-groups'] as const) {
      out.push(
        ...(await admin.list(collection, { tags: `octonet-mgmt-net:${name}` })).map((o) => `${collection}/${o.name}`),
      );
    }
    return out;
  };

  it('a member applies the minimal spec in its own project through clouds.yaml', async () => {
    const client = await clientAs('memberA');
    assert.deepEqual([client.identity.mode, client.identity.isAdmin], ['keystone', false]);
    const report = await applySpec(makeSpec({}, 'kmember'), client);
    assert.equal(report.error, undefined);
    const admin = await clientAs('cloudAdmin');
    const nets = await admin.list('networks', { tags: 'octonet-mgmt-net:kmember' });
    assert.deepEqual(
      nets.map((n) => n.project_id),
      [keystone.projects.a.id],
    );
    client.resetCounts();
    assert.equal((await applySpec(makeSpec({}, 'kmember'), client, { previous: report.status })).calls.writes, 0);
  });

  it('refuses a project that does not exist', async () => {
    const client = await clientAs('adminA');
    await assert.rejects(
      applySpec(makeSpec({ project: 'no-such-project' }, 'kmissing'), client),
      refusedWith('spec.project', /no project named or with ID "no-such-project" in Keystone/),
    );
    assert.equal(client.calls.writes, 0);
    assert.deepEqual(await ownedAsAdmin('kmissing'), []);
  });

  it('refuses another project for credentials without admin', async () => {
    const client = await clientAs('memberA');
    await assert.rejects(
      applySpec(makeSpec({ project: keystone.projects.b.id }, 'kother'), client),
      refusedWith('spec.project', /is not the credentials' project .* no admin role/),
    );
    assert.equal(client.calls.writes, 0);
    assert.deepEqual(await ownedAsAdmin('kother'), []);
  });

  it('refuses a provider topology for credentials without admin', async () => {
    const client = await clientAs('memberA');
    const spec = validateSpec(rawSpec({ topology: 'provider', network: { cidr: '10.5.0.0/24' } }, 'kprov'));
    await assert.rejects(applySpec(spec, client), refusedWith('spec.topology', /needs admin credentials/));
    assert.equal(client.calls.writes, 0);
    assert.deepEqual(await ownedAsAdmin('kprov'), []);
  });

  it('an admin creates in a named project (by name)', async () => {
    const client = await clientAs('cloudAdmin');
    const report = await applySpec(makeSpec({ project: keystone.projects.b.name }, 'kadmin'), client);
    assert.equal(report.error, undefined);
    const nets = await client.list('networks', { tags: 'octonet-mgmt-net:kadmin' });
    assert.deepEqual(
      nets.map((n) => n.project_id),
      [keystone.projects.b.id],
    );
  });
});

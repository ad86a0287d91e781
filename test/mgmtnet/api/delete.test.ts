/**
 * `deleteSpec` against a real octonet: everything owned goes, in reverse order; what is still in use
 * (an amphora port on the network, the amphora security group on it) is renamed `-orphaned`, loses
 * the owner tag and is reported, and a later apply of the same spec starts clean beside it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { applySpec, deleteSpec } from '../../../src/mgmtnet/reconcile.js';
import { clientFor, makeSpec } from '../fixtures.js';
import type { Json } from '../../fixtures/json.js';

describe('mgmt-net delete (octonet)', () => {
  const api = useApi('sqlite');

  const tagged = async (name: string) => {
    const out: string[] = [];
    for (const collection of ['networks', 'subnets', 'ports', 'routers', 'security-groups']) {
      const list = (await api.admin.get(`/v2.0/${collection}?tags=octonet-mgmt-net:${name}`)).body[
        collection.replace(/-/g, '_')
      ];
      out.push(...list.map((o: Json) => `${collection}/${o.name}`));
    }
    return out;
  };

  it('deletes everything it owns, ports first and security groups last; a second delete has nothing to do', async () => {
    const client = clientFor(api.url);
    const spec = makeSpec({ network: { cidr: '10.31.0.0/24' } }, 'del1');
    await applySpec(spec, client);
    const report = await deleteSpec(spec, client);
    assert.deepEqual(
      report.objects.map((o) => [o.kind, o.action]),
      [
        ['port', 'deleted'],
        ['port', 'deleted'],
        ['subnet', 'deleted'],
        ['network', 'deleted'],
        ['security_group', 'deleted'],
        ['security_group', 'deleted'],
      ],
    );
    assert.deepEqual(await tagged('del1'), []);
    const again = await deleteSpec(spec, client);
    assert.deepEqual(again.objects, []);
    assert.equal(again.calls.writes, 0);
  });

  it('orphans what an amphora still uses, deletes the rest (link-router), and a new apply starts clean', async () => {
    const client = clientFor(api.url);
    const spec = makeSpec(
      { topology: 'link-router', network: { cidr: '10.32.0.0/24' }, linkRouter: { cidr: '10.33.0.0/24' } },
      'del2',
    );
    const applied = await applySpec(spec, client);
    assert.equal(applied.error, undefined);
    const amphoraPort = await api.admin.post('/v2.0/ports', {
      port: {
        name: 'amphora-mgmt-port',
        network_id: applied.status.ids.network,
        device_owner: 'compute:nova',
        security_groups: [applied.status.ids.amphoraSecurityGroup],
      },
    });
    assert.equal(amphoraPort.status, 201);
    const logged: string[] = [];
    const report = await deleteSpec(spec, client, { log: (m, f) => logged.push(`${m} ${f?.name}`) });
    const byAction = (action: string) =>
      report.objects
        .filter((o) => o.action === action)
        .map((o) => `${o.kind}/${o.name}`)
        .sort();
    assert.deepEqual(byAction('orphaned'), [
      'network/lb-mgmt-net-orphaned',
      'security_group/lb-mgmt-sec-grp-orphaned',
      'subnet/lb-mgmt-subnet-orphaned',
    ]);
    assert.deepEqual(byAction('deleted'), [
      'network/octavia-provider-net',
      'port/octavia-health-manager-node1-listen-port',
      'port/octavia-health-manager-node2-listen-port',
      'router/octavia-link-router',
      'router_interface/octavia-link-router 10.32.0.1',
      'security_group/lb-health-mgr-sec-grp',
      'subnet/octavia-provider-subnet',
    ]);
    assert.equal(logged.filter((l) => l.startsWith('still in use')).length, 3);
    const network = (await api.admin.get(`/v2.0/networks/${applied.status.ids.network}`)).body.network;
    assert.deepEqual([network.name, network.tags], ['lb-mgmt-net-orphaned', ['octonet-orphaned:del2']]);
    assert.deepEqual(await tagged('del2'), []);
    // The amphora is untouched.
    assert.equal((await api.admin.get(`/v2.0/ports/${amphoraPort.body.port.id}`)).status, 200);

    const fresh = await applySpec(spec, client);
    assert.equal(fresh.error, undefined);
    assert.notEqual(fresh.status.ids.network, applied.status.ids.network);
    assert.deepEqual(
      fresh.objects.filter((o) => o.action === 'adopted'),
      [],
    );
  });
});

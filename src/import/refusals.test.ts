/**
 * What `--skip-unsupported` does and says: rows of a missing extension are left out; resources that
 * only carry an attribute octonet lacks are carried as plain ones, and the report says which
 * attribute was dropped. The source here is an in-memory stand-in for a Neutron database (a fake,
 * named so: plain rows, no driver); the real databases are in test/import/.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planImport } from './import.js';
import { describeSkipped, findRefusals } from './refusals.js';
import { readSnapshot } from './snapshot.js';
import type { NeutronSource, SourceRow } from './source.js';

const T = '2026-11-26 00:42:01';

function fakeSource(tables: Record<string, SourceRow[]>): NeutronSource {
  return {
    kind: 'mysql',
    tables: () => Promise.resolve(new Set(Object.keys(tables))),
    rows: (table) => Promise.resolve(tables[table] ?? []),
    close: () => Promise.resolve(),
  };
}

const standard = (id: number, type: string): SourceRow => ({
  id: String(id),
  resource_type: type,
  description: null,
  revision_number: 1,
  created_at: T,
  updated_at: T,
});

/** A VLAN-transparent network with a subnet on a segment, an HA router with a flavor, and a trunk. */
const CLOUD = {
  standardattributes: [standard(1, 'networks'), standard(2, 'subnets'), standard(3, 'routers'), standard(4, 'trunks')],
  networks: [
    {
      id: 'net1',
      project_id: 'p',
      name: 'n',
      admin_state_up: 1,
      status: 'ACTIVE',
      mtu: 1442,
      vlan_transparent: 1,
      standard_attr_id: '1',
    },
  ],
  networksegments: [
    {
      id: 'seg1',
      network_id: 'net1',
      network_type: 'geneve',
      physical_network: null,
      segmentation_id: 7,
      segment_index: 0,
      is_dynamic: 0,
      name: null,
    },
  ],
  subnets: [
    {
      id: 'sub1',
      project_id: 'p',
      network_id: 'net1',
      name: 's',
      ip_version: 4,
      cidr: '10.0.0.0/24',
      gateway_ip: '10.0.0.1',
      enable_dhcp: 1,
      segment_id: 'seg1',
      standard_attr_id: '2',
    },
  ],
  routers: [
    {
      id: 'r1',
      project_id: 'p',
      name: 'r',
      admin_state_up: 1,
      status: 'ACTIVE',
      enable_snat: 1,
      gw_port_id: null,
      flavor_id: 'f1',
      standard_attr_id: '3',
    },
  ],
  router_extra_attributes: [{ router_id: 'r1', distributed: 0, ha: 1, availability_zone_hints: '' }],
  trunks: [{ id: 'trunk1', port_id: 'port1', standard_attr_id: '4' }],
};

describe('--skip-unsupported', () => {
  it('carries plain networks, subnets and routers with the attribute dropped, and says so; leaves out extension rows', async () => {
    const snapshot = await readSnapshot(fakeSource(CLOUD));
    const refusals = findRefusals(snapshot);
    const plan = planImport(snapshot);
    assert.deepEqual(
      plan.networks.map((n) => n.id),
      ['net1'],
    );
    assert.deepEqual(
      plan.subnets.map((s) => [s.id, s.network_id]),
      [['sub1', 'net1']],
    );
    assert.deepEqual(
      plan.routers.map((r) => r.id),
      ['r1'],
    );
    assert.equal(
      describeSkipped(refusals),
      [
        '- trunk ports (trunk) are not implemented: left out (trunks: 1 row: trunk1)',
        '- subnets on a segment (routed provider networks) are not implemented: carried as plain subnets of their network, segment_id dropped (subnets: 1 row: sub1)',
        '- VLAN-transparent networks are not implemented: carried as plain networks, vlan_transparent dropped (networks: 1 row: net1)',
        '- distributed (DVR) or HA routers: ML2/OVN routers are neither: carried as plain routers (OVN gateway chassis, not DVR or HA agents), distributed and ha dropped (router_extra_attributes: 1 row: r1)',
        '- router flavors are not implemented: carried as plain routers, flavor_id dropped (routers: 1 row: r1)',
      ].join('\n'),
    );
  });
});

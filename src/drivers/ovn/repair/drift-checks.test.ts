/**
 * Drift checks on a real replica (the NB schema, rows as ovsdb-server sends them): a port's check
 * turns from its plan into a digest once the NB is in line, and the digest notices every change
 * the plan would have (the LSP's columns, its switch, its groups, its own DHCP and QoS rows) but
 * not OVN's own `up`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { NB_MONITORED, NbView } from '../nb-view.js';
import type { NbTables } from '../ovsdb/index.js';
import { Replica } from '../ovsdb/replica.js';
import { parseDatabaseSchema } from '../ovsdb/schema.js';
import { monitoredColumns } from '../ovsdb/session.js';
import type { Plan } from '../planner.js';
import { DriftChecks, portDigest } from './drift-checks.js';
import { keyOf } from './resource-key.js';

const schema = parseDatabaseSchema(JSON.parse(readFileSync('/usr/share/ovn/ovn-nb.ovsschema', 'utf8')));
const MONITORED = monitoredColumns(schema, NB_MONITORED);
const PORT = '9a1b8c62-2f4e-4a5c-9d3e-000000000001';
const LSP = '00000000-0000-4000-8000-000000000001';
const SW = '00000000-0000-4000-8000-000000000002';
const PG = '00000000-0000-4000-8000-000000000003';
const DHCP = '00000000-0000-4000-8000-000000000004';
const KEY = keyOf('port', PORT);

const inLine: Plan = { ops: [], outcome: 'unchanged' };
const outOfLine: Plan = {
  ops: [{ op: 'update', table: 'Logical_Switch_Port', where: [], row: {} }],
  outcome: 'updated',
};

function setup() {
  const replica = new Replica<NbTables>();
  replica.replace(schema, MONITORED, {
    Logical_Switch_Port: {
      [LSP]: {
        initial: {
          name: PORT,
          addresses: 'fa:16:3e:00:00:01 10.0.0.5',
          external_ids: ['map', [['neutron:port_name', '']]],
          dhcpv4_options: ['uuid', DHCP],
        },
      },
    },
    Logical_Switch: { [SW]: { initial: { name: 'neutron-net', ports: ['uuid', LSP] } } },
    Port_Group: { [PG]: { initial: { name: 'pg_sg', ports: ['uuid', LSP] } } },
    DHCP_Options: {
      [DHCP]: { initial: { cidr: '10.0.0.0/24', external_ids: ['map', [['subnet_id', 's1']]] } },
    },
  });
  const checks = new DriftChecks(new NbView(replica));
  return { replica, checks };
}

/** A port whose check is already a digest. */
function settled() {
  const { replica, checks } = setup();
  checks.remember(KEY, () => inLine, true);
  assert.deepEqual(checks.sizes(), { plans: 0, digests: 1 });
  assert.equal(checks.isInSync(KEY), true);
  return { replica, checks };
}

describe('DriftChecks', () => {
  it("keeps a port's plan until the NB is in line with it, then only a digest", () => {
    const { checks } = setup();
    let plan = outOfLine;
    checks.remember(KEY, () => plan);
    assert.equal(checks.isInSync(KEY), false);
    assert.deepEqual(checks.sizes(), { plans: 1, digests: 0 });
    plan = inLine;
    assert.equal(checks.isInSync(KEY), true);
    assert.deepEqual(checks.sizes(), { plans: 0, digests: 1 });
    assert.equal(checks.isInSync(KEY), true);
  });

  it('settles, after a write was answered, the ports remembered before it and in line', () => {
    const { checks } = setup();
    const other = keyOf('port', 'not-yet-written');
    checks.remember(KEY, () => inLine);
    checks.remember(other, () => outOfLine);
    const mark = checks.mark();
    const later = keyOf('port', 'remembered-after-the-mark');
    checks.remember(later, () => inLine);
    checks.settle(mark);
    // KEY became a digest; the other keeps its plan; the later one waits for its own write.
    assert.deepEqual(checks.sizes(), { plans: 2, digests: 1 });
    assert.equal(checks.isInSync(other), false);
    checks.settle(checks.mark());
    assert.deepEqual(checks.sizes(), { plans: 1, digests: 2 });
  });

  it("ignores OVN's up but sees a change to any column octonet writes", () => {
    const { replica, checks } = settled();
    replica.applyUpdate2({ Logical_Switch_Port: { [LSP]: { modify: { up: true } } } });
    assert.equal(checks.isInSync(KEY), true);
    // update2 toggles set elements: the address goes, then comes back.
    replica.applyUpdate2({ Logical_Switch_Port: { [LSP]: { modify: { addresses: 'fa:16:3e:00:00:01 10.0.0.5' } } } });
    assert.deepEqual(replica.get('Logical_Switch_Port', LSP)!.addresses, []);
    assert.equal(checks.isInSync(KEY), false);
    replica.applyUpdate2({ Logical_Switch_Port: { [LSP]: { modify: { addresses: 'fa:16:3e:00:00:01 10.0.0.5' } } } });
    assert.equal(checks.isInSync(KEY), true, 'back to what was written');
    replica.applyUpdate2({
      Logical_Switch_Port: { [LSP]: { modify: { external_ids: ['map', [['neutron:port_name', 'x']]] } } },
    });
    assert.equal(checks.isInSync(KEY), false);
  });

  it('sees the port leave its group or switch, its DHCP row go, and a QoS row appear', () => {
    for (const change of [
      { Port_Group: { [PG]: { modify: { ports: ['uuid', LSP] } } } },
      { Logical_Switch: { [SW]: { modify: { ports: ['uuid', LSP] } } } },
      { Logical_Switch_Port: { [LSP]: { modify: { dhcpv4_options: ['set', []] } } } },
      {
        QoS: {
          '00000000-0000-4000-8000-000000000005': {
            insert: { direction: 'from-lport', external_ids: ['map', [['neutron:port_id', PORT]]] },
          },
        },
      },
      { Logical_Switch_Port: { [LSP]: { delete: null } } },
    ]) {
      const { replica, checks } = settled();
      replica.applyUpdate2(change);
      assert.equal(checks.isInSync(KEY), false, JSON.stringify(change));
    }
  });

  it('sees a change to the DHCP row the port owns', () => {
    const { replica, checks } = setup();
    replica.applyUpdate2({
      DHCP_Options: { [DHCP]: { modify: { external_ids: ['map', [['port_id', PORT]]] } } },
    });
    checks.remember(KEY, () => inLine, true);
    replica.applyUpdate2({ DHCP_Options: { [DHCP]: { modify: { options: ['map', [['mtu', '1400']]] } } } });
    assert.equal(checks.isInSync(KEY), false);
  });

  it('digests the same rows alike whatever order their sets and maps arrived in, and tells values apart', () => {
    const digestOf = (external: [string, string][], security: string[], tag: unknown) => {
      const replica = new Replica<NbTables>();
      replica.replace(schema, MONITORED, {
        Logical_Switch_Port: {
          [LSP]: {
            initial: {
              name: PORT,
              external_ids: ['map', external],
              port_security: ['set', security],
              ...(tag !== undefined && { tag }),
            },
          },
        },
      });
      return portDigest(new NbView(replica), PORT);
    };
    const ids: [string, string][] = [
      ['neutron:port_name', 'a'],
      ['neutron:device_id', 'b'],
    ];
    const macs = ['fa:16:3e:00:00:01 10.0.0.5', 'fa:16:3e:00:00:01 10.0.0.6'];
    const digest = digestOf(ids, macs, undefined);
    assert.equal(digestOf([...ids].reverse(), [...macs].reverse(), undefined), digest);
    // A value moved to another key, a set element changed, an integer column set: all different.
    const swapped: [string, string][] = [
      ['neutron:port_name', 'b'],
      ['neutron:device_id', 'a'],
    ];
    const others = [
      digestOf(swapped, macs, undefined),
      digestOf(ids, [macs[0]!], undefined),
      digestOf(ids, [macs[0]!, 'fa:16:3e:00:00:01 10.0.0.7'], undefined),
      digestOf(ids, macs, 7),
      digestOf(ids, macs, 8),
    ];
    assert.equal(new Set([digest, ...others]).size, others.length + 1);
    for (const value of [digest, ...others]) assert.ok(Number.isSafeInteger(value) && value >= 0);
  });

  it('forgets a port, and keeps other resources as plans', () => {
    const { checks } = settled();
    checks.forget(KEY);
    assert.equal(checks.isInSync(KEY), false, 'nothing written: not in sync');
    const network = keyOf('network', 'n1');
    checks.remember(network, () => inLine, true);
    assert.equal(checks.isInSync(network), true);
    assert.deepEqual(checks.sizes(), { plans: 1, digests: 0 });
  });
});

/**
 * The replica on its own, fed the `update2` messages ovsdb-server 3.1 was seen sending: row diffs
 * (set toggles, map insert/delete/replace, new values for at-most-one columns), snapshot swaps that
 * report only what changed, and indexes that follow every change.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { LogicalSwitchPortRow, NbTables } from './nb-types.js';
import { Replica } from './replica.js';
import { parseDatabaseSchema } from './schema.js';
import { monitoredColumns } from './session.js';

const nb = parseDatabaseSchema(JSON.parse(readFileSync('/usr/share/ovn/ovn-nb.ovsschema', 'utf8')));
const MONITORED = monitoredColumns(nb, { Logical_Switch_Port: 'all', Logical_Switch: ['name', 'ports'] });
const P1 = '05c594a7-7f98-4d0a-8c5f-eb33981726d0';
const P2 = '15c594a7-7f98-4d0a-8c5f-eb33981726d0';
const SW = '25c594a7-7f98-4d0a-8c5f-eb33981726d0';

function replicaWithPort(): Replica<NbTables> {
  const replica = new Replica<NbTables>();
  replica.replace(nb, MONITORED, {
    Logical_Switch_Port: {
      [P1]: {
        initial: {
          name: 'p1',
          addresses: ['set', ['a', 'b']],
          options: [
            'map',
            [
              ['x', '1'],
              ['y', '2'],
            ],
          ],
          tag_request: 5,
        },
      },
    },
  });
  return replica;
}

describe('Replica', () => {
  it('applies a modify diff: sets toggle, maps insert/delete/replace, single values are replaced', () => {
    const replica = replicaWithPort();
    const before = replica.get('Logical_Switch_Port', P1)!;
    const changes = replica.applyUpdate2({
      Logical_Switch_Port: {
        [P1]: {
          modify: {
            addresses: ['set', ['a', 'c']],
            options: [
              'map',
              [
                ['x', '1'],
                ['y', '3'],
                ['z', '9'],
              ],
            ],
            tag_request: ['set', []],
            up: true,
            type: 'router',
          },
        },
      },
    });
    const after = replica.get('Logical_Switch_Port', P1)!;
    assert.deepEqual([...after.addresses].sort(), ['b', 'c']);
    assert.deepEqual(after.options, { y: '3', z: '9' });
    assert.equal(after.tag_request, null);
    assert.equal(after.up, true);
    assert.equal(after.type, 'router');
    assert.deepEqual(changes, [{ table: 'Logical_Switch_Port', uuid: P1, kind: 'modify', row: after, old: before }]);
    assert.deepEqual(before.addresses, ['a', 'b'], 'the old row is left as it was');
  });

  it('inserts rows with defaults and deletes them', () => {
    const replica = replicaWithPort();
    const inserted = replica.applyUpdate2({ Logical_Switch_Port: { [P2]: { insert: { name: 'p2' } } } });
    const p2 = replica.get('Logical_Switch_Port', P2)!;
    assert.equal(p2.type, '');
    assert.equal(p2.enabled, null);
    assert.deepEqual(p2.external_ids, {});
    assert.deepEqual(inserted, [{ table: 'Logical_Switch_Port', uuid: P2, kind: 'insert', row: p2 }]);
    const deleted = replica.applyUpdate2({ Logical_Switch_Port: { [P2]: { delete: null } } });
    assert.deepEqual(deleted, [{ table: 'Logical_Switch_Port', uuid: P2, kind: 'delete', old: p2 }]);
    assert.equal(replica.table('Logical_Switch_Port').size, 1);
  });

  it('reports only the differences when a snapshot replaces the content', () => {
    const replica = replicaWithPort();
    replica.applyUpdate2({
      Logical_Switch_Port: { [P2]: { insert: { name: 'p2' } } },
      Logical_Switch: {
        [SW]: {
          insert: {
            name: 'sw',
            ports: [
              'set',
              [
                ['uuid', P1],
                ['uuid', P2],
              ],
            ],
          },
        },
      },
    });
    const unchangedSwitch = replica.get('Logical_Switch', SW);
    const p1 = replica.get('Logical_Switch_Port', P1);
    const changes = replica.replace(nb, MONITORED, {
      Logical_Switch_Port: {
        [P1]: {
          initial: {
            name: 'p1',
            addresses: ['set', ['b', 'a']],
            options: [
              'map',
              [
                ['y', '2'],
                ['x', '1'],
              ],
            ],
            tag_request: 6,
          },
        },
      },
      // Set order differs from the replica's: not a change.
      Logical_Switch: {
        [SW]: {
          initial: {
            name: 'sw',
            ports: [
              'set',
              [
                ['uuid', P2],
                ['uuid', P1],
              ],
            ],
          },
        },
      },
    });
    assert.deepEqual(
      changes.map(({ table, uuid, kind }) => [table, uuid, kind]),
      [
        ['Logical_Switch_Port', P2, 'delete'],
        ['Logical_Switch_Port', P1, 'modify'],
      ],
    );
    assert.equal(changes[1]!.old, p1);
    assert.equal(replica.get('Logical_Switch', SW), unchangedSwitch, 'unchanged rows keep their object');
  });

  it('keeps the indexes it was asked for up to date, including set columns', () => {
    const replica = replicaWithPort();
    assert.equal(replica.findOne('Logical_Switch_Port', 'name', 'p1')?._uuid, P1);
    assert.deepEqual(
      replica.findBy('Logical_Switch_Port', 'addresses', 'a').map((row) => row._uuid),
      [P1],
    );
    replica.applyUpdate2({
      Logical_Switch_Port: { [P1]: { modify: { name: 'renamed', addresses: 'a' } }, [P2]: { insert: { name: 'p1' } } },
    });
    assert.equal(replica.findOne<LogicalSwitchPortRow>('Logical_Switch_Port', 'name', 'p1')?._uuid, P2);
    assert.equal(replica.findOne('Logical_Switch_Port', 'name', 'renamed')?._uuid, P1);
    assert.deepEqual(replica.findBy('Logical_Switch_Port', 'addresses', 'a'), []);
    assert.deepEqual(
      replica.findBy('Logical_Switch_Port', 'addresses', 'b').map((row) => row._uuid),
      [P1],
    );
    replica.applyUpdate2({ Logical_Switch_Port: { [P2]: { delete: null } } });
    assert.equal(replica.findOne('Logical_Switch_Port', 'name', 'p1'), undefined);
    assert.throws(() => replica.findBy('Logical_Switch_Port', 'options', 'x'), /is a map/);
    assert.throws(() => replica.findBy('Logical_Switch', 'external_ids', 'x'), /not monitored/);
  });

  it("toggles one member of a large set column and keeps the other members' index entries", () => {
    const replica = new Replica<NbTables>();
    const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const members = Array.from({ length: 500 }, (_, i) => uuid(i));
    replica.replace(nb, MONITORED, {
      Logical_Switch: { [SW]: { initial: { name: 'sw', ports: ['set', members.map((m) => ['uuid', m])] } } },
    });
    assert.equal(replica.findOne('Logical_Switch', 'ports', uuid(7))?._uuid, SW);
    // One member gone (7), one new (1000): the diff carries just those two.
    replica.applyUpdate2({
      Logical_Switch: {
        [SW]: {
          modify: {
            ports: [
              'set',
              [
                ['uuid', uuid(7)],
                ['uuid', uuid(1000)],
              ],
            ],
          },
        },
      },
    });
    const ports = replica.get('Logical_Switch', SW)!.ports;
    assert.equal(ports.length, 500);
    assert.ok(!ports.includes(uuid(7)) && ports.includes(uuid(1000)) && ports.includes(uuid(499)));
    assert.equal(replica.findOne('Logical_Switch', 'ports', uuid(7)), undefined);
    assert.equal(replica.findOne('Logical_Switch', 'ports', uuid(1000))?._uuid, SW);
    assert.equal(replica.findOne('Logical_Switch', 'ports', uuid(499))?._uuid, SW);
  });

  it('keeps set and name indexes right through modifies that change one column or the other', () => {
    const replica = new Replica<NbTables>();
    const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const SW2 = '35c594a7-7f98-4d0a-8c5f-eb33981726d0';
    const asSet = (ids: readonly string[]) => ['set', ids.map((id) => ['uuid', id])];
    replica.replace(nb, MONITORED, {
      Logical_Switch: {
        [SW]: { initial: { name: 'a', ports: asSet([uuid(0), uuid(1)]) } },
        [SW2]: { initial: { name: 'b', ports: asSet([uuid(1), uuid(2)]) } },
      },
    });
    // Both indexes exist before the modifies, so every modify below goes through them.
    assert.equal(replica.findOne('Logical_Switch', 'name', 'a')?._uuid, SW);
    assert.equal(replica.findBy('Logical_Switch', 'ports', uuid(1)).length, 2);
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let step = 0; step < 300; step++) {
      const target = random(2) === 0 ? SW : SW2;
      const modify: Record<string, unknown> =
        random(4) === 0
          ? { name: `n${step}` }
          : { ports: asSet([...new Set(Array.from({ length: 1 + random(4) }, () => uuid(random(12))))]) };
      replica.applyUpdate2({ Logical_Switch: { [target]: { modify } } });
      for (let i = 0; i < 12; i++) {
        const holding = [...replica.table('Logical_Switch').values()].filter((row) => row.ports.includes(uuid(i)));
        const found = replica.findBy('Logical_Switch', 'ports', uuid(i)).map((row) => row._uuid);
        assert.deepEqual(found.sort(), holding.map((row) => row._uuid).sort(), `step ${step}, port ${i}`);
      }
      for (const row of replica.table('Logical_Switch').values()) {
        assert.equal(replica.findOne('Logical_Switch', 'name', row.name)?._uuid, row._uuid, `step ${step}`);
      }
    }
  });

  it('finds rows by one key of a map column, and follows rows sharing a value as they come and go', () => {
    const replica = replicaWithPort();
    const byX = (value: string) =>
      replica
        .findByKey('Logical_Switch_Port', 'options', 'x', value)
        .map((row) => row._uuid)
        .sort();
    assert.deepEqual(byX('1'), [P1]);
    assert.deepEqual(replica.findByKey('Logical_Switch_Port', 'options', 'y', '1'), []);
    // A second row with the same value: the entry holds both; then each leaves in turn.
    replica.applyUpdate2({ Logical_Switch_Port: { [P2]: { insert: { name: 'p2', options: ['map', [['x', '1']]] } } } });
    assert.deepEqual(byX('1'), [P1, P2].sort());
    assert.deepEqual(
      replica
        .findBy('Logical_Switch_Port', 'addresses', 'a')
        .map((row) => row._uuid)
        .sort(),
      [P1],
    );
    replica.applyUpdate2({ Logical_Switch_Port: { [P1]: { modify: { options: ['map', [['x', '2']]] } } } });
    assert.deepEqual(byX('1'), [P2]);
    assert.deepEqual(byX('2'), [P1]);
    replica.applyUpdate2({ Logical_Switch_Port: { [P2]: { delete: null } } });
    assert.deepEqual(byX('1'), []);
    assert.deepEqual(byX('2'), [P1]);
    assert.throws(() => replica.findByKey('Logical_Switch_Port', 'addresses', 'x', '1'), /is not a map/);
  });

  it('keeps rows equal to what was sent when many rows share strings', () => {
    const replica = new Replica<NbTables>();
    const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const rows = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [
        uuid(i),
        {
          initial: {
            name: `port-${i}`,
            addresses: `fa:16:3e:00:${String(i).padStart(5, '0')} 10.0.0.${i % 250}`,
            external_ids: [
              'map',
              [
                ['neutron:project_id', 'project-a'],
                ['neutron:device_id', `device-${i}`],
              ],
            ],
          },
        },
      ]),
    );
    replica.replace(nb, MONITORED, {
      Logical_Switch_Port: rows,
      Logical_Switch: { [SW]: { initial: { name: 'sw', ports: ['set', Object.keys(rows).map((u) => ['uuid', u])] } } },
    });
    const row = replica.get('Logical_Switch_Port', uuid(1234))!;
    assert.equal(row.name, 'port-1234');
    assert.deepEqual(row.addresses, ['fa:16:3e:00:01234 10.0.0.234']);
    assert.deepEqual(row.external_ids, { 'neutron:project_id': 'project-a', 'neutron:device_id': 'device-1234' });
    assert.equal(replica.get('Logical_Switch', SW)!.ports.length, 2000);
    assert.equal(replica.findOne('Logical_Switch', 'ports', uuid(1999))?._uuid, SW);
  });

  it('follows a value many rows share as they come and go one by one', () => {
    const replica = replicaWithPort();
    const uuid = (i: number) => `30000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const holding = () =>
      replica
        .findBy('Logical_Switch_Port', 'addresses', 'shared')
        .map((row) => row._uuid)
        .sort();
    const expected: string[] = [];
    for (let i = 0; i < 20; i++) {
      replica.applyUpdate2({ Logical_Switch_Port: { [uuid(i)]: { insert: { name: `m${i}`, addresses: 'shared' } } } });
      expected.push(uuid(i));
      assert.deepEqual(holding(), expected);
    }
    for (let i = 0; i < 20; i++) {
      replica.applyUpdate2({ Logical_Switch_Port: { [uuid(i)]: { delete: null } } });
      expected.shift();
      assert.deepEqual(holding(), expected);
    }
    assert.deepEqual(
      replica.findBy('Logical_Switch_Port', 'addresses', 'a').map((row) => row._uuid),
      [P1],
    );
  });
});

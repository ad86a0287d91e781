/**
 * Wire values against the real OVN schemas: every column kind decodes to its JS shape and encodes
 * back to the same wire value; values that do not fit the column are refused by name.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { OvsdbEncodeError } from './errors.js';
import { encodeOperation, op } from './operations.js';
import { columnSchema, parseColumnType, parseDatabaseSchema, tableSchema, type ColumnSchema } from './schema.js';
import { decodeRow, decodeValue, encodeOperand, encodeRow, encodeValue, namedUuid, type RowValue } from './wire.js';

const nb = parseDatabaseSchema(JSON.parse(readFileSync('/usr/share/ovn/ovn-nb.ovsschema', 'utf8')));
const sb = parseDatabaseSchema(JSON.parse(readFileSync('/usr/share/ovn/ovn-sb.ovsschema', 'utf8')));
const UUID_A = '0f8d2e1c-7a52-4c1e-9b7e-2d7a0e5f1a01';
const UUID_B = '5b1f3c2d-8e4a-4f6b-a1c2-3d4e5f6a7b8c';

function column(schema: typeof nb, table: string, name: string): ColumnSchema {
  return columnSchema(tableSchema(schema, table), name);
}

/** [column, wire value as the server sends it, decoded JS value]. */
const CASES: [string, ColumnSchema, unknown, RowValue][] = [
  ['scalar string', column(nb, 'Logical_Switch', 'name'), 'sw0', 'sw0'],
  [
    'scalar string with unicode',
    column(nb, 'Logical_Switch', 'name'),
    'r\u00e9seau \ud83d\ude80',
    'r\u00e9seau \ud83d\ude80',
  ],
  ['scalar integer', column(nb, 'ACL', 'priority'), 1001, 1001],
  ['scalar large integer', column(nb, 'NB_Global', 'nb_cfg_timestamp'), 1700000000123, 1700000000123],
  ['scalar boolean', column(nb, 'NB_Global', 'ipsec'), true, true],
  ['scalar enum', column(nb, 'ACL', 'action'), 'allow-related', 'allow-related'],
  ['scalar uuid', column(sb, 'Port_Binding', 'datapath'), ['uuid', UUID_A], UUID_A],
  ['implicit _uuid', column(nb, 'ACL', '_uuid'), ['uuid', UUID_B], UUID_B],
  [
    'optional string, set',
    column(nb, 'Logical_Switch_Port', 'dynamic_addresses'),
    'fa:16:3e:00:00:01',
    'fa:16:3e:00:00:01',
  ],
  ['optional string, empty', column(nb, 'Logical_Switch_Port', 'dynamic_addresses'), ['set', []], null],
  ['optional integer', column(nb, 'Logical_Switch_Port', 'tag_request'), 42, 42],
  ['optional integer 0', column(nb, 'Logical_Switch_Port', 'tag_request'), 0, 0],
  ['optional boolean false', column(nb, 'Logical_Switch_Port', 'up'), false, false],
  ['optional boolean, empty', column(nb, 'Logical_Switch_Port', 'up'), ['set', []], null],
  ['optional uuid', column(nb, 'Logical_Switch_Port', 'dhcpv4_options'), ['uuid', UUID_A], UUID_A],
  ['optional enum', column(nb, 'ACL', 'severity'), 'warning', 'warning'],
  ['set of strings', column(nb, 'Logical_Switch_Port', 'addresses'), ['set', ['a', 'b c']], ['a', 'b c']],
  ['set of strings, empty', column(nb, 'Logical_Switch_Port', 'addresses'), ['set', []], []],
  [
    'set of uuids',
    column(nb, 'Logical_Switch', 'ports'),
    [
      'set',
      [
        ['uuid', UUID_A],
        ['uuid', UUID_B],
      ],
    ],
    [UUID_A, UUID_B],
  ],
  [
    'set with min 1',
    column(nb, 'Meter', 'bands'),
    [
      'set',
      [
        ['uuid', UUID_A],
        ['uuid', UUID_B],
      ],
    ],
    [UUID_A, UUID_B],
  ],
  [
    'set of enums',
    column(nb, 'Load_Balancer', 'selection_fields'),
    ['set', ['eth_src', 'ip_dst']],
    ['eth_src', 'ip_dst'],
  ],
  [
    'map string→string',
    column(nb, 'Logical_Switch', 'external_ids'),
    [
      'map',
      [
        ['k', 'v'],
        ['neutron:x', ''],
      ],
    ],
    { k: 'v', 'neutron:x': '' },
  ],
  ['map, empty', column(nb, 'Logical_Switch', 'other_config'), ['map', []], {}],
  [
    'map enum→integer',
    column(nb, 'QoS', 'bandwidth'),
    [
      'map',
      [
        ['burst', 100],
        ['rate', 2000],
      ],
    ],
    { burst: 100, rate: 2000 },
  ],
  [
    'map string→uuid',
    column(sb, 'RBAC_Role', 'permissions'),
    ['map', [['Chassis', ['uuid', UUID_A]]]],
    { Chassis: UUID_A },
  ],
  ['real', parseColumnType('weight', 'real'), 2.5, 2.5],
  ['set of reals', parseColumnType('weights', { key: 'real', min: 0, max: 'unlimited' }), ['set', [0.5, 1]], [0.5, 1]],
  [
    'map integer→boolean',
    parseColumnType('flags', { key: 'integer', value: 'boolean', min: 0, max: 'unlimited' }),
    [
      'map',
      [
        [1, true],
        [7, false],
      ],
    ],
    { '1': true, '7': false },
  ],
];

describe('wire values on the real OVN schemas', () => {
  for (const [name, columnType, wire, decoded] of CASES) {
    it(`${name}: decodes and encodes back`, () => {
      assert.deepEqual(decodeValue(columnType, wire), decoded);
      assert.deepEqual(encodeValue(columnType, decoded), wire);
    });
  }

  it('decodes a one-element set sent as the bare atom', () => {
    assert.deepEqual(decodeValue(column(nb, 'Logical_Switch', 'ports'), ['uuid', UUID_A]), [UUID_A]);
    assert.deepEqual(decodeValue(column(nb, 'Logical_Switch_Port', 'addresses'), 'router'), ['router']);
    assert.equal(decodeValue(column(nb, 'Logical_Switch_Port', 'tag_request'), ['set', [7]]), 7);
  });

  it('fills columns an insert left out with their type defaults', () => {
    const lsp = tableSchema(nb, 'Logical_Switch_Port');
    const row = decodeRow(lsp, UUID_A, { name: 'p1' }, ['name', 'type', 'addresses', 'up', 'options']);
    assert.deepEqual(row, { _uuid: UUID_A, name: 'p1', type: '', addresses: [], up: null, options: {} });
  });

  it('encodes named uuids in uuid columns, alone or in sets', () => {
    assert.deepEqual(encodeValue(column(nb, 'Logical_Switch', 'ports'), [namedUuid('p1'), UUID_A]), [
      'set',
      [
        ['named-uuid', 'p1'],
        ['uuid', UUID_A],
      ],
    ]);
    assert.deepEqual(encodeValue(column(nb, 'Logical_Switch_Port', 'ha_chassis_group'), namedUuid('g')), [
      'named-uuid',
      'g',
    ]);
  });

  it('encodes condition and mutation operands by their shape', () => {
    const ports = column(nb, 'Logical_Switch', 'ports');
    assert.deepEqual(encodeOperand(ports, UUID_A), ['uuid', UUID_A]);
    assert.deepEqual(encodeOperand(ports, [UUID_A]), ['set', [['uuid', UUID_A]]]);
    const externalIds = column(nb, 'Logical_Switch', 'external_ids');
    assert.deepEqual(encodeOperand(externalIds, { a: '1' }), ['map', [['a', '1']]]);
    assert.deepEqual(encodeOperand(externalIds, ['a', 'b']), ['set', ['a', 'b']]);
    assert.deepEqual(encodeOperand(column(nb, 'Logical_Switch_Port', 'tag_request'), null), ['set', []]);
  });

  it('refuses values that do not fit, naming the column', () => {
    const acl = tableSchema(nb, 'ACL');
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ priority: '10' }, /ACL\.priority: "10" is not a valid integer/],
      [{ priority: 1.5 }, /ACL\.priority: 1\.5 is not a valid integer/],
      [{ log: 'yes' }, /ACL\.log: "yes" is not a valid boolean/],
      [{ match: namedUuid('x') }, /ACL\.match: namedUuid\(x\) is not a valid string/],
      [{ meter: 42 }, /ACL\.meter: 42 is not a valid string/],
      [{ external_ids: ['a'] }, /ACL\.external_ids: expected a record/],
      [{ label: 1, nonsense: 1 }, /ACL has no column nonsense/],
      [{ _uuid: UUID_A }, /ACL\._uuid cannot be written/],
    ];
    for (const [row, message] of refusals) assert.throws(() => encodeRow(acl, row), message);
    assert.throws(() => encodeValue(column(nb, 'Logical_Switch', 'ports'), ['not-a-uuid']), OvsdbEncodeError);
  });

  it('encodes whole operations, naming the failing one', () => {
    assert.deepEqual(encodeOperation(nb, op.insert('Logical_Switch', { name: 'sw' }, { uuidName: 'sw' }), 0), {
      op: 'insert',
      table: 'Logical_Switch',
      row: { name: 'sw' },
      'uuid-name': 'sw',
    });
    assert.deepEqual(
      encodeOperation(
        nb,
        op.mutate('Logical_Switch', [['name', '==', 'sw']], [['ports', 'insert', [namedUuid('p')]]]),
        1,
      ),
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['name', '==', 'sw']],
        mutations: [['ports', 'insert', ['set', [['named-uuid', 'p']]]]],
      },
    );
    assert.throws(
      () => encodeOperation(nb, op.delete('Logical_Swich', []), 3),
      /operation 3: OVN_Northbound has no table Logical_Swich/,
    );
    assert.throws(
      () => encodeOperation(nb, op.update('Logical_Switch', [['nme', '==', 'x']], {}), 2),
      /operation 2: Logical_Switch has no column nme/,
    );
    assert.throws(() => encodeOperation(nb, op.insert('ACL', { priority: 'high' }), 4), /operation 4: ACL\.priority/);
  });
});

/**
 * The planner on its own: desired rows + an NB → operations. Each case plans, applies the plan to
 * an in-memory NB, and plans again: the second plan must be `unchanged` with no operations (the
 * level-triggered contract), and the NB must hold what was desired. Also: only changed columns are
 * written, a later revision in the NB wins (`superseded`), rows of others are left alone, deletes
 * take dependent rows with them, and `mergeMutations` folds set mutations without reordering.
 *
 * FakeNb is a fake of ovsdb-server (none runs here): the rows of the five tables the planner writes,
 * with the OVSDB semantics it relies on: uuid-names resolved within a transaction, set mutations,
 * and garbage collection of non-root rows nothing references (Logical_Switch_Port, ACL).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { AclSpec } from './acl.js';
import type { DhcpOptionsSpec, LogicalSwitchSpec, PortGroupSpec, PortRows, SwitchPortSpec } from './mapping.js';
import { localnetPorts } from './mapping.js';
import { NbView } from './nb-view.js';
import {
  NamedUuid,
  type AtomValue,
  type Condition,
  type NbTables,
  type Operation,
  type ReplicaView,
} from './ovsdb/index.js';
import {
  changedColumns,
  mergeMutations,
  planNetwork,
  planNetworkDhcpCleanup,
  planPort,
  planPortGroup,
  planSubnetDhcp,
  type Plan,
} from './planner.js';

type FakeRow = Record<string, unknown> & { _uuid: string };

/** Columns a new row of these tables starts with when the insert does not set them. */
const DEFAULTS: Record<string, Record<string, unknown>> = {
  Logical_Switch: { ports: [], external_ids: {}, other_config: {} },
  Logical_Switch_Port: { dhcpv4_options: null, dhcpv6_options: null, up: null },
  Port_Group: { ports: [], acls: [], external_ids: {} },
  DHCP_Options: { options: {}, external_ids: {} },
  ACL: {},
};
/** Non-root tables: a row that no row references is deleted at the end of a transaction. */
const CHILDREN: Record<string, { parent: string; column: string }> = {
  Logical_Switch_Port: { parent: 'Logical_Switch', column: 'ports' },
  ACL: { parent: 'Port_Group', column: 'acls' },
};

class FakeNb {
  private readonly tables = new Map<string, Map<string, FakeRow>>(Object.keys(DEFAULTS).map((t) => [t, new Map()]));

  readonly view: ReplicaView<NbTables> = {
    table: <R>(name: string) => this.rows(name) as unknown as ReadonlyMap<string, R>,
    get: <R>(table: string, uuid: string) => this.rows(table).get(uuid) as R | undefined,
    findBy: <R>(table: string, column: string, value: AtomValue) => this.match(table, column, value) as R[],
    findOne: <R>(table: string, column: string, value: AtomValue) =>
      this.match(table, column, value)[0] as R | undefined,
    findByKey: <R>(table: string, column: string, key: string, value: string) =>
      this.all(table).filter((row) => (row[column] as Record<string, unknown> | undefined)?.[key] === value) as R[],
    counts: () => Object.fromEntries([...this.tables].map(([name, rows]) => [name, rows.size])),
  };

  nb(): NbView {
    return new NbView(this.view);
  }

  /** Rows of a table, for assertions. */
  all(table: string): FakeRow[] {
    return [...this.rows(table).values()];
  }

  /** Inserts a row directly (state someone else wrote); returns its uuid. */
  seed(table: string, row: Record<string, unknown>): string {
    const uuid = randomUUID();
    this.rows(table).set(uuid, { ...DEFAULTS[table], ...row, _uuid: uuid });
    return uuid;
  }

  /** Runs a transaction: every operation in order, then garbage collection. */
  transact(ops: readonly Operation[]): void {
    const named = new Map<string, string>();
    const resolve = (value: unknown): unknown => {
      if (value instanceof NamedUuid) {
        const uuid = named.get(value.name);
        assert.ok(uuid, `uuid-name ${value.name} used before its insert`);
        return uuid;
      }
      if (Array.isArray(value)) return value.map(resolve);
      return value;
    };
    const resolveRow = (row: object) =>
      Object.fromEntries(Object.entries(row).map(([column, value]) => [column, resolve(value)]));
    for (const op of ops) {
      if (op.op === 'insert') {
        const uuid = randomUUID();
        if (op.uuidName) named.set(op.uuidName, uuid);
        this.rows(op.table).set(uuid, { ...DEFAULTS[op.table], ...resolveRow(op.row), _uuid: uuid });
      } else if (op.op === 'update') {
        for (const row of this.where(op.table, op.where)) Object.assign(row, resolveRow(op.row));
      } else if (op.op === 'mutate') {
        for (const row of this.where(op.table, op.where)) {
          for (const [column, mutator, value] of op.mutations) {
            const elements = resolve(value) as unknown[];
            const set = row[column] as unknown[];
            if (mutator === 'insert') row[column] = [...set, ...elements.filter((e) => !set.includes(e))];
            else if (mutator === 'delete') row[column] = set.filter((e) => !elements.includes(e));
            else assert.fail(`mutator ${mutator} is not faked`);
          }
        }
      } else if (op.op === 'delete') {
        for (const row of this.where(op.table, op.where)) this.rows(op.table).delete(row._uuid);
      } else assert.fail(`operation ${op.op} is not faked`);
    }
    for (const [table, { parent, column }] of Object.entries(CHILDREN)) {
      const referenced = new Set(this.all(parent).flatMap((row) => row[column] as string[]));
      for (const uuid of [...this.rows(table).keys()]) if (!referenced.has(uuid)) this.rows(table).delete(uuid);
    }
  }

  private rows(table: string): Map<string, FakeRow> {
    const rows = this.tables.get(table);
    assert.ok(rows, `table ${table} is not faked`);
    return rows;
  }

  private match(table: string, column: string, value: AtomValue): FakeRow[] {
    return this.all(table).filter((row) => {
      const have = row[column];
      return Array.isArray(have) ? have.includes(value) : have === value;
    });
  }

  private where(table: string, conditions: readonly Condition[]): FakeRow[] {
    return this.all(table).filter((row) =>
      conditions.every(([column, fn, value]) => {
        assert.equal(fn, '==', 'only == conditions are faked');
        return row[column] === value;
      }),
    );
  }
}

/** `update Logical_Switch_Port`: an operation in a word or two, to assert on the order. */
const opText = (op: Operation): string => ('table' in op ? `${op.op} ${op.table}` : op.op);

/** Applies a plan and asserts that planning again finds nothing to do. */
/** One column of every row of a table, sorted: what a test compares when row order does not matter. */
function sortedColumn(fake: FakeNb, table: keyof NbTables, column: string): unknown[] {
  return fake
    .all(table)
    .map((row) => (row as Record<string, unknown>)[column])
    .sort();
}

function converge(fake: FakeNb, plan: Plan, again: () => Plan): void {
  fake.transact(plan.ops);
  const second = again();
  assert.deepEqual(second, { ops: [], outcome: 'unchanged' }, 'a second plan after applying the first');
}

const NET = 'net-1';
const SWITCH = `neutron-${NET}`;
const ids = (revision: number, extra: Record<string, string> = {}) => ({
  'neutron:revision_number': String(revision),
  ...extra,
});

function switchSpec(revision = 1, mtu = '1442'): LogicalSwitchSpec {
  return { name: SWITCH, external_ids: ids(revision, { 'neutron:network_name': 'n1' }), other_config: { mtu } };
}

function portSpec(name: string, extra: Partial<SwitchPortSpec> = {}): SwitchPortSpec {
  return {
    name,
    type: '',
    addresses: ['fa:16:3e:00:00:01 10.0.0.5'],
    port_security: ['fa:16:3e:00:00:01 10.0.0.5'],
    enabled: true,
    tag_request: null,
    parent_name: null,
    tag: null,
    options: {},
    external_ids: ids(1, { 'neutron:network_name': SWITCH }),
    dhcpv4_options: null,
    dhcpv6_options: null,
    ...extra,
  };
}

const localnet = (segment: string) =>
  portSpec(`provnet-${segment}`, {
    type: 'localnet',
    addresses: ['unknown'],
    port_security: [],
    options: { network_name: 'physnet1' },
  });

function dhcpSpec(subnetId: string, revision = 1, extra: Record<string, string> = {}): DhcpOptionsSpec {
  return {
    cidr: '10.0.0.0/24',
    options: { lease_time: '43200', router: '10.0.0.1', ...extra },
    external_ids: ids(revision, { subnet_id: subnetId }),
  };
}

function aclSpec(match: string, action = 'allow-related'): AclSpec {
  return {
    direction: 'to-lport',
    priority: 1002,
    match,
    action,
    log: false,
    name: null,
    severity: null,
    meter: null,
    external_ids: { 'neutron:security_group_rule_id': match },
  };
}

describe('changedColumns', () => {
  it('returns only the columns whose value differs; sets compare as sets, maps by content', () => {
    const actual = { name: 'a', addresses: ['x', 'y'], options: { k: 'v' }, enabled: true };
    assert.deepEqual(changedColumns({ name: 'a', addresses: ['y', 'x'], options: { k: 'v' } }, actual), {});
    assert.deepEqual(changedColumns({ name: 'b', options: { k: 'w' }, enabled: true }, actual), {
      name: 'b',
      options: { k: 'w' },
    });
    assert.deepEqual(changedColumns({ enabled: null }, undefined), { enabled: null });
  });
});

describe('planNetwork', () => {
  it('creates the switch with its localnet ports, then has nothing to do', () => {
    const fake = new FakeNb();
    const desired = { logicalSwitch: switchSpec(), localnets: [localnet('seg-1')] };
    const plan = planNetwork(fake.nb(), SWITCH, desired);
    assert.equal(plan.outcome, 'created');
    converge(fake, plan, () => planNetwork(fake.nb(), SWITCH, desired));
    const [sw] = fake.all('Logical_Switch');
    assert.deepEqual(sw!.other_config, { mtu: '1442' });
    const [lsp] = fake.all('Logical_Switch_Port');
    assert.equal(lsp!.name, 'provnet-seg-1');
    assert.deepEqual(sw!.ports, [lsp!._uuid]);
  });

  it('updates only the changed columns, adds a new localnet and drops a stale provnet one, but no one else’s', () => {
    const fake = new FakeNb();
    fake.transact(planNetwork(fake.nb(), SWITCH, { logicalSwitch: switchSpec(), localnets: [localnet('seg-1')] }).ops);
    const foreign = fake.seed('Logical_Switch_Port', { name: 'someone-elses', type: 'localnet', external_ids: {} });
    fake.transact([
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['name', '==', SWITCH]],
        mutations: [['ports', 'insert', [foreign]]],
      },
    ]);
    const desired = { logicalSwitch: switchSpec(2, '1400'), localnets: [localnet('seg-2')] };
    const plan = planNetwork(fake.nb(), SWITCH, desired);
    assert.equal(plan.outcome, 'updated');
    const update = plan.ops.find((op) => op.op === 'update' && op.table === 'Logical_Switch');
    assert.deepEqual(update && 'row' in update ? Object.keys(update.row).sort() : [], ['external_ids', 'other_config']);
    converge(fake, plan, () => planNetwork(fake.nb(), SWITCH, desired));
    assert.deepEqual(sortedColumn(fake, 'Logical_Switch_Port', 'name'), ['provnet-seg-2', 'someone-elses']);
    assert.deepEqual(fake.all('Logical_Switch')[0]!.other_config, { mtu: '1400' });
  });

  it('a VLAN localnet port stays as ovn-northd leaves it: nothing to repair on the next pass', () => {
    const fake = new FakeNb();
    const segments = [{ id: 'seg-v', network_type: 'vlan', physical_network: 'physnet1', segmentation_id: 150 }];
    const options = { igmpFloodReports: true, igmpFlood: false, localnetLearnFdb: false };
    const desired = { logicalSwitch: switchSpec(), localnets: localnetPorts({ segments }, options) };
    fake.transact(planNetwork(fake.nb(), SWITCH, desired).ops);
    // ovn-northd copies a port's tag_request into its tag (ML2/OVN's own rows carry `tag` alone).
    for (const lsp of fake.all('Logical_Switch_Port'))
      if (typeof lsp.tag_request === 'number') lsp.tag = lsp.tag_request;
    const [lsp] = fake.all('Logical_Switch_Port');
    assert.equal(lsp!.tag, 150);
    assert.deepEqual(planNetwork(fake.nb(), SWITCH, desired), { ops: [], outcome: 'unchanged' });
  });

  it('a later revision in the NB is not overwritten (superseded)', () => {
    const fake = new FakeNb();
    fake.transact(planNetwork(fake.nb(), SWITCH, { logicalSwitch: switchSpec(5), localnets: [] }).ops);
    const plan = planNetwork(fake.nb(), SWITCH, { logicalSwitch: switchSpec(4, '9000'), localnets: [] });
    assert.deepEqual(plan, { ops: [], outcome: 'unchanged', superseded: true });
    const same = planNetwork(fake.nb(), SWITCH, { logicalSwitch: switchSpec(5, '9000'), localnets: [] });
    assert.equal(same.outcome, 'updated', 'the same revision is written (a repair of a drifted NB)');
  });

  it('deletes the switch, its ports with it; deleting what is gone does nothing', () => {
    const fake = new FakeNb();
    fake.transact(planNetwork(fake.nb(), SWITCH, { logicalSwitch: switchSpec(), localnets: [localnet('s')] }).ops);
    const plan = planNetwork(fake.nb(), SWITCH, undefined);
    assert.equal(plan.outcome, 'deleted');
    converge(fake, plan, () => planNetwork(fake.nb(), SWITCH, undefined));
    assert.deepEqual(fake.all('Logical_Switch'), []);
    assert.deepEqual(fake.all('Logical_Switch_Port'), []);
  });
});

describe('planSubnetDhcp and planNetworkDhcpCleanup', () => {
  it('creates, updates only what changed, and deletes the subnet row with its ports’ rows', () => {
    const fake = new FakeNb();
    const created = planSubnetDhcp(fake.nb(), 'sub-1', dhcpSpec('sub-1'));
    assert.equal(created.outcome, 'created');
    converge(fake, created, () => planSubnetDhcp(fake.nb(), 'sub-1', dhcpSpec('sub-1')));

    const changed = dhcpSpec('sub-1', 2, { dns_server: '{192.0.2.53}' });
    const updated = planSubnetDhcp(fake.nb(), 'sub-1', changed);
    assert.equal(updated.outcome, 'updated');
    assert.equal(updated.ops.length, 1);
    converge(fake, updated, () => planSubnetDhcp(fake.nb(), 'sub-1', changed));
    assert.equal(
      fake.all('DHCP_Options')[0]!.options &&
        (fake.all('DHCP_Options')[0]!.options as Record<string, string>).dns_server,
      '{192.0.2.53}',
    );

    assert.equal(planSubnetDhcp(fake.nb(), 'sub-1', dhcpSpec('sub-1', 1)).superseded, true);

    fake.seed('DHCP_Options', { cidr: '10.0.0.0/24', external_ids: { subnet_id: 'sub-1', port_id: 'p1' } });
    fake.seed('DHCP_Options', { cidr: '10.0.1.0/24', external_ids: { subnet_id: 'sub-2' } });
    const deleted = planSubnetDhcp(fake.nb(), 'sub-1', undefined);
    assert.equal(deleted.outcome, 'deleted');
    converge(fake, deleted, () => planSubnetDhcp(fake.nb(), 'sub-1', undefined));
    assert.deepEqual(
      fake.all('DHCP_Options').map((row) => row.external_ids),
      [{ subnet_id: 'sub-2' }],
      'only the other subnet’s row is left',
    );
  });

  it('a port’s row of the subnet is not taken for the subnet’s own', () => {
    const fake = new FakeNb();
    fake.seed('DHCP_Options', { cidr: '10.0.0.0/24', external_ids: { subnet_id: 'sub-1', port_id: 'p1' } });
    const plan = planSubnetDhcp(fake.nb(), 'sub-1', dhcpSpec('sub-1'));
    assert.equal(plan.outcome, 'created');
    converge(fake, plan, () => planSubnetDhcp(fake.nb(), 'sub-1', dhcpSpec('sub-1')));
    assert.equal(fake.all('DHCP_Options').length, 2);
  });

  it('a network cleanup deletes every DHCP row of that network and no other', () => {
    const fake = new FakeNb();
    fake.seed('DHCP_Options', { cidr: 'a', external_ids: { subnet_id: 's1', 'neutron:network_id': NET } });
    fake.seed('DHCP_Options', { cidr: 'b', external_ids: { subnet_id: 's2', 'neutron:network_id': NET } });
    fake.seed('DHCP_Options', { cidr: 'c', external_ids: { subnet_id: 's3', 'neutron:network_id': 'other' } });
    fake.transact(planNetworkDhcpCleanup(fake.nb(), NET));
    assert.deepEqual(
      fake.all('DHCP_Options').map((row) => row.cidr),
      ['c'],
    );
  });
});

describe('planPort', () => {
  const SG_GROUP = 'pg_sg1';
  function world(): { fake: FakeNb; subnetRow: string } {
    const fake = new FakeNb();
    fake.transact(planNetwork(fake.nb(), SWITCH, { logicalSwitch: switchSpec(), localnets: [] }).ops);
    fake.transact(planSubnetDhcp(fake.nb(), 'sub-1', dhcpSpec('sub-1')).ops);
    for (const name of ['neutron_pg_drop', SG_GROUP, 'pg_sg2']) {
      const external_ids: Record<string, string> =
        name === 'neutron_pg_drop' ? {} : { 'neutron:security_group_id': name.slice(3) };
      fake.transact(planPortGroup(fake.nb(), name, { name, external_ids, acls: [] }, undefined).ops);
    }
    return { fake, subnetRow: fake.all('DHCP_Options')[0]!._uuid };
  }
  const subnetDhcp = (fake: FakeNb) => (subnetId: string) => fake.nb().subnetDhcp(subnetId)?._uuid;
  const rows = (extra: Partial<PortRows> = {}, port: Partial<SwitchPortSpec> = {}): PortRows => ({
    port: portSpec('port-1', { dhcpv4_options: { kind: 'subnet', subnetId: 'sub-1' }, ...port }),
    dhcpOptions: [],
    portGroups: ['neutron_pg_drop', SG_GROUP],
    ...extra,
  });
  const groupsOf = (fake: FakeNb, uuid: string) =>
    fake
      .all('Port_Group')
      .filter((g) => (g.ports as string[]).includes(uuid))
      .map((g) => g.name)
      .sort();

  it('creates the LSP on the switch, pointing at the subnet’s DHCP row, in its groups', () => {
    const { fake, subnetRow } = world();
    const plan = planPort(fake.nb(), 'port-1', SWITCH, rows(), subnetDhcp(fake));
    assert.equal(plan.outcome, 'created');
    converge(fake, plan, () => planPort(fake.nb(), 'port-1', SWITCH, rows(), subnetDhcp(fake)));
    const lsp = fake.all('Logical_Switch_Port').find((p) => p.name === 'port-1')!;
    assert.equal(lsp.dhcpv4_options, subnetRow);
    assert.ok((fake.all('Logical_Switch')[0]!.ports as string[]).includes(lsp._uuid));
    assert.deepEqual(groupsOf(fake, lsp._uuid), ['neutron_pg_drop', SG_GROUP]);
  });

  it('moves between security groups, and leaves groups octonet does not manage alone', () => {
    const { fake } = world();
    fake.transact(planPort(fake.nb(), 'port-1', SWITCH, rows(), subnetDhcp(fake)).ops);
    const lsp = fake.all('Logical_Switch_Port').find((p) => p.name === 'port-1')!._uuid;
    fake.seed('Port_Group', { name: 'operator_group', ports: [lsp], acls: [], external_ids: {} });
    const moved = rows({ portGroups: ['neutron_pg_drop', 'pg_sg2'] });
    const plan = planPort(fake.nb(), 'port-1', SWITCH, moved, subnetDhcp(fake));
    assert.equal(plan.outcome, 'updated');
    converge(fake, plan, () => planPort(fake.nb(), 'port-1', SWITCH, moved, subnetDhcp(fake)));
    assert.deepEqual(groupsOf(fake, lsp), ['neutron_pg_drop', 'operator_group', 'pg_sg2']);
  });

  it('extra DHCP options: an own row the LSP points at, updated in place, deleted when they go', () => {
    const { fake, subnetRow } = world();
    const own = (lease: string): PortRows =>
      rows(
        {
          dhcpOptions: [
            { ...dhcpSpec('sub-1', 1, { lease_time: lease }), external_ids: { subnet_id: 'sub-1', port_id: 'port-1' } },
          ],
        },
        { dhcpv4_options: { kind: 'port', subnetId: 'sub-1', portId: 'port-1' } },
      );
    const created = planPort(fake.nb(), 'port-1', SWITCH, own('600'), subnetDhcp(fake));
    converge(fake, created, () => planPort(fake.nb(), 'port-1', SWITCH, own('600'), subnetDhcp(fake)));
    const ownRow = fake.nb().portDhcp('port-1')[0]!;
    const lsp = () => fake.all('Logical_Switch_Port').find((p) => p.name === 'port-1')!;
    assert.equal(lsp().dhcpv4_options, ownRow._uuid);

    const updated = planPort(fake.nb(), 'port-1', SWITCH, own('900'), subnetDhcp(fake));
    assert.deepEqual(
      updated.ops.map(opText),
      ['update DHCP_Options'],
      'the own row changes in place; the LSP keeps pointing at it',
    );
    converge(fake, updated, () => planPort(fake.nb(), 'port-1', SWITCH, own('900'), subnetDhcp(fake)));

    const dropped = planPort(fake.nb(), 'port-1', SWITCH, rows(), subnetDhcp(fake));
    const order = dropped.ops.map(opText);
    assert.ok(
      order.indexOf('update Logical_Switch_Port') < order.indexOf('delete DHCP_Options'),
      `the LSP stops pointing at the row before it goes: ${order.join(', ')}`,
    );
    converge(fake, dropped, () => planPort(fake.nb(), 'port-1', SWITCH, rows(), subnetDhcp(fake)));
    assert.deepEqual(fake.nb().portDhcp('port-1'), []);
    assert.equal(lsp().dhcpv4_options, subnetRow);
  });

  it('extra DHCP options added to an existing port: the LSP update points at the row inserted with it', () => {
    const { fake } = world();
    fake.transact(planPort(fake.nb(), 'port-1', SWITCH, rows(), subnetDhcp(fake)).ops);
    const withOwn = rows(
      { dhcpOptions: [{ ...dhcpSpec('sub-1'), external_ids: { subnet_id: 'sub-1', port_id: 'port-1' } }] },
      { dhcpv4_options: { kind: 'port', subnetId: 'sub-1', portId: 'port-1' } },
    );
    const plan = planPort(fake.nb(), 'port-1', SWITCH, withOwn, subnetDhcp(fake));
    assert.deepEqual(plan.ops.map(opText), ['insert DHCP_Options', 'update Logical_Switch_Port']);
    converge(fake, plan, () => planPort(fake.nb(), 'port-1', SWITCH, withOwn, subnetDhcp(fake)));
    assert.equal(fake.nb().switchPort('port-1')!.dhcpv4_options, fake.nb().portDhcp('port-1')[0]!._uuid);
  });

  it('a later revision in the NB wins; a delete removes the LSP and its own rows', () => {
    const { fake } = world();
    const withOwn: PortRows = rows(
      { dhcpOptions: [{ ...dhcpSpec('sub-1'), external_ids: { subnet_id: 'sub-1', port_id: 'port-1' } }] },
      { dhcpv4_options: { kind: 'port', subnetId: 'sub-1', portId: 'port-1' }, external_ids: ids(3) },
    );
    fake.transact(planPort(fake.nb(), 'port-1', SWITCH, withOwn, subnetDhcp(fake)).ops);
    const stale = rows({}, { external_ids: ids(2), enabled: false });
    assert.equal(planPort(fake.nb(), 'port-1', SWITCH, stale, subnetDhcp(fake)).superseded, true);

    const deleted = planPort(fake.nb(), 'port-1', SWITCH, undefined, subnetDhcp(fake));
    assert.equal(deleted.outcome, 'deleted');
    converge(fake, deleted, () => planPort(fake.nb(), 'port-1', SWITCH, undefined, subnetDhcp(fake)));
    assert.equal(fake.nb().switchPort('port-1'), undefined);
    assert.deepEqual(fake.nb().portDhcp('port-1'), []);
    assert.equal(fake.nb().subnetDhcp('sub-1') !== undefined, true, 'the subnet’s own row stays');
  });
});

describe('planPortGroup', () => {
  const NAME = 'pg_sg1';
  const spec = (acls: AclSpec[], revision = '1'): PortGroupSpec => ({
    name: NAME,
    external_ids: { 'neutron:security_group_id': 'sg1', 'neutron:revision_number': revision },
    acls,
  });

  it('creates the group with its ACLs and members, then has nothing to do', () => {
    const fake = new FakeNb();
    const desired = spec([aclSpec('ip4'), aclSpec('ip6')]);
    const plan = planPortGroup(fake.nb(), NAME, desired, ['lsp-a']);
    assert.equal(plan.outcome, 'created');
    converge(fake, plan, () => planPortGroup(fake.nb(), NAME, desired, ['lsp-a']));
    const [group] = fake.all('Port_Group');
    assert.deepEqual(group!.ports, ['lsp-a']);
    assert.deepEqual(sortedColumn(fake, 'ACL', 'match'), ['ip4', 'ip6']);
  });

  it('changes an ACL in place, adds new ones, removes stale ones and duplicates', () => {
    const fake = new FakeNb();
    fake.transact(
      planPortGroup(fake.nb(), NAME, spec([aclSpec('ip4'), aclSpec('ip6'), aclSpec('tcp')]), undefined).ops,
    );
    // A duplicate of an existing ACL (same direction, priority, match), as a crashed writer may leave.
    const duplicate = fake.seed('ACL', { ...aclSpec('ip4') });
    fake.transact([
      {
        op: 'mutate',
        table: 'Port_Group',
        where: [['name', '==', NAME]],
        mutations: [['acls', 'insert', [duplicate]]],
      },
    ]);
    const ip4 = fake.all('ACL').find((a) => a.match === 'ip4' && a._uuid !== duplicate)!._uuid;
    const desired = spec([aclSpec('ip4', 'drop'), aclSpec('udp'), aclSpec('tcp')], '2');
    const plan = planPortGroup(fake.nb(), NAME, desired, undefined);
    assert.equal(plan.outcome, 'updated');
    converge(fake, plan, () => planPortGroup(fake.nb(), NAME, desired, undefined));
    const acls = fake.all('ACL');
    assert.deepEqual(acls.map((a) => `${a.match} ${a.action}`).sort(), [
      'ip4 drop',
      'tcp allow-related',
      'udp allow-related',
    ]);
    assert.ok(
      acls.some((a) => a._uuid === ip4),
      'the changed ACL is updated, not replaced',
    );
    assert.deepEqual(fake.all('Port_Group')[0]!.external_ids, desired.external_ids);
  });

  it('members: given, they are made exact; undefined, they are left to the ports', () => {
    const fake = new FakeNb();
    fake.transact(planPortGroup(fake.nb(), NAME, spec([]), ['a', 'b']).ops);
    const exact = planPortGroup(fake.nb(), NAME, spec([]), ['b', 'c']);
    converge(fake, exact, () => planPortGroup(fake.nb(), NAME, spec([]), ['b', 'c']));
    assert.deepEqual([...(fake.all('Port_Group')[0]!.ports as string[])].sort(), ['b', 'c']);
    assert.deepEqual(planPortGroup(fake.nb(), NAME, spec([]), undefined), { ops: [], outcome: 'unchanged' });
  });

  it('deletes the group, its ACLs with it', () => {
    const fake = new FakeNb();
    fake.transact(planPortGroup(fake.nb(), NAME, spec([aclSpec('ip4')]), undefined).ops);
    const plan = planPortGroup(fake.nb(), NAME, undefined, undefined);
    assert.equal(plan.outcome, 'deleted');
    converge(fake, plan, () => planPortGroup(fake.nb(), NAME, undefined, undefined));
    assert.deepEqual(fake.all('Port_Group'), []);
    assert.deepEqual(fake.all('ACL'), []);
  });
});

describe('mergeMutations', () => {
  const add = (group: string, port: string): Extract<Operation, { op: 'mutate' }> => ({
    op: 'mutate',
    table: 'Port_Group',
    where: [['name', '==', group]],
    mutations: [['ports', 'insert', [port]]],
  });
  const insert = (name: string): Operation => ({
    op: 'insert',
    table: 'Logical_Switch_Port',
    row: { name },
    uuidName: name,
  });

  it('folds mutations of the same column of the same rows into one, at the place of the last', () => {
    const ops = [insert('p1'), add('pg_drop', 'p1'), insert('p2'), add('pg_drop', 'p2'), add('pg_other', 'p2')];
    assert.deepEqual(mergeMutations(ops), [
      insert('p1'),
      insert('p2'),
      { ...add('pg_drop', 'p1'), mutations: [['ports', 'insert', ['p1', 'p2']]] },
      add('pg_other', 'p2'),
    ]);
  });

  it('keeps inserts and deletes apart, and leaves everything else as it was', () => {
    const remove: Operation = { ...add('pg', 'x'), mutations: [['ports', 'delete', ['x']]] };
    const twoColumns: Operation = {
      ...add('pg', 'y'),
      mutations: [
        ['ports', 'insert', ['y']],
        ['acls', 'insert', ['z']],
      ],
    };
    const ops = [add('pg', 'a'), remove, twoColumns, add('pg', 'b')];
    assert.deepEqual(mergeMutations(ops), [
      remove,
      twoColumns,
      { ...add('pg', 'a'), mutations: [['ports', 'insert', ['a', 'b']]] },
    ]);
    assert.deepEqual(mergeMutations([]), []);
    const bump = (n: number): Operation => ({ ...add('pg', 'x'), mutations: [['tag', '+=', n]] });
    assert.deepEqual(mergeMutations([bump(1), bump(2)]), [bump(1), bump(2)], 'only set inserts and deletes fold');
  });
});

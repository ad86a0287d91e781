/**
 * Desired rows (from `mapping.ts`) + the NB replica → the OVSDB operations that make the NB match,
 * per resource. Level-triggered: each plan reads the whole desired and actual state of its
 * resource, so planning twice in a row gives no operations the second time (`unchanged`).
 *
 * Rows are found by the names and `external_ids` ML2/OVN uses, never by remembered uuids. Rows
 * inserted here are referenced in the same transaction by `uuid-name`; set columns of other rows
 * (a switch's ports, a group's members) change by `mutate`, so concurrent writers do not clobber
 * each other's elements.
 */
import { valuesEqual, namedUuid, NamedUuid, type Condition, type Operation, type RowValue } from './ovsdb/index.js';
import type { DhcpOptionsSpec, LogicalSwitchSpec, PortGroupSpec, PortRows, SwitchPortSpec } from './mapping.js';
import { NbView, type AclRow, type DhcpOptionsRow, type SwitchPortRow } from './nb-view.js';

export type Outcome = 'created' | 'updated' | 'unchanged' | 'deleted';

export interface Plan {
  readonly ops: Operation[];
  readonly outcome: Outcome;
  /** The NB already holds a later revision than the one planned from: nothing written, nothing to remember. */
  readonly superseded?: boolean;
}

const NOTHING: Plan = { ops: [], outcome: 'unchanged' };
const SUPERSEDED: Plan = { ops: [], outcome: 'unchanged', superseded: true };

/** A uuid-name from a prefix and an id (uuid-names are identifiers). */
const uuidName = (prefix: string, id: string): string => `${prefix}_${id.replace(/[^A-Za-z0-9_]/g, '_')}`;
const byUuid = (uuid: string): Condition => ['_uuid', '==', uuid];
const byName = (name: string): Condition => ['name', '==', name];
const revisionOf = (externalIds: Readonly<Record<string, string>>): number =>
  Number(externalIds['neutron:revision_number'] ?? -1);

/**
 * The columns of `desired` whose value differs from `actual`'s. A uuid-name stands for a row
 * inserted in this transaction: always a change. One loop, no copies: every port is planned again
 * once its write is answered (drift-checks.ts).
 */
export function changedColumns(desired: object, actual: object | undefined): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const column in desired) {
    const value = (desired as Record<string, RowValue | NamedUuid>)[column];
    const have = actual ? (actual as Record<string, RowValue>)[column] : undefined;
    if (value instanceof NamedUuid || !valuesEqual(value, have)) changed[column] = value;
  }
  return changed;
}

/**
 * Whether the NB already holds a later revision than the database read we planned from (another
 * replica wrote after our read): then writing would move the NB backwards, as Neutron's
 * CheckRevisionNumberCommand refuses to.
 */
function isNewerInNb(
  actualIds: Readonly<Record<string, string>> | undefined,
  desiredIds: Record<string, string>,
): boolean {
  return actualIds !== undefined && revisionOf(actualIds) > revisionOf(desiredIds);
}

// ---------------------------------------------------------------------------------------------

/** A switch and its localnet ports; `desired` undefined deletes the switch (its ports go with it). */
export function planNetwork(
  nb: NbView,
  switchName: string,
  desired: { readonly logicalSwitch: LogicalSwitchSpec; readonly localnets: readonly SwitchPortSpec[] } | undefined,
): Plan {
  const actual = nb.logicalSwitch(switchName);
  if (!desired)
    return actual
      ? { ops: [{ op: 'delete', table: 'Logical_Switch', where: [byUuid(actual._uuid)] }], outcome: 'deleted' }
      : NOTHING;
  const { logicalSwitch, localnets } = desired;
  if (!actual) {
    const ops: Operation[] = localnets.map((lsp) => insertSwitchPort(lsp, null, null));
    ops.push({
      op: 'insert',
      table: 'Logical_Switch',
      row: { ...logicalSwitch, ports: localnets.map((lsp) => namedUuid(uuidName('lsp', lsp.name))) },
    });
    return { ops, outcome: 'created' };
  }
  if (isNewerInNb(actual.external_ids, logicalSwitch.external_ids)) return SUPERSEDED;
  const ops: Operation[] = [];
  const changed = changedColumns(logicalSwitch, actual);
  if (Object.keys(changed).length > 0)
    ops.push({ op: 'update', table: 'Logical_Switch', where: [byUuid(actual._uuid)], row: changed });
  const wanted = new Set(localnets.map((lsp) => lsp.name));
  for (const lsp of localnets) {
    const existing = nb.switchPort(lsp.name);
    if (existing) ops.push(...updateSwitchPort(existing, lsp, existing.dhcpv4_options, existing.dhcpv6_options));
    else ops.push(insertSwitchPort(lsp, null, null), addToSwitch(switchName, namedUuid(uuidName('lsp', lsp.name))));
  }
  for (const uuid of actual.ports) {
    const port = nb.switchPortByUuid(uuid);
    if (port?.type === 'localnet' && port.name.startsWith('provnet-') && !wanted.has(port.name)) {
      ops.push({
        op: 'mutate',
        table: 'Logical_Switch',
        where: [byUuid(actual._uuid)],
        mutations: [['ports', 'delete', [uuid]]],
      });
    }
  }
  return { ops, outcome: ops.length > 0 ? 'updated' : 'unchanged' };
}

/** Every DHCP row of a network (when the network is gone, its subnets' root rows must go too). */
export function planNetworkDhcpCleanup(nb: NbView, networkId: string): Operation[] {
  return [...nb.dhcpOptions()]
    .filter((row) => row.external_ids['neutron:network_id'] === networkId)
    .map((row) => ({ op: 'delete' as const, table: 'DHCP_Options', where: [byUuid(row._uuid)] }));
}

// ---------------------------------------------------------------------------------------------

/** A subnet's own DHCP row; `desired` undefined deletes it and its ports' rows. */
export function planSubnetDhcp(nb: NbView, subnetId: string, desired: DhcpOptionsSpec | undefined): Plan {
  const rows = nb.dhcpOfSubnet(subnetId);
  const own = rows.find((row) => row.external_ids.port_id === undefined);
  if (!desired) {
    const ops = rows.map((row) => ({ op: 'delete' as const, table: 'DHCP_Options', where: [byUuid(row._uuid)] }));
    return ops.length > 0 ? { ops, outcome: 'deleted' } : NOTHING;
  }
  if (!own) return { ops: [{ op: 'insert', table: 'DHCP_Options', row: desired }], outcome: 'created' };
  if (isNewerInNb(own.external_ids, desired.external_ids)) return SUPERSEDED;
  const changed = changedColumns(desired, own);
  if (Object.keys(changed).length === 0) return NOTHING;
  return {
    ops: [{ op: 'update', table: 'DHCP_Options', where: [byUuid(own._uuid)], row: changed }],
    outcome: 'updated',
  };
}

// ---------------------------------------------------------------------------------------------

function switchPortRow(
  lsp: SwitchPortSpec,
  dhcpv4: string | NamedUuid | null,
  dhcpv6: string | NamedUuid | null,
): object {
  return {
    name: lsp.name,
    type: lsp.type,
    addresses: lsp.addresses,
    port_security: lsp.port_security,
    enabled: lsp.enabled,
    tag_request: lsp.tag_request,
    parent_name: lsp.parent_name,
    tag: lsp.tag,
    options: lsp.options,
    external_ids: lsp.external_ids,
    dhcpv4_options: dhcpv4,
    dhcpv6_options: dhcpv6,
  };
}

function insertSwitchPort(
  lsp: SwitchPortSpec,
  dhcpv4: string | NamedUuid | null,
  dhcpv6: string | NamedUuid | null,
): Operation {
  return {
    op: 'insert',
    table: 'Logical_Switch_Port',
    row: switchPortRow(lsp, dhcpv4, dhcpv6),
    uuidName: uuidName('lsp', lsp.name),
  };
}

function updateSwitchPort(
  actual: SwitchPortRow,
  lsp: SwitchPortSpec,
  dhcpv4: string | NamedUuid | null,
  dhcpv6: string | NamedUuid | null,
): Operation[] {
  const changed = changedColumns(switchPortRow(lsp, dhcpv4, dhcpv6), actual);
  if (Object.keys(changed).length === 0) return [];
  return [{ op: 'update', table: 'Logical_Switch_Port', where: [byUuid(actual._uuid)], row: changed }];
}

function addToSwitch(switchName: string, port: string | NamedUuid): Operation {
  return {
    op: 'mutate',
    table: 'Logical_Switch',
    where: [byName(switchName)],
    mutations: [['ports', 'insert', [port]]],
  };
}

/** Matches a port's own DHCP row (extra DHCP options) to the desired one of the same subnet. */
function ownDhcpRow(rows: readonly DhcpOptionsRow[], subnetId: string): DhcpOptionsRow | undefined {
  return rows.find((row) => row.external_ids.subnet_id === subnetId);
}

/**
 * A port: its LSP on `switchName`, its own DHCP rows and its Port_Group memberships.
 * `subnetDhcpUuid` finds the subnet rows the LSP points at (they must exist already).
 */
export function planPort(
  nb: NbView,
  portId: string,
  switchName: string,
  desired: PortRows | undefined,
  subnetDhcpUuid: (subnetId: string) => string | undefined,
): Plan {
  const actual = nb.switchPort(portId);
  const ownRows = nb.portDhcp(portId);
  if (!desired) {
    const ops: Operation[] = ownRows.map((row) => ({
      op: 'delete',
      table: 'DHCP_Options',
      where: [byUuid(row._uuid)],
    }));
    const container = actual ? nb.switchOf(actual._uuid) : undefined;
    if (actual && container) {
      ops.push({
        op: 'mutate',
        table: 'Logical_Switch',
        where: [byUuid(container._uuid)],
        mutations: [['ports', 'delete', [actual._uuid]]],
      });
    }
    return ops.length > 0 ? { ops, outcome: 'deleted' } : NOTHING;
  }
  if (actual && isNewerInNb(actual.external_ids, desired.port.external_ids)) return SUPERSEDED;
  const ops: Operation[] = [];

  // The port's own DHCP rows first, so the LSP can point at them.
  const ownRefs = new Map<string, string | NamedUuid>();
  const keep = new Set<string>();
  for (const row of desired.dhcpOptions) {
    const subnetId = row.external_ids.subnet_id!;
    const existing = ownDhcpRow(ownRows, subnetId);
    if (existing) {
      keep.add(existing._uuid);
      ownRefs.set(subnetId, existing._uuid);
      const changed = changedColumns(row, existing);
      if (Object.keys(changed).length > 0)
        ops.push({ op: 'update', table: 'DHCP_Options', where: [byUuid(existing._uuid)], row: changed });
    } else {
      const name = uuidName('dhcp', `${portId}_${subnetId}`);
      ownRefs.set(subnetId, namedUuid(name));
      ops.push({ op: 'insert', table: 'DHCP_Options', row, uuidName: name });
    }
  }
  const resolve = (ref: SwitchPortSpec['dhcpv4_options']): string | NamedUuid | null => {
    if (!ref) return null;
    return ref.kind === 'port' ? (ownRefs.get(ref.subnetId) ?? null) : (subnetDhcpUuid(ref.subnetId) ?? null);
  };
  const dhcpv4 = resolve(desired.port.dhcpv4_options);
  const dhcpv6 = resolve(desired.port.dhcpv6_options);

  let portRef: string | NamedUuid;
  if (actual) {
    portRef = actual._uuid;
    ops.push(...updateSwitchPort(actual, desired.port, dhcpv4, dhcpv6));
  } else {
    portRef = namedUuid(uuidName('lsp', portId));
    ops.push(insertSwitchPort(desired.port, dhcpv4, dhcpv6), addToSwitch(switchName, portRef));
  }
  // Stale own rows go after the LSP stops pointing at them.
  for (const row of ownRows) {
    if (!keep.has(row._uuid)) ops.push({ op: 'delete', table: 'DHCP_Options', where: [byUuid(row._uuid)] });
  }

  const wanted = new Set(desired.portGroups);
  const current = actual ? nb.groupsOfPort(actual._uuid) : [];
  for (const group of current) {
    if (!wanted.has(group.name) && NbView.isNeutronGroup(group)) {
      ops.push({
        op: 'mutate',
        table: 'Port_Group',
        where: [byUuid(group._uuid)],
        mutations: [['ports', 'delete', [portRef]]],
      });
    }
  }
  for (const name of desired.portGroups) {
    if (current.some((group) => group.name === name)) continue;
    ops.push({ op: 'mutate', table: 'Port_Group', where: [byName(name)], mutations: [['ports', 'insert', [portRef]]] });
  }
  return { ops, outcome: ops.length === 0 ? 'unchanged' : actual ? 'updated' : 'created' };
}

// ---------------------------------------------------------------------------------------------

const aclKey = (acl: { direction: string; priority: number; match: string }): string =>
  `${acl.direction}|${acl.priority}|${acl.match}`;

/**
 * A Port_Group with its ACLs; `desired` undefined deletes it (its ACLs go with it).
 * `members`: the LSP uuids that belong to it, or undefined to leave membership to the ports.
 */
export function planPortGroup(
  nb: NbView,
  name: string,
  desired: PortGroupSpec | undefined,
  members: readonly string[] | undefined,
): Plan {
  const actual = nb.portGroup(name);
  if (!desired)
    return actual
      ? { ops: [{ op: 'delete', table: 'Port_Group', where: [byUuid(actual._uuid)] }], outcome: 'deleted' }
      : NOTHING;
  if (!actual) {
    const ops: Operation[] = desired.acls.map((acl, i) => ({
      op: 'insert' as const,
      table: 'ACL',
      row: acl,
      uuidName: uuidName('acl', `${name}_${i}`),
    }));
    ops.push({
      op: 'insert',
      table: 'Port_Group',
      row: {
        name,
        external_ids: desired.external_ids,
        acls: desired.acls.map((_, i) => namedUuid(uuidName('acl', `${name}_${i}`))),
        ports: members ?? [],
      },
    });
    return { ops, outcome: 'created' };
  }
  const ops: Operation[] = [];
  const where = [byUuid(actual._uuid)];
  if (!valuesEqual(desired.external_ids, actual.external_ids))
    ops.push({ op: 'update', table: 'Port_Group', where, row: { external_ids: desired.external_ids } });
  const existing = new Map<string, AclRow>();
  for (const uuid of actual.acls) {
    const acl = nb.acl(uuid);
    if (acl && !existing.has(aclKey(acl))) existing.set(aclKey(acl), acl);
  }
  const wanted = new Set<string>();
  for (const [i, acl] of desired.acls.entries()) {
    const key = aclKey(acl);
    wanted.add(key);
    const have = existing.get(key);
    if (have) {
      const changed = changedColumns(acl, have);
      if (Object.keys(changed).length > 0)
        ops.push({ op: 'update', table: 'ACL', where: [byUuid(have._uuid)], row: changed });
    } else {
      const ref = uuidName('acl', `${name}_${i}`);
      ops.push(
        { op: 'insert', table: 'ACL', row: acl, uuidName: ref },
        { op: 'mutate', table: 'Port_Group', where, mutations: [['acls', 'insert', [namedUuid(ref)]]] },
      );
    }
  }
  const stale = actual.acls.filter((uuid) => {
    const acl = nb.acl(uuid);
    return !acl || !wanted.has(aclKey(acl)) || existing.get(aclKey(acl))?._uuid !== uuid;
  });
  if (stale.length > 0) ops.push({ op: 'mutate', table: 'Port_Group', where, mutations: [['acls', 'delete', stale]] });
  if (members) {
    const have = new Set(actual.ports);
    const want = new Set(members);
    const add = members.filter((uuid) => !have.has(uuid));
    const drop = actual.ports.filter((uuid) => !want.has(uuid));
    if (add.length > 0) ops.push({ op: 'mutate', table: 'Port_Group', where, mutations: [['ports', 'insert', add]] });
    if (drop.length > 0) ops.push({ op: 'mutate', table: 'Port_Group', where, mutations: [['ports', 'delete', drop]] });
  }
  return { ops, outcome: ops.length > 0 ? 'updated' : 'unchanged' };
}

// ---------------------------------------------------------------------------------------------

/**
 * Folds `mutate` operations that differ only in the elements they insert or delete into one, at
 * the place of the last (a uuid-name may be used only after its insert). A batch of a thousand
 * new ports then adds to `neutron_pg_drop` once instead of a thousand times.
 */
export function mergeMutations(ops: readonly Operation[]): Operation[] {
  const groups = new Map<string, { index: number; values: unknown[] }>();
  // One key per operation, computed once: at 100,000 ports the full pass merges 300,000 mutations.
  const keys = ops.map((op) => {
    if (op.op !== 'mutate' || op.mutations.length !== 1) return undefined;
    const [column, mutator] = op.mutations[0]!;
    if (mutator !== 'insert' && mutator !== 'delete') return undefined;
    const [condition] = op.where;
    // The planner's own `[column, '==', string]`; anything else the general (slower) way.
    const where =
      op.where.length === 1 && typeof condition?.[2] === 'string'
        ? `${condition[0]}\u0000${condition[1]}\u0000${condition[2]}`
        : JSON.stringify(op.where);
    return `${op.table}\u0000${column}\u0000${mutator}\u0000${where}`;
  });
  ops.forEach((op, index) => {
    const key = keys[index];
    if (!key || op.op !== 'mutate') return;
    const group = groups.get(key);
    const values = op.mutations[0]![2] as unknown[];
    if (group) {
      group.index = index;
      group.values.push(...values);
    } else groups.set(key, { index, values: [...values] });
  });
  const out: Operation[] = [];
  ops.forEach((op, index) => {
    const key = keys[index];
    if (!key || op.op !== 'mutate') return void out.push(op);
    const group = groups.get(key)!;
    if (group.index !== index) return;
    const [column, mutator] = op.mutations[0]!;
    out.push({ ...op, mutations: [[column, mutator, group.values]] });
  });
  return out;
}

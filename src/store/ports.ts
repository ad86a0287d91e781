/**
 * Ports and what hangs off them: fixed IPs (`ip_allocations`), allowed address pairs, extra DHCP
 * options, security group bindings, tags.
 */
import { sql } from 'kysely';
import type { Db, Store, Tx } from './database.js';
import {
  and,
  chunks,
  effectiveSorts,
  filterConditions,
  inList,
  listRows,
  or,
  type Condition,
  type FilterEnv,
  type ListTable,
  TRUE,
} from './list.js';
import type { ListQuery } from '../core/list-query.js';
import type { AllowedAddressPairTable, ExtraDhcpOptTable, IpAllocationTable, PortTable } from './schema.js';
import { preparedRead } from './prepared.js';
import { lockRow } from './rows.js';
import { addTags } from './tags.js';

export interface PortRecord {
  readonly row: PortTable;
  /** Ordered by address then subnet, as Neutron orders the relationship. */
  readonly fixedIps: Pick<IpAllocationTable, 'subnet_id' | 'ip_address'>[];
  readonly addressPairs: Pick<AllowedAddressPairTable, 'mac_address' | 'ip_address'>[];
  readonly extraDhcpOpts: Pick<ExtraDhcpOptTable, 'opt_name' | 'opt_value' | 'ip_version'>[];
  readonly securityGroups: string[];
  readonly tags: string[];
  /** `qos_policy_id` (the port's own QoS policy) and `qos_network_policy_id` (its network's). */
  readonly qos: { policyId: string | null; networkPolicyId: string | null };
}

/**
 * `fixed_ips=ip_address=X&fixed_ips=subnet_id=Y`: each key narrows, values of one key OR. Written
 * as `id IN (subquery)` so the database starts from the allocation indexes, not from every port.
 */
function fixedIpsFilter(values: readonly unknown[]): Condition {
  const conditions: Condition[] = [];
  const holding = (match: Condition) => sql`ports.id in (select a.port_id from ip_allocations a where ${match})`;
  for (const value of values) {
    const spec = value as Record<string, string[]>;
    if (spec.ip_address) conditions.push(holding(inList('a.ip_address', spec.ip_address)));
    if (spec.subnet_id) conditions.push(holding(inList('a.subnet_id', spec.subnet_id)));
    if (spec.ip_address_substr) {
      const likes = spec.ip_address_substr.map(
        // `!` escapes: a backslash would need escaping itself in MySQL's string literals.
        (part) => sql`a.ip_address like ${'%' + part.replace(/[!%_]/g, '!$&') + '%'} escape '!'`,
      );
      conditions.push(holding(or(likes)));
    }
  }
  return and(conditions);
}

export const PORTS_TABLE: ListTable = {
  table: 'ports',
  tagType: 'port',
  columns: {
    id: { column: 'ports.id', type: 'text' },
    name: { column: 'ports.name', type: 'text' },
    network_id: { column: 'ports.network_id', type: 'text' },
    tenant_id: { column: 'ports.project_id', type: 'text' },
    project_id: { column: 'ports.project_id', type: 'text' },
    admin_state_up: { column: 'ports.admin_state_up', type: 'bool' },
    mac_address: { column: 'ports.mac_address', type: 'text' },
    device_id: { column: 'ports.device_id', type: 'text' },
    device_owner: { column: 'ports.device_owner', type: 'text' },
    status: { column: 'ports.status', type: 'text' },
    description: { column: 'ports.description', type: 'text' },
    revision_number: { column: 'ports.revision_number', type: 'int' },
    ip_allocation: { column: 'ports.ip_allocation', type: 'text' },
    'binding:host_id': { column: 'ports.binding_host_id', type: 'text' },
  },
  customFilters: {
    fixed_ips: (values) => fixedIpsFilter(values),
    security_groups: (values) =>
      sql`ports.id in (select g.port_id from port_security_groups g where ${inList('g.security_group_id', values)})`,
  },
};

/** Ports a non-admin may see: its own and those on its networks. */
export function portVisibility(projectId: string | null): Condition {
  if (!projectId) return sql`1 = 0`;
  return or([
    sql`ports.project_id = ${projectId}`,
    sql`exists (select 1 from networks n where n.id = ports.network_id and n.project_id = ${projectId})`,
  ]);
}

/** Binary string order, whatever the database's collation (Neutron's MySQL/PostgreSQL order for these). */
function byText<T>(...keys: ((item: T) => string | number)[]) {
  return (a: T, b: T): number => {
    for (const key of keys) {
      const x = key(a);
      const y = key(b);
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  };
}

/**
 * Puts a port's children in the order the API shows them: fixed IPs by address then subnet (as
 * Neutron's relationship does), pairs by MAC then address, DHCP options by name then version. Sorts
 * the record's own (freshly built) arrays in place: lists of thousands of ports go through here.
 */
export function orderPortChildren(record: PortRecord): PortRecord {
  if (record.fixedIps.length > 1)
    record.fixedIps.sort(
      byText(
        (f) => f.ip_address,
        (f) => f.subnet_id,
      ),
    );
  if (record.addressPairs.length > 1)
    record.addressPairs.sort(
      byText(
        (p) => p.mac_address,
        (p) => p.ip_address,
      ),
    );
  if (record.extraDhcpOpts.length > 1)
    record.extraDhcpOpts.sort(
      byText(
        (o) => o.opt_name,
        (o) => o.ip_version,
      ),
    );
  if (record.securityGroups.length > 1) record.securityGroups.sort();
  if (record.tags.length > 1) record.tags.sort();
  return record;
}

/** One row of the combined children query: which child it is, its port, and up to three values. */
interface ChildRow {
  kind: 'ip' | 'pair' | 'opt' | 'group' | 'tag' | 'qos' | 'netqos';
  port_id: string;
  a: string;
  b: string | null;
  c: string | null;
}

/**
 * All children of a few ports in one statement (UNION ALL over the child tables and QoS bindings): one round
 * trip instead of seven, which is most of the cost of a port show on PostgreSQL.
 */
async function loadChildRowsTogether(db: Db, ids: readonly string[]): Promise<ChildRow[]> {
  return (await childRowsQuery(ids).execute(db)).rows;
}

function childRowsQuery(ids: readonly string[]) {
  const list = sql.join(ids.map((id) => sql`${id}`));
  return sql<ChildRow>`
    select 'ip' as kind, port_id, subnet_id as a, ip_address as b, null as c from ip_allocations where port_id in (${list})
    union all
    select 'pair', port_id, mac_address, ip_address, null from allowed_address_pairs where port_id in (${list})
    union all
    select 'opt', port_id, opt_name, opt_value, cast(ip_version as varchar(1)) from extra_dhcp_opts where port_id in (${list})
    union all
    select 'group', port_id, security_group_id, null, null from port_security_groups where port_id in (${list})
    union all
    select 'tag', resource_id, tag, null, null from tags where resource_id in (${list})
    union all
    select 'qos', port_id, policy_id, null, null from qos_port_policy_bindings where port_id in (${list})
    union all
    select 'netqos', p.id, b.policy_id, null, null from ports p
      join qos_network_policy_bindings b on b.network_id = p.network_id where p.id in (${list})`;
}

/**
 * The same rows from seven statements run side by side (each on its own pooled connection on
 * PostgreSQL): for long lists, planning one huge IN list seven times over in a single statement
 * costs more than the extra round trips.
 */
async function loadChildRowsApart(db: Db, ids: readonly string[]): Promise<ChildRow[]> {
  const [ips, pairs, opts, groups, tags, qos, netQos] = await Promise.all([
    db
      .selectFrom('ip_allocations')
      .select(['port_id', 'subnet_id', 'ip_address'])
      .where('port_id', 'in', ids)
      .execute(),
    db.selectFrom('allowed_address_pairs').selectAll().where('port_id', 'in', ids).execute(),
    db.selectFrom('extra_dhcp_opts').selectAll().where('port_id', 'in', ids).execute(),
    db.selectFrom('port_security_groups').selectAll().where('port_id', 'in', ids).execute(),
    db.selectFrom('tags').select(['resource_id', 'tag']).where('resource_id', 'in', ids).execute(),
    db.selectFrom('qos_port_policy_bindings').selectAll().where('port_id', 'in', ids).execute(),
    db
      .selectFrom('ports')
      .innerJoin('qos_network_policy_bindings as b', 'b.network_id', 'ports.network_id')
      .select(['ports.id as port_id', 'b.policy_id'])
      .where('ports.id', 'in', ids)
      .execute(),
  ]);
  return [
    ...ips.map((r) => ({ kind: 'ip' as const, port_id: r.port_id, a: r.subnet_id, b: r.ip_address, c: null })),
    ...pairs.map((r) => ({ kind: 'pair' as const, port_id: r.port_id, a: r.mac_address, b: r.ip_address, c: null })),
    ...opts.map((r) => ({
      kind: 'opt' as const,
      port_id: r.port_id,
      a: r.opt_name,
      b: r.opt_value,
      c: String(r.ip_version),
    })),
    ...groups.map((r) => ({ kind: 'group' as const, port_id: r.port_id, a: r.security_group_id, b: null, c: null })),
    ...tags.map((r) => ({ kind: 'tag' as const, port_id: r.resource_id, a: r.tag, b: null, c: null })),
    ...qos.map((r) => ({ kind: 'qos' as const, port_id: r.port_id, a: r.policy_id, b: null, c: null })),
    ...netQos.map((r) => ({ kind: 'netqos' as const, port_id: r.port_id, a: r.policy_id, b: null, c: null })),
  ];
}

/**
 * The children of every port matching `where` (a condition on `ports`), in one statement that
 * joins each child table to the ports: for a whole list (no page), this costs a third of reading
 * them by id lists (no thousand bound parameters to compile, bind and plan per table). Children of
 * ports the list did not return (written between the two statements) are ignored by the caller.
 * `withNetworkQos: false` leaves out the networks' QoS policies (the caller read them with the rows).
 */
async function loadChildRowsJoined(db: Db, where: Condition, withNetworkQos = true): Promise<ChildRow[]> {
  const networkQos = withNetworkQos
    ? sql`
    union all
    select 'netqos', ports.id, x.policy_id, null, null from ports join qos_network_policy_bindings x on x.network_id = ports.network_id where ${where}`
    : sql``;
  const result = await sql<ChildRow>`
    select 'ip' as kind, x.port_id, x.subnet_id as a, x.ip_address as b, null as c from ip_allocations x join ports on ports.id = x.port_id where ${where}
    union all
    select 'pair', x.port_id, x.mac_address, x.ip_address, null from allowed_address_pairs x join ports on ports.id = x.port_id where ${where}
    union all
    select 'opt', x.port_id, x.opt_name, x.opt_value, cast(x.ip_version as varchar(1)) from extra_dhcp_opts x join ports on ports.id = x.port_id where ${where}
    union all
    select 'group', x.port_id, x.security_group_id, null, null from port_security_groups x join ports on ports.id = x.port_id where ${where}
    union all
    select 'tag', x.resource_id, x.tag, null, null from tags x join ports on ports.id = x.resource_id where ${where}
    union all
    select 'qos', x.port_id, x.policy_id, null, null from qos_port_policy_bindings x join ports on ports.id = x.port_id where ${where}${networkQos}`.execute(
    db,
  );
  return result.rows;
}

/** Up to this many ports have their children read in one statement; more are read apart. */
const CHILDREN_TOGETHER_MAX = 50;

export async function loadPortRecords(db: Db, rows: PortTable[]): Promise<PortRecord[]> {
  const ids = rows.map((r) => r.id);
  const load = ids.length <= CHILDREN_TOGETHER_MAX ? loadChildRowsTogether : loadChildRowsApart;
  const children: ChildRow[] = [];
  for (const part of chunks(ids)) children.push(...(await load(db, part)));
  return assemblePortRecords(rows, children);
}

function assemblePortRecords(rows: readonly PortTable[], children: readonly ChildRow[]): PortRecord[] {
  const records = new Map<string, PortRecord>();
  for (const row of rows) {
    records.set(row.id, {
      row,
      fixedIps: [],
      addressPairs: [],
      extraDhcpOpts: [],
      securityGroups: [],
      tags: [],
      qos: { policyId: null, networkPolicyId: null },
    });
  }
  for (const child of children) {
    const record = records.get(child.port_id);
    if (!record) continue;
    switch (child.kind) {
      case 'ip':
        record.fixedIps.push({ subnet_id: child.a, ip_address: child.b! });
        break;
      case 'pair':
        record.addressPairs.push({ mac_address: child.a, ip_address: child.b! });
        break;
      case 'opt':
        record.extraDhcpOpts.push({ opt_name: child.a, opt_value: child.b!, ip_version: Number(child.c) });
        break;
      case 'group':
        record.securityGroups.push(child.a);
        break;
      case 'tag':
        record.tags.push(child.a);
        break;
      case 'qos':
        record.qos.policyId = child.a;
        break;
      case 'netqos':
        record.qos.networkPolicyId = child.a;
        break;
    }
  }
  return [...records.values()].map(orderPortChildren);
}

export async function listPortRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ records: PortRecord[]; markerFound: boolean }> {
  const { rows, markerFound } = await listRows<PortTable>(env, PORTS_TABLE, query, scope);
  return { records: await loadListedPortRecords(env, query, scope, rows), markerFound };
}

/**
 * The records of `rows`, listed by `query` within `scope`. A long list reads its children joined
 * to the ports of the list's own condition: a whole list as it is; a page sorted by id alone
 * within the ids of its first and last row (exactly the page's ports: a port between them that
 * matched would be on the page). At 100,000 ports a page of 1,000 read its children this way in
 * 6-8 ms, against 27 ms from seven tables' lists of ids (two chunks each).
 *
 * `networkQos`: the networks' QoS policies of the rows, when the caller read them with the rows
 * (`listPortRowsWithVersions`); the children statement then leaves them out.
 */
export async function loadListedPortRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
  rows: PortTable[],
  networkQos?: ReadonlyMap<string, string | null>,
): Promise<PortRecord[]> {
  const range = query.limit === undefined ? TRUE : pageIdRange(query, rows);
  const records =
    range === undefined || rows.length <= CHILDREN_TOGETHER_MAX
      ? await loadPortRecords(env.store.db, rows)
      : assemblePortRecords(
          rows,
          await loadChildRowsJoined(
            env.store.db,
            and([scope, ...filterConditions(PORTS_TABLE, query, env), range]),
            networkQos === undefined,
          ),
        );
  if (networkQos) for (const record of records) record.qos.networkPolicyId = networkQos.get(record.row.id) ?? null;
  return records;
}

/** A page's ids as a condition, when the page is sorted by id alone (else undefined). */
function pageIdRange(query: ListQuery, rows: readonly PortTable[]): Condition | undefined {
  const sorts = effectiveSorts(query.sorts);
  if (sorts.length !== 1 || rows.length === 0) return undefined;
  // Rows come in the order asked for; the database's own comparison decides what lies between.
  const [low, high] = sorts[0]!.ascending ? [rows[0]!, rows.at(-1)!] : [rows.at(-1)!, rows[0]!];
  return sql`ports.id >= ${low.id} and ports.id <= ${high.id}`;
}

/**
 * What decides a port's whole view (see core/ports/view-cache.ts): its revision, bumped by every
 * change of the port's row and children, and its network's QoS policy, which the view shows but
 * whose change does not bump the port.
 */
export interface PortVersion {
  readonly id: string;
  readonly revision_number: number;
  readonly net_qos: string | null;
}

const NET_QOS_COLUMN = sql<
  string | null
>`(select q.policy_id from qos_network_policy_bindings q where q.network_id = ports.network_id)`.as('net_qos');

const VERSION_COLUMNS = [
  sql<string>`ports.id`.as('id'),
  sql<number>`ports.revision_number`.as('revision_number'),
  NET_QOS_COLUMN,
];

/** The list's ports (scope, filters, sorting and page as `listPortRecords`), only their versions. */
export async function listPortVersions(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ versions: PortVersion[]; markerFound: boolean }> {
  const { rows, markerFound } = await listRows<PortVersion>(env, PORTS_TABLE, query, scope, VERSION_COLUMNS);
  // MySQL's drivers may answer an integer column as a string; the cache compares numbers.
  return { versions: rows.map((r) => ({ ...r, revision_number: Number(r.revision_number) })), markerFound };
}

/** A listed port's row with its version (see `listPortRowsWithVersions`). */
interface VersionedPortRow {
  readonly row: PortTable;
  readonly version: PortVersion;
}

/**
 * The list's port rows (as `listPortRecords` lists them), each with its version, in one
 * statement: a page or filtered list reads its cached views' versions and the rows of the ones
 * not cached together, and then only the missing ports' children.
 */
export async function listPortRowsWithVersions(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ rows: VersionedPortRow[]; markerFound: boolean }> {
  const listed = await listRows<PortTable & { net_qos: string | null }>(
    env,
    PORTS_TABLE,
    query,
    scope,
    [NET_QOS_COLUMN],
    true,
  );
  const rows = listed.rows.map(({ net_qos, ...row }) => ({
    row,
    version: { id: row.id, revision_number: Number(row.revision_number), net_qos },
  }));
  return { rows, markerFound: listed.markerFound };
}

const portVersionById = preparedRead((db, param) =>
  db.selectFrom('ports').select(VERSION_COLUMNS).where('ports.id', '=', param(0)),
);

/** One port's version (see `listPortVersions`), or undefined if there is no such port. */
export async function getPortVersion(db: Db, id: string): Promise<PortVersion | undefined> {
  const row = (await portVersionById(db, id))[0] as PortVersion | undefined;
  return row && { ...row, revision_number: Number(row.revision_number) };
}

/**
 * The records of these ports (any order; gone ones left out). The rows are read before their
 * children, so a record never has an older child than its row's revision: a view built from it is
 * at least as new as the revision it is cached under.
 */
export async function getPortRecords(db: Db, ids: readonly string[]): Promise<PortRecord[]> {
  const rows: PortTable[] = [];
  for (const part of chunks(ids))
    rows.push(...(await db.selectFrom('ports').selectAll().where('id', 'in', part).execute()));
  return loadPortRecords(db, rows);
}

const portRowById = preparedRead((db, param) => db.selectFrom('ports').selectAll().where('id', '=', param(0)));

export async function getPortRow(db: Db, id: string): Promise<PortTable | undefined> {
  return (await portRowById(db, id))[0];
}

/** `loadChildRowsTogether` of one port, compiled once. */
const childRowsOfPort = preparedRead((db, param) => ({ compile: () => childRowsQuery([param(0)]).compile(db) }));

/** The port and its children, read side by side (one round trip on PostgreSQL's pool). */
export async function getPortRecord(db: Db, id: string): Promise<PortRecord | undefined> {
  const [row, children] = await Promise.all([getPortRow(db, id), childRowsOfPort(db, id)]);
  return row ? assemblePortRecords([row], children)[0] : undefined;
}

/** The port row, locked until commit where the database has row locks (updates of one port serialise on it). */
export async function lockPortRow(store: Store, tx: Tx, id: string): Promise<PortTable | undefined> {
  return lockRow(store, tx, 'ports', id);
}

export async function insertAllocations(tx: Tx, rows: IpAllocationTable[]): Promise<void> {
  if (rows.length) await tx.insertInto('ip_allocations').values(rows).execute();
}

export async function deletePortAllocations(tx: Tx, portId: string, ips: readonly string[]): Promise<void> {
  if (ips.length)
    await tx.deleteFrom('ip_allocations').where('port_id', '=', portId).where('ip_address', 'in', ips).execute();
}

/** The children of a port just inserted (nothing to replace yet). */
export async function insertPortChildren(tx: Tx, record: PortRecord): Promise<void> {
  const portId = record.row.id;
  const networkId = record.row.network_id;
  if (record.fixedIps.length) {
    await tx
      .insertInto('ip_allocations')
      .values(record.fixedIps.map((f) => ({ ...f, port_id: portId, network_id: networkId })))
      .execute();
  }
  if (record.addressPairs.length) {
    await tx
      .insertInto('allowed_address_pairs')
      .values(record.addressPairs.map((p) => ({ ...p, port_id: portId })))
      .execute();
  }
  if (record.extraDhcpOpts.length) {
    await tx
      .insertInto('extra_dhcp_opts')
      .values(record.extraDhcpOpts.map((o) => ({ ...o, port_id: portId })))
      .execute();
  }
  if (record.securityGroups.length) {
    await tx
      .insertInto('port_security_groups')
      .values(record.securityGroups.map((g) => ({ port_id: portId, security_group_id: g })))
      .execute();
  }
  await addTags(tx, 'port', portId, record.tags);
}

export async function replaceAddressPairs(
  tx: Tx,
  portId: string,
  pairs: readonly { mac_address: string; ip_address: string }[],
): Promise<void> {
  await tx.deleteFrom('allowed_address_pairs').where('port_id', '=', portId).execute();
  if (pairs.length)
    await tx
      .insertInto('allowed_address_pairs')
      .values(pairs.map((p) => ({ port_id: portId, ...p })))
      .execute();
}

export async function replaceExtraDhcpOpts(
  tx: Tx,
  portId: string,
  opts: readonly { opt_name: string; opt_value: string; ip_version: number }[],
): Promise<void> {
  await tx.deleteFrom('extra_dhcp_opts').where('port_id', '=', portId).execute();
  if (opts.length)
    await tx
      .insertInto('extra_dhcp_opts')
      .values(opts.map((o) => ({ port_id: portId, ...o })))
      .execute();
}

export async function replacePortSecurityGroups(tx: Tx, portId: string, groups: readonly string[]): Promise<void> {
  await tx.deleteFrom('port_security_groups').where('port_id', '=', portId).execute();
  if (groups.length) {
    await tx
      .insertInto('port_security_groups')
      .values(groups.map((g) => ({ port_id: portId, security_group_id: g })))
      .execute();
  }
}

export async function macInUse(db: Db, networkId: string, mac: string): Promise<boolean> {
  const row = await db
    .selectFrom('ports')
    .select('id')
    .where('network_id', '=', networkId)
    .where('mac_address', '=', mac)
    .executeTakeFirst();
  return row !== undefined;
}

export async function addressTaken(db: Db, networkId: string, ip: string): Promise<boolean> {
  const row = await db
    .selectFrom('ip_allocations')
    .select('port_id')
    .where('network_id', '=', networkId)
    .where('ip_address', '=', ip)
    .executeTakeFirst();
  return row !== undefined;
}

/** Ports on a network (id, MAC, owner), for giving them addresses of a new auto-address subnet. */
export async function portsOnNetwork(
  db: Db,
  networkId: string,
): Promise<Pick<PortTable, 'id' | 'mac_address' | 'device_owner'>[]> {
  return db
    .selectFrom('ports')
    .select(['id', 'mac_address', 'device_owner'])
    .where('network_id', '=', networkId)
    .execute();
}

export async function bumpPortRevisions(tx: Tx, ids: readonly string[], now: string): Promise<void> {
  for (const part of chunks(ids)) {
    await sql`update ports set revision_number = revision_number + 1, updated_at = ${now} where ${inList('id', part)}`.execute(
      tx,
    );
  }
}

/** Ports that keep a network from being deleted: all but those owned by `autoDeleteOwners`. */
export async function portsBlockingNetworkDelete(
  tx: Tx,
  networkId: string,
  autoDeleteOwners: string[],
): Promise<string[]> {
  const rows = await tx
    .selectFrom('ports')
    .select('id')
    .where('network_id', '=', networkId)
    .where('device_owner', 'not in', autoDeleteOwners)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Deletes what a network takes with it: its remaining (service) ports, then its subnets. */
export async function deleteNetworkContents(tx: Tx, networkId: string): Promise<void> {
  const ports = await tx.selectFrom('ports').select('id').where('network_id', '=', networkId).execute();
  const subnets = await tx.selectFrom('subnets').select('id').where('network_id', '=', networkId).execute();
  const ids = [...ports.map((p) => p.id), ...subnets.map((s) => s.id)];
  for (const part of chunks(ids)) await tx.deleteFrom('tags').where('resource_id', 'in', part).execute();
  await tx.deleteFrom('ports').where('network_id', '=', networkId).execute();
  await tx.deleteFrom('subnets').where('network_id', '=', networkId).execute();
}

export async function hasRouterGatewayPorts(tx: Tx, networkId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('ports')
    .select('id')
    .where('network_id', '=', networkId)
    .where('device_owner', '=', 'network:router_gateway')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Networks with what hangs off them: segments (provider attributes and the VNI/VLAN allocation),
 * the external flag, RBAC entries (shared), subnet ids and tags.
 */
import { sql } from 'kysely';
import type { Db, Store, Tx } from './database.js';
import { preparedRead } from './prepared.js';
import { chunks, inList, listRows, or, type Condition, type FilterEnv, type ListTable } from './list.js';
import type { ListQuery } from '../core/list-query.js';
import { toBool, type NetworkRbacTable, type NetworkSegmentTable, type NetworkTable } from './schema.js';
import { lockRow } from './rows.js';
import { loadTags } from './tags.js';
import { selectScopedSubnets } from './address-scopes.js';

export interface NetworkRecord {
  readonly row: NetworkTable;
  readonly subnetIds: string[];
  readonly segments: NetworkSegmentTable[];
  readonly external: boolean;
  /** `is_default` of an external network (auto-allocated-topology's default); null when not external. */
  readonly isDefault: boolean | null;
  readonly rbac: Pick<NetworkRbacTable, 'target_project' | 'action'>[];
  readonly tags: string[];
  /** `ipv4_address_scope` / `ipv6_address_scope`: the scope of the network's subnets' pools, per family. */
  readonly addressScopes: { readonly 4: string | null; readonly 6: string | null };
  /** `qos_policy_id`: the QoS policy attached to the network, if any. */
  readonly qosPolicyId: string | null;
}

export const ACCESS_AS_SHARED = 'access_as_shared';
export const ACCESS_AS_EXTERNAL = 'access_as_external';

/** What visibility and policy need of a network: its row and whom it is shared with. */
export type NetworkAccess = Pick<NetworkRecord, 'row' | 'rbac'>;

/** `shared` as Neutron computes it per caller: shared with everyone or with the caller's project. */
export function isSharedWith(record: NetworkAccess, projectId: string | null): boolean {
  return record.rbac.some(
    (r) => r.action === ACCESS_AS_SHARED && (r.target_project === '*' || r.target_project === projectId),
  );
}

function rbacExists(actions: string[], projectId: string | null): Condition {
  const targets = projectId ? ['*', projectId] : ['*'];
  return sql`exists (select 1 from network_rbacs r where r.object_id = networks.id and ${inList('r.action', actions)} and ${inList('r.target_project', targets)})`;
}

function segmentMatch(column: string, values: readonly unknown[]): Condition {
  const stored = values.map((v) => (v === null ? (column === 'physical_network' ? '' : 0) : v));
  return sql`exists (select 1 from network_segments s where s.network_id = networks.id and ${inList(`s.${column}`, stored)})`;
}

function boolExists(values: readonly unknown[], exists: Condition): Condition {
  const wanted = new Set(values.map((v) => v === true));
  if (wanted.size === 2) return sql`1 = 1`;
  return wanted.has(true) ? exists : sql`not ${exists}`;
}

export const NETWORKS_TABLE: ListTable = {
  table: 'networks',
  tagType: 'network',
  columns: {
    id: { column: 'networks.id', type: 'text' },
    name: { column: 'networks.name', type: 'text' },
    admin_state_up: { column: 'networks.admin_state_up', type: 'bool' },
    status: { column: 'networks.status', type: 'text' },
    tenant_id: { column: 'networks.project_id', type: 'text' },
    project_id: { column: 'networks.project_id', type: 'text' },
    mtu: { column: 'networks.mtu', type: 'int' },
    description: { column: 'networks.description', type: 'text' },
    revision_number: { column: 'networks.revision_number', type: 'int' },
    availability_zone_hints: { column: 'networks.availability_zone_hints', type: 'text' },
  },
  customFilters: {
    shared: (values, env: FilterEnv) => boolExists(values, rbacExists([ACCESS_AS_SHARED], env.projectId)),
    'router:external': (values) =>
      boolExists(values, sql`exists (select 1 from external_networks e where e.network_id = networks.id)`),
    'provider:network_type': (values) => segmentMatch('network_type', values),
    'provider:physical_network': (values) => segmentMatch('physical_network', values),
    'provider:segmentation_id': (values) => segmentMatch('segmentation_id', values),
  },
};

/** Rows a non-admin may see: its own, and those shared with it or external (RBAC). */
export function networkVisibility(projectId: string | null): Condition {
  const viaRbac = rbacExists([ACCESS_AS_SHARED, ACCESS_AS_EXTERNAL], projectId);
  return projectId ? or([sql`networks.project_id = ${projectId}`, viaRbac]) : viaRbac;
}

export async function loadNetworkRecords(db: Db, rows: NetworkTable[]): Promise<NetworkRecord[]> {
  const ids = rows.map((r) => r.id);
  const subnets = new Map<string, string[]>();
  const segments = new Map<string, NetworkSegmentTable[]>();
  const rbac = new Map<string, NetworkRecord['rbac']>();
  const external = new Map<string, boolean>();
  const tags = new Map<string, string[]>();
  const scopes = new Map<string, { 4: string | null; 6: string | null }>();
  const qos = new Map<string, string>();
  for (const part of chunks(ids)) {
    const [subnetRows, segmentRows, rbacRows, externalRows, tagsOfPart, qosRows] = await Promise.all([
      selectScopedSubnets(db).where('subnets.network_id', 'in', part).orderBy('subnets.position').execute(),
      db.selectFrom('network_segments').selectAll().where('network_id', 'in', part).orderBy('segment_index').execute(),
      db
        .selectFrom('network_rbacs')
        .select(['object_id', 'target_project', 'action'])
        .where('object_id', 'in', part)
        .execute(),
      db.selectFrom('external_networks').select(['network_id', 'is_default']).where('network_id', 'in', part).execute(),
      loadTags(db, part),
      db.selectFrom('qos_network_policy_bindings').selectAll().where('network_id', 'in', part).execute(),
    ]);
    for (const q of qosRows) qos.set(q.network_id, q.policy_id);
    for (const [id, list] of tagsOfPart) tags.set(id, list);
    for (const s of subnetRows) {
      push(subnets, s.network_id, s.id);
      // Neutron's `get_network_address_scope` takes the first scoped subnet of the family.
      if (s.address_scope_id) {
        const known = scopes.get(s.network_id) ?? { 4: null, 6: null };
        if (s.ip_version === 4 || s.ip_version === 6) known[s.ip_version] ??= s.address_scope_id;
        scopes.set(s.network_id, known);
      }
    }
    for (const s of segmentRows) push(segments, s.network_id, s);
    for (const r of rbacRows) push(rbac, r.object_id, { target_project: r.target_project, action: r.action });
    for (const e of externalRows) external.set(e.network_id, toBool(e.is_default));
  }
  return rows.map((row) => ({
    row,
    subnetIds: subnets.get(row.id) ?? [],
    segments: segments.get(row.id) ?? [],
    external: external.has(row.id),
    isDefault: external.get(row.id) ?? null,
    rbac: rbac.get(row.id) ?? [],
    tags: tags.get(row.id) ?? [],
    addressScopes: scopes.get(row.id) ?? { 4: null, 6: null },
    qosPolicyId: qos.get(row.id) ?? null,
  }));
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export async function listNetworkRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ records: NetworkRecord[]; markerFound: boolean }> {
  const { rows, markerFound } = await listRows<NetworkTable>(env, NETWORKS_TABLE, query, scope);
  return { records: await loadNetworkRecords(env.store.db, rows), markerFound };
}

/**
 * `router:external`: the network has an external_networks row, which every `access_as_external`
 * entry comes with (`router:external: true` makes a wildcard one; a policy for one project makes
 * the network external too, and removing the last entry makes it internal again).
 */
export function isExternal(record: NetworkAccess): boolean {
  return record.rbac.some((r) => r.action === ACCESS_AS_EXTERNAL);
}

/** Which of `networkIds` are external networks (a subnet's `router:external`). */
export async function externalNetworkIds(db: Db, networkIds: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const part of chunks([...new Set(networkIds)])) {
    const rows = await db
      .selectFrom('external_networks')
      .select('network_id')
      .where('network_id', 'in', part)
      .execute();
    for (const r of rows) out.add(r.network_id);
  }
  return out;
}

/** The network row and its RBAC entries only: the cheap lookup subnets and ports need. */
export async function getNetworkAccess(db: Db, id: string): Promise<NetworkAccess | undefined> {
  // Side by side: on PostgreSQL each runs on its own pooled connection, one round trip in all.
  const [row, rbac] = await Promise.all([
    db.selectFrom('networks').selectAll().where('id', '=', id).executeTakeFirst(),
    db.selectFrom('network_rbacs').select(['target_project', 'action']).where('object_id', '=', id).execute(),
  ]);
  return row ? { row, rbac } : undefined;
}

/** `getNetworkAccess` by one of the network's ports, so it need not wait for the port row. */
const networkOfPort = (db: Db, portId: string) => db.selectFrom('ports').select('network_id').where('id', '=', portId);
// Compiled once (a port show runs both): see prepared.ts.
const networkRowOfPort = preparedRead((db, param) =>
  db
    .selectFrom('networks')
    .selectAll()
    .where('id', '=', networkOfPort(db, param(0))),
);
const networkRbacOfPort = preparedRead((db, param) =>
  db
    .selectFrom('network_rbacs')
    .select(['target_project', 'action'])
    .where('object_id', '=', networkOfPort(db, param(0))),
);

export async function getNetworkAccessOfPort(db: Db, portId: string): Promise<NetworkAccess | undefined> {
  const [rows, rbac] = await Promise.all([networkRowOfPort(db, portId), networkRbacOfPort(db, portId)]);
  return rows[0] ? { row: rows[0], rbac } : undefined;
}

/** `getNetworkAccess` for many views' networks, each looked up once (lists of subnets and ports). */
export async function networkAccessByView(
  db: Db,
  views: readonly { network_id?: unknown }[],
): Promise<Map<string, NetworkAccess>> {
  const result = new Map<string, NetworkAccess>();
  for (const id of new Set(views.map((v) => v.network_id as string))) {
    const access = await getNetworkAccess(db, id);
    if (access) result.set(id, access);
  }
  return result;
}

export async function getNetworkRecord(db: Db, id: string): Promise<NetworkRecord | undefined> {
  const row = await db.selectFrom('networks').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await loadNetworkRecords(db, [row]))[0] : undefined;
}

/**
 * The network row, locked against concurrent writers for the rest of the transaction where the
 * database has row locks (subnet creation checks overlaps under this lock).
 */
export async function lockNetworkRow(store: Store, tx: Tx, id: string): Promise<NetworkTable | undefined> {
  return lockRow(store, tx, 'networks', id);
}

export async function insertSegment(tx: Tx, segment: NetworkSegmentTable): Promise<void> {
  await tx.insertInto('network_segments').values(segment).execute();
}

export async function updateSegmentationId(tx: Tx, segmentId: string, segmentationId: number): Promise<void> {
  await tx
    .updateTable('network_segments')
    .set({ segmentation_id: segmentationId })
    .where('id', '=', segmentId)
    .execute();
}

export async function segmentTaken(tx: Tx, type: string, physnet: string, segmentationId: number): Promise<boolean> {
  const row = await tx
    .selectFrom('network_segments')
    .select('id')
    .where('network_type', '=', type)
    .where('physical_network', '=', physnet)
    .where('segmentation_id', '=', segmentationId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The lowest free segmentation id in `[min, max]` for a type and physnet, or null when the range
 * is full: either `min` itself, or one past an allocated id whose successor is free.
 */
export async function lowestFreeSegmentationId(
  tx: Tx,
  type: string,
  physnet: string,
  min: number,
  max: number,
): Promise<number | null> {
  const result = await sql<{ candidate: number | null }>`
    select min(candidate) as candidate from (
      select ${min} as candidate
       where not exists (select 1 from network_segments
                          where network_type = ${type} and physical_network = ${physnet} and segmentation_id = ${min})
      union all
      select s.segmentation_id + 1 as candidate from network_segments s
       where s.network_type = ${type} and s.physical_network = ${physnet}
         and s.segmentation_id >= ${min} and s.segmentation_id < ${max}
         and not exists (select 1 from network_segments n
                          where n.network_type = ${type} and n.physical_network = ${physnet}
                            and n.segmentation_id = s.segmentation_id + 1)
    ) candidates`.execute(tx);
  const candidate = result.rows[0]?.candidate;
  return candidate === null || candidate === undefined ? null : Number(candidate);
}

export async function setExternal(
  store: Store,
  tx: Tx,
  networkId: string,
  external: boolean,
  ownerProject: string,
  rbacId: string,
): Promise<void> {
  if (external) {
    await tx
      .insertInto('external_networks')
      .values({ network_id: networkId, is_default: store.bool(false) })
      .execute();
    await insertRbac(tx, {
      id: rbacId,
      project_id: ownerProject,
      object_id: networkId,
      target_project: '*',
      action: ACCESS_AS_EXTERNAL,
    });
  } else {
    await tx.deleteFrom('external_networks').where('network_id', '=', networkId).execute();
    await deleteWildcardRbac(tx, networkId, ACCESS_AS_EXTERNAL);
  }
}

/** Another network that is the default external network (auto-allocated-topology), if any. */
export async function otherDefaultExternal(store: Store, tx: Tx, networkId: string): Promise<string | undefined> {
  const row = await tx
    .selectFrom('external_networks')
    .select('network_id')
    .where('network_id', '!=', networkId)
    .where('is_default', '=', store.bool(true))
    .executeTakeFirst();
  return row?.network_id;
}

/** Sets `is_default` of an external network (a network with no external_networks row has none to set). */
export async function setDefaultExternal(store: Store, tx: Tx, networkId: string, isDefault: boolean): Promise<void> {
  await tx
    .updateTable('external_networks')
    .set({ is_default: store.bool(isDefault) })
    .where('network_id', '=', networkId)
    .execute();
}

/** Makes the network external without sharing it with everyone (an `access_as_external` policy for one project). */
export async function markExternal(store: Store, tx: Tx, networkId: string): Promise<void> {
  const present = await tx
    .selectFrom('external_networks')
    .select('network_id')
    .where('network_id', '=', networkId)
    .executeTakeFirst();
  if (!present)
    await tx
      .insertInto('external_networks')
      .values({ network_id: networkId, is_default: store.bool(false) })
      .execute();
}

export async function insertRbac(tx: Tx, row: NetworkRbacTable): Promise<void> {
  await tx.insertInto('network_rbacs').values(row).execute();
}

export async function deleteWildcardRbac(tx: Tx, networkId: string, action: string): Promise<void> {
  await tx
    .deleteFrom('network_rbacs')
    .where('object_id', '=', networkId)
    .where('target_project', '=', '*')
    .where('action', '=', action)
    .execute();
}

/**
 * Projects other than the owner that use the network through `*` sharing: they have ports (other
 * than Neutron's own `network:*` ones) or subnets on it and no RBAC entry of their own.
 */
export async function projectsUsingSharedNetwork(tx: Tx, networkId: string, owner: string): Promise<string[]> {
  const ownEntry = sql<boolean>`exists (select 1 from network_rbacs r where r.object_id = ${networkId} and r.action = ${ACCESS_AS_SHARED} and r.target_project = project_id)`;
  const ports = await tx
    .selectFrom('ports')
    .select('project_id')
    .distinct()
    .where('network_id', '=', networkId)
    .where('project_id', '!=', owner)
    .where('device_owner', 'not like', 'network:%')
    .where(sql<boolean>`not ${ownEntry}`)
    .execute();
  const subnets = await tx
    .selectFrom('subnets')
    .select('project_id')
    .distinct()
    .where('network_id', '=', networkId)
    .where('project_id', '!=', owner)
    .where(sql<boolean>`not ${ownEntry}`)
    .execute();
  return [...new Set([...ports, ...subnets].map((r) => r.project_id))];
}

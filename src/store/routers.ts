/**
 * Routers (`routers`, `router_routes`, `router_l3_agents`) and the router-owned ports: a router's
 * record is its row with its extra routes, the operator's gateway pins, its tags and the addresses
 * of its gateway port.
 */
import type { Db, Store, Tx } from './database.js';
import { chunks, listRows, type Condition, type FilterEnv, type ListTable } from './list.js';
import type { ListQuery } from '../core/list-query.js';
import type { RouterTable } from './schema.js';
import { lockRow } from './rows.js';
import { loadTags } from './tags.js';
import { sql } from 'kysely';

export const ROUTER_INTERFACE_OWNER = 'network:router_interface';
export const ROUTER_GATEWAY_OWNER = 'network:router_gateway';

export interface RouterRoute {
  readonly destination: string;
  readonly nexthop: string;
}

export interface RouterRecord {
  readonly row: RouterTable;
  readonly routes: RouterRoute[];
  /** Pinned gateway agents, most preferred first. */
  readonly l3Agents: string[];
  readonly tags: string[];
  /** The gateway port's network and addresses, when the router has a gateway. */
  readonly gateway?: { networkId: string; fixedIps: { subnet_id: string; ip_address: string }[] };
}

export const ROUTERS_TABLE: ListTable = {
  table: 'routers',
  tagType: 'router',
  columns: {
    id: { column: 'routers.id', type: 'text' },
    name: { column: 'routers.name', type: 'text' },
    admin_state_up: { column: 'routers.admin_state_up', type: 'bool' },
    status: { column: 'routers.status', type: 'text' },
    tenant_id: { column: 'routers.project_id', type: 'text' },
    project_id: { column: 'routers.project_id', type: 'text' },
    description: { column: 'routers.description', type: 'text' },
    revision_number: { column: 'routers.revision_number', type: 'int' },
    created_at: { column: 'routers.created_at', type: 'text' },
    updated_at: { column: 'routers.updated_at', type: 'text' },
  },
};

export async function loadRouterRecords(db: Db, rows: readonly RouterTable[]): Promise<RouterRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const routes = new Map<string, RouterRoute[]>();
  const pins = new Map<string, string[]>();
  const gateways = new Map<string, NonNullable<RouterRecord['gateway']>>();
  for (const part of chunks(ids)) {
    for (const r of await db
      .selectFrom('router_routes')
      .selectAll()
      .where('router_id', 'in', part)
      .orderBy('destination')
      .orderBy('nexthop')
      .execute()) {
      push(routes, r.router_id, { destination: r.destination, nexthop: r.nexthop });
    }
    for (const p of await db
      .selectFrom('router_l3_agents')
      .selectAll()
      .where('router_id', 'in', part)
      .orderBy('position')
      .execute()) {
      push(pins, p.router_id, p.agent_id);
    }
    const gwRows = await db
      .selectFrom('routers')
      .innerJoin('ports', 'ports.id', 'routers.gw_port_id')
      .leftJoin('ip_allocations', 'ip_allocations.port_id', 'ports.id')
      .select(['routers.id as router_id', 'ports.network_id', 'ip_allocations.subnet_id', 'ip_allocations.ip_address'])
      .where('routers.id', 'in', part)
      .execute();
    for (const g of gwRows) {
      const gateway = gateways.get(g.router_id) ?? { networkId: g.network_id, fixedIps: [] };
      gateways.set(g.router_id, gateway);
      if (g.subnet_id && g.ip_address) gateway.fixedIps.push({ subnet_id: g.subnet_id, ip_address: g.ip_address });
    }
  }
  const tags = await loadTags(db, ids);
  return rows.map((row) => {
    const gateway = gateways.get(row.id);
    gateway?.fixedIps.sort((a, b) => a.ip_address.localeCompare(b.ip_address));
    return {
      row,
      routes: routes.get(row.id) ?? [],
      l3Agents: pins.get(row.id) ?? [],
      tags: tags.get(row.id) ?? [],
      ...(gateway ? { gateway } : {}),
    };
  });
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export async function listRouterRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ records: RouterRecord[]; markerFound: boolean }> {
  const { rows, markerFound } = await listRows<RouterTable>(env, ROUTERS_TABLE, query, scope);
  return { records: await loadRouterRecords(env.store.db, rows), markerFound };
}

/** Routers a project sees: its own (admins see all; policy decides the rest). */
export function routerVisibility(projectId: string | null): Condition {
  return sql`routers.project_id = ${projectId ?? ''}`;
}

export async function getRouterRecord(db: Db, id: string): Promise<RouterRecord | undefined> {
  const row = await db.selectFrom('routers').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await loadRouterRecords(db, [row]))[0] : undefined;
}

/** The router row, locked until commit where the database has row locks, so its ports change one writer at a time. */
export async function lockRouterRow(store: Store, tx: Tx, id: string): Promise<RouterTable | undefined> {
  return lockRow(store, tx, 'routers', id);
}

export async function replaceRoutes(tx: Tx, routerId: string, routes: readonly RouterRoute[]): Promise<void> {
  await tx.deleteFrom('router_routes').where('router_id', '=', routerId).execute();
  if (routes.length === 0) return;
  await tx
    .insertInto('router_routes')
    .values(routes.map((r) => ({ router_id: routerId, destination: r.destination, nexthop: r.nexthop })))
    .execute();
}

export async function replaceL3Agents(tx: Tx, routerId: string, agents: readonly string[]): Promise<void> {
  await tx.deleteFrom('router_l3_agents').where('router_id', '=', routerId).execute();
  if (agents.length === 0) return;
  await tx
    .insertInto('router_l3_agents')
    .values(agents.map((agent_id, position) => ({ router_id: routerId, agent_id, position })))
    .execute();
}

/** A router's ports of the given owners, ordered by id (as Neutron lists them in RouterInUse). */
export async function routerPortIds(db: Db, routerId: string, owners: readonly string[]): Promise<string[]> {
  if (owners.length === 0) return [];
  const rows = await db
    .selectFrom('ports')
    .select('id')
    .where('device_id', '=', routerId)
    .where('device_owner', 'in', owners)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Whether a router with this id exists (a router-owned port outlives a router only by mistake). */
export async function routerExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('routers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/**
 * The routers that connect `subnetId` to external network `externalNetworkId`: an interface port
 * on the subnet and a gateway port on the external network. With the interface address, so the
 * caller can prefer the router holding the subnet's gateway IP (`get_router_for_floatingip`).
 */
export async function routersBetween(
  db: Db,
  subnetId: string,
  externalNetworkId: string,
): Promise<{ router_id: string; ip_address: string }[]> {
  const rows = await sql<{ router_id: string; ip_address: string }>`
    select distinct p.device_id as router_id, a.ip_address as ip_address
    from ports p
    join ip_allocations a on a.port_id = p.id
    join routers r on r.id = p.device_id
    join ports g on g.id = r.gw_port_id
    where p.device_owner = ${ROUTER_INTERFACE_OWNER}
      and a.subnet_id = ${subnetId}
      and g.network_id = ${externalNetworkId}
    order by p.device_id, a.ip_address`.execute(db);
  return rows.rows;
}

/**
 * Routers (`/v2.0/routers`; `neutron/db/l3_db.py`, `extraroute_db.py`, `l3_gwmode_db.py`): create
 * (with a gateway), show, list, update (name, state, gateway, routes), delete (not while
 * interfaces remain; the gateway port goes with the router), and the member actions: interfaces
 * (`interfaces.ts`) and atomic extra routes. Routers are always ACTIVE: OVN runs them everywhere.
 *
 * Every write that touches a router's ports happens in the router's own transaction, so a failed
 * request leaves neither a stray port nor a router pointing at a missing one.
 */
import { routerCreate, routerUpdate } from './body.js';
import { routerState } from '../driver-states.js';
import type { PortState } from '../../drivers/host.js';
import { randomUUID } from 'node:crypto';
import type { RouterState } from '../../drivers/host.js';
import type { ResourceContext } from '../../drivers/contract.js';
import type { Db, Tx } from '../../store/database.js';
import { TRUE } from '../../store/list.js';
import {
  ROUTER_GATEWAY_OWNER,
  ROUTER_INTERFACE_OWNER,
  getRouterRecord,
  listRouterRecords,
  loadRouterRecords,
  lockRouterRow,
  replaceRoutes,
  routerExists,
  routerPortIds,
  type RouterRecord,
  type RouterRoute,
  routerVisibility,
} from '../../store/routers.js';
import {
  decodeStringList,
  deleteRowWithTags,
  insertRow,
  type RowPatch,
  type RowValues,
  updateRow,
} from '../../store/rows.js';
import { toBool } from '../../store/schema.js';
import { subnetsOfNetwork, getSubnetRow } from '../../store/subnets.js';
import { addTags } from '../../store/tags.js';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import { BadRequest, InvalidInput, RouterInUse, RouterNotFound, ServicePortInUse } from '../errors.js';
import { EMPTY_LIST_QUERY, type ListQuery } from '../list-query.js';
import type { NetworkService } from '../networks/service.js';
import type { PortService } from '../ports/service.js';
import {
  countByProject,
  policyTarget,
  type Body,
  type Precondition,
  type ResourceService,
  type View,
} from '../resource.js';
import { checkRevision } from '../revisions.js';
import { timestamp } from '../standard-attributes.js';
import type { SubnetService } from '../subnets/service.js';
import { isPlainObject, validateHostroutes } from '../validators.js';
import { ROUTER_SPEC } from './attributes.js';
import { gatewayRequest, RouterGateways } from './gateway.js';
import { RouterInterfaces, type RouterInterfaceInfo } from './interfaces.js';
import { addRoutes, removeRoutes, validateRoutes, type RouterReach } from './routes.js';

type Events = ResourceContext[];

export class RouterService implements ResourceService {
  readonly spec = ROUTER_SPEC;
  private readonly gateways: RouterGateways;
  private readonly interfaces: RouterInterfaces;

  constructor(
    private readonly deps: CoreDeps,
    networks: NetworkService,
    subnets: SubnetService,
    private readonly ports: PortService,
  ) {
    this.gateways = new RouterGateways(deps, networks, ports);
    this.interfaces = new RouterInterfaces(subnets, ports);
    ports.deleteHooks.push({ guard: (tx, port) => this.guardPortDelete(tx, port) });
  }

  notFound(id: string | null): Error {
    return RouterNotFound({ router_id: id });
  }

  view(record: RouterRecord): View {
    const { row, gateway } = record;
    return {
      id: row.id,
      name: row.name,
      tenant_id: row.project_id,
      admin_state_up: toBool(row.admin_state_up),
      status: row.status,
      external_gateway_info: gateway
        ? { network_id: gateway.networkId, external_fixed_ips: gateway.fixedIps, enable_snat: toBool(row.enable_snat) }
        : null,
      description: row.description,
      availability_zones: [],
      availability_zone_hints: decodeStringList(row.availability_zone_hints),
      routes: record.routes,
      tags: record.tags,
      created_at: row.created_at,
      updated_at: row.updated_at,
      revision_number: row.revision_number,
      project_id: row.project_id,
    };
  }

  /** What the drivers read (`DriverHost.reader.router`). */
  state(record: RouterRecord): RouterState {
    return routerState(this.view(record), { gw_port_id: record.row.gw_port_id, l3_agents: record.l3Agents });
  }

  /** The router if the caller may see it (its own project's, or any for an admin), else RouterNotFound. */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<RouterRecord> {
    const record = await getRouterRecord(db, id);
    if (!record || !this.canSee(ctx, record)) throw this.notFound(id);
    return record;
  }

  private canSee(ctx: RequestContext, record: RouterRecord): boolean {
    if (!ctx.isAdmin && record.row.project_id !== ctx.projectId) return false;
    return this.deps.authz.canRead(ctx, 'router', this.view(record));
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const scope = ctx.isAdmin ? TRUE : routerVisibility(ctx.projectId);
    const { records, markerFound } = await listRouterRecords(
      { store: this.deps.store, projectId: ctx.projectId },
      query,
      scope,
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    return records.filter((r) => this.canSee(ctx, r)).map((r) => this.view(r));
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return this.view(await this.getVisible(this.deps.store.db, ctx, id));
  }

  /** All routers as drivers read them. */
  async states(): Promise<RouterState[]> {
    const { records } = await listRouterRecords({ store: this.deps.store, projectId: null }, EMPTY_LIST_QUERY, TRUE);
    return records.map((r) => this.state(r));
  }

  async stateOf(id: string): Promise<RouterState | undefined> {
    const record = await getRouterRecord(this.deps.store.db, id);
    return record ? this.state(record) : undefined;
  }

  /** A locked, current record inside `tx` (the router's ports change one writer at a time). */
  private async lockedRecord(tx: Tx, ctx: RequestContext, id: string): Promise<RouterRecord> {
    const row = await lockRouterRow(this.deps.store, tx, id);
    const [record] = row ? await loadRouterRecords(tx, [row]) : [];
    if (!record || !this.canSee(ctx, record)) throw this.notFound(id);
    return record;
  }

  private async reload(tx: Tx, id: string): Promise<RouterRecord> {
    return (await getRouterRecord(tx, id))!;
  }

  /** One revision more, as every write to the router or its ports gives it (`revises_on_change`). */
  private async bump(tx: Tx, record: RouterRecord): Promise<void> {
    await updateRow(this.deps.store, tx, 'routers', record.row.id, {
      revision_number: record.row.revision_number + 1,
      updated_at: timestamp(),
    });
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      for (const [project, count] of countByProject(items)) await deps.quotas.enforce(tx, project, { router: count });
      for (const item of items) deps.authz.enforceCreate(ctx, this.spec, item);
      const views: View[] = [];
      const events: Events = [];
      for (const item of items) {
        const body = routerCreate(item);
        const now = timestamp();
        const values: RowValues<'routers'> = {
          id: randomUUID(),
          project_id: body.project_id,
          name: body.name,
          admin_state_up: item.admin_state_up as boolean,
          status: 'ACTIVE',
          enable_snat: deps.config.network.enable_snat_by_default,
          gw_port_id: null,
          availability_zone_hints: body.availability_zone_hints ?? [],
          description: body.description,
          revision_number: 0,
          created_at: now,
          updated_at: now,
        };
        const row = await insertRow(deps.store, tx, 'routers', values);
        await addTags(tx, 'router', row.id, body.tags ?? []);
        const request = gatewayRequest(body.external_gateway_info);
        const portEvents: Events = [];
        if (request) {
          portEvents.push(...(await this.gateways.apply(tx, ctx, await this.reload(tx, row.id), request)));
          // The gateway port and its binding each bump a new router once in Neutron.
          await updateRow(deps.store, tx, 'routers', row.id, { revision_number: 2 });
        }
        const record = await this.reload(tx, row.id);
        views.push(this.view(record));
        const event: ResourceContext = {
          resource: 'router',
          operation: 'create',
          request: ctx,
          current: this.state(record),
        };
        events.push(...portEvents, event);
      }
      return { result: views, events };
    });
  }

  async update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const record = await this.lockedRecord(tx, ctx, id);
      const original = this.view(record);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(original, body), body);
      checkRevision(record.row.revision_number, precondition);
      const events: Events = [];
      const patch: RowPatch<'routers'> = {};
      const change = routerUpdate(body);
      if (change.name !== undefined) patch.name = change.name;
      if (change.description !== undefined) patch.description = change.description;
      if ('admin_state_up' in body) patch.admin_state_up = body.admin_state_up as boolean;
      if (Object.keys(patch).length) await updateRow(deps.store, tx, 'routers', id, patch);
      if ('external_gateway_info' in body) {
        events.push(...(await this.gateways.apply(tx, ctx, record, gatewayRequest(change.external_gateway_info))));
      }
      let routes = record.routes;
      if (change.routes !== undefined) routes = change.routes;
      if ('routes' in body || ('external_gateway_info' in body && routes.length > 0)) {
        await this.checkRoutes(tx, record, routes);
        if ('routes' in body) await replaceRoutes(tx, id, dedupe(routes));
      }
      await this.bump(tx, record);
      const reloaded = await this.reload(tx, id);
      const event: ResourceContext = {
        resource: 'router',
        operation: 'update',
        request: ctx,
        current: this.state(reloaded),
        original: this.state(record),
      };
      return { result: this.view(reloaded), events: [...events, event] };
    });
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const record = await this.lockedRecord(tx, ctx, id);
      const current = this.view(record);
      deps.authz.enforceDelete(ctx, this.spec, current);
      checkRevision(record.row.revision_number, precondition);
      const attached = await routerPortIds(tx, id, [ROUTER_INTERFACE_OWNER]);
      if (attached.length) {
        throw RouterInUse({ router_id: id, reason: `has ports still attached: ${attached.join(', ')}` });
      }
      // Removing the gateway refuses while floating IPs still go through the router.
      const events = await this.gateways.apply(tx, ctx, record, null);
      await deleteRowWithTags(tx, 'routers', id);
      const state = this.state(record);
      const event: ResourceContext = { resource: 'router', operation: 'delete', request: ctx, current: state };
      return { result: undefined, events: [...events, event] };
    });
  }

  /** Runs a member action on a router the caller may see: 404 if not, 403 when the action's rule refuses. */
  private async action<T>(
    ctx: RequestContext,
    id: string,
    name: string,
    fn: (tx: Tx, record: RouterRecord) => Promise<{ result: T; events: Events }>,
  ): Promise<T> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const record = await this.lockedRecord(tx, ctx, id);
      deps.authz.enforceRule(ctx, name, this.view(record));
      const { result, events } = await fn(tx, record);
      await this.bump(tx, record);
      const current = this.state(await this.reload(tx, id));
      const event: ResourceContext = { resource: 'router', operation: 'update', request: ctx, current };
      return { result, events: [...events, event] };
    });
  }

  addInterface(ctx: RequestContext, id: string, body: Body): Promise<RouterInterfaceInfo> {
    return this.action(ctx, id, 'add_router_interface', async (tx, record) => {
      const { info, events } = await this.interfaces.add(tx, ctx, record, body);
      return { result: info, events };
    });
  }

  removeInterface(ctx: RequestContext, id: string, body: Body): Promise<RouterInterfaceInfo> {
    return this.action(ctx, id, 'remove_router_interface', async (tx, record) => {
      const { info, events } = await this.interfaces.remove(tx, ctx, record, body);
      return { result: info, events };
    });
  }

  /** `add_extraroutes` / `remove_extraroutes`: `{"router": {"routes": [...]}}` merged or removed atomically. */
  async changeRoutes(ctx: RequestContext, id: string, body: unknown, add: boolean): Promise<View> {
    const change = parseRoutesBody(body);
    await this.action(ctx, id, add ? 'add_extraroutes' : 'remove_extraroutes', async (tx, record) => {
      const routes = add ? addRoutes(record.routes, change) : removeRoutes(record.routes, change);
      await this.checkRoutes(tx, record, routes);
      await replaceRoutes(tx, id, routes);
      return { result: undefined, events: [] };
    });
    return this.show(ctx, id);
  }

  /** `_update_extra_routes`: reachable nexthops, and no more than the `router_route` quota. */
  private async checkRoutes(tx: Tx, record: RouterRecord, routes: readonly RouterRoute[]): Promise<void> {
    validateRoutes(routes, await this.reach(tx, record.row.id));
    await this.deps.quotas.limitCheck(tx, record.row.project_id, 'router_route', routes.length);
  }

  /** The router's subnets and addresses now (within `tx`): interfaces, and every subnet of the gateway's network. */
  private async reach(tx: Tx, routerId: string): Promise<RouterReach> {
    const cidrs: string[] = [];
    const addresses: string[] = [];
    const ids = await routerPortIds(tx, routerId, [ROUTER_INTERFACE_OWNER, ROUTER_GATEWAY_OWNER]);
    for (const port of await this.ports.statesWithin(tx, ids)) {
      for (const ip of port.fixed_ips) {
        const subnet = await getSubnetRow(tx, ip.subnet_id);
        if (subnet) cidrs.push(subnet.cidr);
        addresses.push(ip.ip_address);
      }
      if (port.device_owner === ROUTER_GATEWAY_OWNER) {
        for (const s of await subnetsOfNetwork(tx, port.network_id)) cidrs.push(s.cidr);
      }
    }
    return { cidrs, addresses };
  }

  /** `prevent_l3_port_deletion`: a router's ports go through the router API while the router exists. */
  private async guardPortDelete(tx: Tx, port: PortState): Promise<void> {
    const owner = port.device_owner;
    if (owner !== ROUTER_INTERFACE_OWNER && owner !== ROUTER_GATEWAY_OWNER) return;
    if (!(await routerExists(tx, port.device_id))) return;
    throw ServicePortInUse({ port_id: port.id, reason: `has device owner ${owner}` });
  }
}

function dedupe(routes: readonly RouterRoute[]): RouterRoute[] {
  return addRoutes([], routes);
}

/**
 * The body of the extraroute actions: `{"router": {"routes": [...]}}`. Neutron trusts it (and
 * answers 500 when it is malformed); octonet validates it as the `routes` attribute.
 */
function parseRoutesBody(body: unknown): RouterRoute[] {
  const router = isPlainObject(body) ? body.router : undefined;
  if (!isPlainObject(router) || !('routes' in router)) {
    throw BadRequest({ resource: 'router', msg: 'The body must be {"router": {"routes": [...]}}' });
  }
  const routes = router.routes ?? [];
  const msg = validateHostroutes(routes);
  if (msg) throw InvalidInput({ error_message: msg });
  return (routes as RouterRoute[]).map((r) => ({ destination: r.destination, nexthop: r.nexthop }));
}

/**
 * Floating IPs (`/v2.0/floatingips`; `neutron/db/l3_db.py`): an address of an external network,
 * held by a `network:floatingip` port that belongs to no project, optionally associated with a
 * fixed IPv4 address of an internal port. The router that carries the association is computed
 * (`association.ts`); the status is the data plane's to report (ACTIVE once the NAT is in).
 *
 * A port's deletion disassociates its floating IPs; an external network's deletion deletes the
 * floating IPs nobody uses; the floating IP's own port cannot be deleted directly.
 */
import { floatingIpCreate, floatingIpUpdate } from './body.js';
import { floatingIpState } from '../driver-states.js';
import type { PortState } from '../../drivers/host.js';
import { randomUUID } from 'node:crypto';
import type { ResourceContext } from '../../drivers/contract.js';
import type { FloatingIpState } from '../../drivers/host.js';
import type { Db, Tx } from '../../store/database.js';
import {
  FLOATINGIP_OWNER,
  disassociatedOnNetwork,
  floatingIpsWhere,
  getFloatingIpRow,
  listFloatingIpRecords,
  loadFloatingIpRecords,
  lockFloatingIpRow,
  type FloatingIpRecord,
  floatingIpVisibility,
} from '../../store/floatingips.js';
import { TRUE } from '../../store/list.js';
import { isExternal } from '../../store/networks.js';
import { deleteRowWithTags, insertRow, type RowPatch, updateRow } from '../../store/rows.js';
import { toBool, type FloatingIpTable, type PortTable } from '../../store/schema.js';
import { subnetsOfNetwork } from '../../store/subnets.js';
import { addTags } from '../../store/tags.js';
import { adminContext, type RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import { BadRequest, ExternalIpAddressExhausted, FloatingIPNotFound, ServicePortInUse } from '../errors.js';
import { parseIp } from '../ip.js';
import type { ListQuery } from '../list-query.js';
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
import { resolveAssociation, type Association } from './association.js';
import { createFloatingIpSpec } from './attributes.js';

type Events = ResourceContext[];

const updated = (request: RequestContext, current: View, original: View): ResourceContext => ({
  resource: 'floatingip',
  operation: 'update',
  request,
  current: floatingIpState(current),
  original: floatingIpState(original),
});

/** The internal port's summary a floating IP shows (`fip-port-details`). */
type PortDetails = Pick<
  PortTable,
  'name' | 'network_id' | 'mac_address' | 'admin_state_up' | 'status' | 'device_id' | 'device_owner'
>;

export class FloatingIpService implements ResourceService {
  readonly spec;

  constructor(
    private readonly deps: CoreDeps,
    private readonly networks: NetworkService,
    private readonly ports: PortService,
  ) {
    this.spec = createFloatingIpSpec(deps.config.network.dns_domain);
    ports.deleteHooks.push({
      guard: (tx, port) => this.guardPortDelete(tx, port),
      release: (tx, port) => this.disassociatePort(tx, port.id),
    });
    networks.deleteHooks.push((tx, networkId) => this.deleteUnusedOnNetwork(tx, networkId));
  }

  notFound(id: string | null): Error {
    return FloatingIPNotFound({ floatingip_id: id });
  }

  view(record: FloatingIpRecord, details: PortDetails | undefined): View {
    const { row } = record;
    return {
      id: row.id,
      tenant_id: row.project_id,
      floating_ip_address: row.floating_ip_address,
      floating_network_id: row.floating_network_id,
      router_id: row.router_id,
      port_id: row.fixed_port_id,
      fixed_ip_address: row.fixed_ip_address,
      status: row.status,
      project_id: row.project_id,
      description: row.description,
      port_details: details
        ? {
            name: details.name,
            network_id: details.network_id,
            mac_address: details.mac_address,
            admin_state_up: toBool(details.admin_state_up),
            status: details.status,
            device_id: details.device_id,
            device_owner: details.device_owner,
          }
        : null,
      dns_domain: row.dns_domain,
      dns_name: row.dns_name,
      tags: record.tags,
      created_at: row.created_at,
      updated_at: row.updated_at,
      revision_number: row.revision_number,
    };
  }

  /** Views of records, with the port details of their associated ports read in one query. */
  private async views(db: Db, records: readonly FloatingIpRecord[]): Promise<View[]> {
    const ids = [...new Set(records.map((r) => r.row.fixed_port_id).filter((id): id is string => !!id))];
    const details = new Map<string, PortDetails>();
    if (ids.length) {
      const rows = await db
        .selectFrom('ports')
        .select(['id', 'name', 'network_id', 'mac_address', 'admin_state_up', 'status', 'device_id', 'device_owner'])
        .where('id', 'in', ids)
        .execute();
      for (const row of rows) details.set(row.id, row);
    }
    return records.map((r) => this.view(r, r.row.fixed_port_id ? details.get(r.row.fixed_port_id) : undefined));
  }

  private async viewOf(db: Db, row: FloatingIpTable): Promise<View> {
    return (await this.views(db, await loadFloatingIpRecords(db, [row])))[0]!;
  }

  /** The view as the row now is (after a write in `db`). */
  private async reread(db: Db, id: string): Promise<View> {
    return this.viewOf(db, (await getFloatingIpRow(db, id))!);
  }

  private canSee(ctx: RequestContext, view: View): boolean {
    if (!ctx.isAdmin && view.project_id !== ctx.projectId) return false;
    return this.deps.authz.canRead(ctx, 'floatingip', view);
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const scope = ctx.isAdmin ? TRUE : floatingIpVisibility(ctx.projectId);
    const { records, markerFound } = await listFloatingIpRecords(
      { store: this.deps.store, projectId: ctx.projectId },
      query,
      scope,
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    return (await this.views(this.deps.store.db, records)).filter((v) => this.canSee(ctx, v));
  }

  private async getVisible(db: Db, ctx: RequestContext, id: string): Promise<{ row: FloatingIpTable; view: View }> {
    const row = await getFloatingIpRow(db, id);
    const view = row ? await this.viewOf(db, row) : undefined;
    if (!row || !view || !this.canSee(ctx, view)) throw this.notFound(id);
    return { row, view };
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return (await this.getVisible(this.deps.store.db, ctx, id)).view;
  }

  /** Every floating IP through a router, as drivers read them. */
  async statesOfRouter(routerId: string): Promise<FloatingIpState[]> {
    const db = this.deps.store.db;
    const records = await loadFloatingIpRecords(db, await floatingIpsWhere(db, { router_id: routerId }));
    return (await this.views(db, records)).map(floatingIpState);
  }

  async states(): Promise<FloatingIpState[]> {
    const ctx = adminContext('driver-read');
    return (await this.list(ctx, { filters: {}, sorts: [], pageReverse: false })).map(floatingIpState);
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      for (const [project, count] of countByProject(items)) {
        await deps.quotas.enforce(tx, project, { floatingip: count });
      }
      for (const item of items) deps.authz.enforceCreate(ctx, this.spec, item);
      const views: View[] = [];
      const events: Events = [];
      for (const item of items) {
        const { view, portEvent } = await this.createOne(tx, ctx, item);
        views.push(view);
        const event: ResourceContext = {
          resource: 'floatingip',
          operation: 'create',
          request: ctx,
          current: floatingIpState(view),
        };
        events.push(portEvent, event);
      }
      return { result: views, events };
    });
  }

  private async createOne(
    tx: Tx,
    ctx: RequestContext,
    item: Body,
  ): Promise<{ view: View; portEvent: ResourceContext }> {
    const body = floatingIpCreate(item);
    const networkId = body.floating_network_id;
    const network = await this.networks.getVisible(tx, ctx, networkId);
    if (!isExternal(network)) {
      throw BadRequest({ resource: 'floatingip', msg: `Network ${networkId} is not a valid external network` });
    }
    if (!(await subnetsOfNetwork(tx, networkId)).some((s) => s.ip_version === 4)) {
      throw BadRequest({ resource: 'floatingip', msg: `Network ${networkId} does not contain any IPv4 subnet` });
    }
    const id = randomUUID();
    const fixed: Record<string, unknown> = {};
    if (body.subnet_id) fixed.subnet_id = body.subnet_id;
    if (body.floating_ip_address) fixed.ip_address = body.floating_ip_address;
    const { port, event: portEvent } = await this.ports.createWithin(tx, {
      // The address's port is never shown to the project (Neutron leaves its project empty).
      project_id: '',
      network_id: networkId,
      admin_state_up: true,
      device_id: id,
      device_owner: FLOATINGIP_OWNER,
      name: '',
      ...(Object.keys(fixed).length ? { fixed_ips: [fixed] } : {}),
    });
    await updateRow(this.deps.store, tx, 'ports', port.id, { status: 'N/A' });
    const address = port.fixed_ips.find((f) => parseIp(f.ip_address)?.version === 4);
    if (!address) throw ExternalIpAddressExhausted({ net_id: networkId });
    const now = timestamp();
    const row: FloatingIpTable = {
      id,
      project_id: body.project_id,
      floating_network_id: networkId,
      floating_port_id: port.id,
      floating_ip_address: address.ip_address,
      fixed_port_id: null,
      fixed_ip_address: null,
      router_id: null,
      status: 'DOWN',
      dns_name: body.dns_name,
      dns_domain: body.dns_domain,
      description: body.description,
      revision_number: 0,
      created_at: now,
      updated_at: now,
    };
    const association = await resolveAssociation(tx, ctx, this.ports, row, body, true);
    if (association) Object.assign(row, associationColumns(association));
    await insertRow(this.deps.store, tx, 'floatingips', row);
    await addTags(tx, 'floatingip', id, body.tags ?? []);
    return { view: await this.viewOf(tx, row), portEvent };
  }

  async update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      await lockFloatingIpRow(deps.store, tx, id);
      const { row, view: original } = await this.getVisible(tx, ctx, id);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(original, body), body);
      checkRevision(row.revision_number, precondition);
      const patch: RowPatch<'floatingips'> = {};
      const change = floatingIpUpdate(body);
      if (change.description !== undefined) patch.description = change.description;
      const association = await resolveAssociation(tx, ctx, this.ports, row, change, false);
      if (association !== undefined) Object.assign(patch, associationColumns(association));
      await updateRow(deps.store, tx, 'floatingips', id, {
        ...patch,
        revision_number: row.revision_number + 1,
        updated_at: timestamp(),
      });
      const current = await this.reread(tx, id);
      return { result: current, events: [updated(ctx, current, original)] };
    });
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      await lockFloatingIpRow(deps.store, tx, id);
      const { row, view } = await this.getVisible(tx, ctx, id);
      deps.authz.enforceDelete(ctx, this.spec, view);
      checkRevision(row.revision_number, precondition);
      return { result: undefined, events: await this.deleteIn(tx, ctx, row, view) };
    });
  }

  private async deleteIn(tx: Tx, ctx: RequestContext, row: FloatingIpTable, current: View): Promise<Events> {
    await deleteRowWithTags(tx, 'floatingips', row.id);
    const state = floatingIpState(current);
    const event: ResourceContext = { resource: 'floatingip', operation: 'delete', request: ctx, current: state };
    return [event, ...(await this.ports.deleteWithin(tx, row.floating_port_id))];
  }

  /** The data plane's word on a floating IP (`update_floatingip_status`): a new revision, no event. */
  async reportStatus(id: string, status: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const row = await lockFloatingIpRow(this.deps.store, tx, id);
      if (!row || row.status === status) return;
      await updateRow(this.deps.store, tx, 'floatingips', id, {
        status,
        revision_number: row.revision_number + 1,
        updated_at: timestamp(),
      });
    });
  }

  /** `disassociate_floatingips`: the port is going; its floating IPs stay, unassociated. */
  private async disassociatePort(tx: Tx, portId: string): Promise<Events> {
    const ctx = adminContext('port-delete');
    const events: Events = [];
    for (const row of await floatingIpsWhere(tx, { fixed_port_id: portId })) {
      const original = await this.viewOf(tx, row);
      await updateRow(this.deps.store, tx, 'floatingips', row.id, {
        fixed_port_id: null,
        fixed_ip_address: null,
        router_id: null,
        revision_number: row.revision_number + 1,
        updated_at: timestamp(),
      });
      events.push(updated(ctx, await this.reread(tx, row.id), original));
    }
    return events;
  }

  /** `delete_disassociated_floatingips`: an external network takes its unused floating IPs with it. */
  private async deleteUnusedOnNetwork(tx: Tx, networkId: string): Promise<Events> {
    const ctx = adminContext('network-delete');
    const events: Events = [];
    for (const row of await disassociatedOnNetwork(tx, networkId)) {
      events.push(...(await this.deleteIn(tx, ctx, row, await this.viewOf(tx, row))));
    }
    return events;
  }

  /** `prevent_l3_port_deletion`: a floating IP's port goes with the floating IP. */
  private async guardPortDelete(tx: Tx, port: PortState): Promise<void> {
    if (port.device_owner !== FLOATINGIP_OWNER) return;
    if (!(await getFloatingIpRow(tx, port.device_id))) return;
    throw ServicePortInUse({ port_id: port.id, reason: `has device owner ${FLOATINGIP_OWNER}` });
  }
}

function associationColumns(a: Association): Pick<FloatingIpTable, 'fixed_port_id' | 'fixed_ip_address' | 'router_id'> {
  return { fixed_port_id: a.portId, fixed_ip_address: a.fixedIp, router_id: a.routerId };
}

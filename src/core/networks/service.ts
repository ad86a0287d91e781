/**
 * Networks: create (with segment reservation, MTU, sharing, external flag), show and list with
 * Neutron's visibility, update (including VLAN re-numbering), delete (with its ports' check).
 *
 * Every write is one transaction; drivers see `{current, original}` after it commits.
 */
import { networkCreate, networkUpdate, type NetworkUpdate } from './body.js';
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../context.js';
import type { CoreDeps } from '../deps.js';
import { bulkCreate, writeTransaction } from '../deps.js';
import {
  DefaultExternalNetworkExists,
  AvailabilityZoneNotFound,
  ExternalNetworkInUse,
  InvalidInput,
  InvalidSharedSetting,
  NetworkInUse,
  NetworkNotFound,
} from '../errors.js';
import type { ListQuery } from '../list-query.js';
import { policyTarget, type Body, type Precondition, type ResourceService, type View } from '../resource.js';
import { timestamp } from '../standard-attributes.js';
import { checkRevision } from '../revisions.js';
import { ensureDefaultSecurityGroup } from '../security-groups/default-group.js';
import type { ResourceContext } from '../../drivers/contract.js';
import { networkState } from '../driver-states.js';
import type { Db, Tx } from '../../store/database.js';
import {
  ACCESS_AS_SHARED,
  deleteWildcardRbac,
  projectsUsingSharedNetwork,
  getNetworkAccess,
  getNetworkRecord,
  insertRbac,
  insertSegment,
  isSharedWith,
  listNetworkRecords,
  loadNetworkRecords,
  lockNetworkRow,
  networkVisibility,
  otherDefaultExternal,
  setDefaultExternal,
  setExternal,
  updateSegmentationId,
  type NetworkAccess,
  type NetworkRecord,
} from '../../store/networks.js';
import { TRUE } from '../../store/list.js';
import { toBool } from '../../store/schema.js';
import { deleteNetworkContents, portsBlockingNetworkDelete, hasRouterGatewayPorts } from '../../store/ports.js';
import { subnetsOfNetwork } from '../../store/subnets.js';
import { checkNetworkMtuForSubnet } from '../subnets/validation.js';
import { NETWORK_SPEC } from './attributes.js';
import type { QosBindings } from '../qos/bindings.js';
import {
  allocateTenantSegment,
  maxMtu,
  requestedSegment,
  reserveProviderSegment,
  storedKey,
  type Segment,
} from './segments.js';
import {
  decodeStringList,
  deleteRowWithTags,
  insertRow,
  type RowPatch,
  type RowValues,
  updateRow,
} from '../../store/rows.js';

/** Ports deleted together with their network rather than blocking its deletion. */
export const AUTO_DELETE_PORT_OWNERS = ['network:dhcp', 'network:distributed', 'network:floatingip_agent_gateway'];

export function segmentOf(record: NetworkRecord): Segment {
  const s = record.segments[0];
  if (!s) return { network_type: 'geneve', physical_network: null, segmentation_id: null };
  return {
    network_type: s.network_type as Segment['network_type'],
    physical_network: s.physical_network || null,
    segmentation_id: s.network_type === 'flat' ? null : s.segmentation_id,
  };
}

/** Admins and services see every network; others their own and those shared with them. */
export function canSeeNetwork(ctx: RequestContext, record: NetworkAccess): boolean {
  if (ctx.isAdmin || ctx.isService) return true;
  if (record.row.project_id === ctx.projectId) return true;
  return record.rbac.some((r) => r.target_project === '*' || r.target_project === ctx.projectId);
}

export class NetworkService implements ResourceService {
  readonly spec = NETWORK_SPEC;
  /**
   * Run inside a network's deletion before the in-use check, by services whose resources go with
   * the network (an external network's unused floating IPs); they return the events of what they deleted.
   */
  readonly deleteHooks: ((tx: Tx, networkId: string) => Promise<ResourceContext[]>)[] = [];

  constructor(
    private readonly deps: CoreDeps,
    private readonly qos: QosBindings,
  ) {}

  notFound(id: string | null): Error {
    return NetworkNotFound({ net_id: id });
  }

  view(record: NetworkRecord, ctx: RequestContext): View {
    const { row } = record;
    const segment = segmentOf(record);
    return {
      id: row.id,
      name: row.name,
      tenant_id: row.project_id,
      admin_state_up: toBool(row.admin_state_up),
      mtu: row.mtu,
      status: row.status,
      subnets: record.subnetIds,
      shared: isSharedWith(record, ctx.projectId),
      availability_zone_hints: decodeStringList(row.availability_zone_hints),
      availability_zones: [],
      ipv4_address_scope: record.addressScopes[4],
      ipv6_address_scope: record.addressScopes[6],
      'router:external': record.external,
      // As Neutron's auto-allocate extender: external networks only.
      ...(record.isDefault === null ? {} : { is_default: record.isDefault }),
      description: row.description,
      port_security_enabled: toBool(row.port_security_enabled),
      qos_policy_id: record.qosPolicyId,
      dns_domain: row.dns_domain,
      tags: record.tags,
      created_at: row.created_at,
      updated_at: row.updated_at,
      revision_number: row.revision_number,
      project_id: row.project_id,
      'provider:network_type': segment.network_type,
      'provider:physical_network': segment.physical_network,
      'provider:segmentation_id': segment.segmentation_id,
    };
  }

  /** A network the caller may see, or NetworkNotFound. For subnets and ports to build on. */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<NetworkAccess> {
    const record = await getNetworkAccess(db, id);
    if (!record || !canSeeNetwork(ctx, record)) throw this.notFound(id);
    return record;
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const scope = ctx.isAdmin || ctx.isService ? TRUE : networkVisibility(ctx.projectId);
    const { records, markerFound } = await listNetworkRecords(
      { store: this.deps.store, projectId: ctx.projectId },
      query,
      scope,
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    return records.map((r) => this.view(r, ctx)).filter((v) => this.deps.authz.canRead(ctx, 'network', v));
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    const record = await getNetworkRecord(this.deps.store.db, id);
    if (!record || !canSeeNetwork(ctx, record)) throw this.notFound(id);
    const view = this.view(record, ctx);
    if (!this.deps.authz.canRead(ctx, 'network', view)) throw this.notFound(id);
    return view;
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    return bulkCreate(this.deps, 'network', items, {
      authorize: async (_tx, item) => this.deps.authz.enforceCreate(ctx, this.spec, item),
      create: (tx, item) => this.createOne(tx, ctx, item),
    });
  }

  private async createOne(tx: Tx, ctx: RequestContext, item: Body): Promise<{ view: View; event: ResourceContext }> {
    const { deps } = this;
    const body = networkCreate(item);
    const projectId = body.project_id;
    await ensureDefaultSecurityGroup(deps.store, deps.quotas, tx, projectId);
    const requested = requestedSegment(deps.segments, body);
    const segment = requested
      ? await reserveProviderSegment(tx, deps.segments, requested)
      : await allocateTenantSegment(tx, deps.segments);
    const mtu = validMtu(body.mtu, maxMtu(deps.segments, segment));
    for (const zone of body.availability_zone_hints) {
      // Zones are the gateway chassis' zones, which come with the OVN driver; none exist yet.
      throw AvailabilityZoneNotFound({ availability_zone: zone });
    }
    const now = timestamp();
    const values: RowValues<'networks'> = {
      id: randomUUID(),
      project_id: projectId,
      name: body.name,
      admin_state_up: body.admin_state_up,
      status: 'ACTIVE',
      mtu,
      port_security_enabled: body.port_security_enabled,
      dns_domain: body.dns_domain,
      availability_zone_hints: body.availability_zone_hints,
      description: body.description,
      // Neutron's first revision is 1: its segment write bumps the new network once.
      revision_number: 1,
      created_at: now,
      updated_at: now,
    };
    const row = await insertRow(deps.store, tx, 'networks', values);
    const key = storedKey(segment);
    await insertSegment(tx, {
      id: randomUUID(),
      network_id: row.id,
      network_type: key.type,
      physical_network: key.physnet,
      segmentation_id: key.id,
      segment_index: 0,
    });
    if (body.shared) {
      await insertRbac(tx, {
        id: randomUUID(),
        project_id: projectId,
        object_id: row.id,
        target_project: '*',
        action: ACCESS_AS_SHARED,
      });
    }
    if (body['router:external']) await setExternal(deps.store, tx, row.id, true, projectId, randomUUID());
    if (body.is_default !== undefined) await this.updateDefault(tx, row.id, body.is_default);
    await this.qos.attachNew(tx, ctx, 'network', row.id, body.qos_policy_id, projectId);
    const [record] = await loadNetworkRecords(tx, [row]);
    // Zed's create answer carries `is_default` for every network (the auto-allocate callback sets it
    // from the request); show and list carry it for external networks only.
    const view = { is_default: body.is_default ?? false, ...this.view(record!, ctx) };
    const current = networkState(view, record!.segments);
    return { view, event: { resource: 'network', operation: 'create', request: ctx, current } };
  }

  /**
   * `is_default` as Neutron's auto-allocate callback keeps it: one default external network at a
   * time (409 naming the other), recorded on the network's external row when it has one.
   */
  private async updateDefault(tx: Tx, id: string, isDefault: boolean): Promise<void> {
    if (isDefault) {
      // Two concurrent requests each making a different network the default would both find none.
      await this.deps.store.lockKey(tx, 'default-external-network');
      const other = await otherDefaultExternal(this.deps.store, tx, id);
      if (other !== undefined) throw DefaultExternalNetworkExists({ net_id: other });
    }
    await setDefaultExternal(this.deps.store, tx, id, isDefault);
  }

  async update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const row = await lockNetworkRow(deps.store, tx, id);
      const [record] = row ? await loadNetworkRecords(tx, [row]) : [];
      if (!record || !canSeeNetwork(ctx, record)) throw this.notFound(id);
      const original = this.view(record, ctx);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(original, body), body);
      if (Object.keys(body).length === 0) return { result: original, events: [] };
      checkRevision(record.row.revision_number, precondition);

      const change = networkUpdate(body);
      const patch: RowPatch<'networks'> = {};
      for (const key of ['name', 'description', 'dns_domain'] as const) {
        const value = change[key];
        if (value !== undefined) patch[key] = value;
      }
      for (const key of ['admin_state_up', 'port_security_enabled'] as const) {
        if (key in body) patch[key] = body[key] as boolean;
      }
      await this.updateProvider(tx, record, change);
      if (change.mtu !== undefined) {
        const mtu = change.mtu;
        if (mtu) {
          for (const subnet of await subnetsOfNetwork(tx, id)) checkNetworkMtuForSubnet(id, mtu, subnet.ip_version);
        }
        patch.mtu = validMtu(mtu, maxMtu(deps.segments, segmentOf(await this.reload(tx, id))));
      }
      if (change.shared !== undefined) await this.updateShared(tx, record, change.shared);
      if (change.qos_policy_id !== undefined) await this.qos.change(tx, ctx, 'network', id, change.qos_policy_id);
      const external = change['router:external'];
      if (external !== undefined && external !== record.external) {
        if (!external && (await hasRouterGatewayPorts(tx, id))) throw ExternalNetworkInUse({ net_id: id });
        await setExternal(deps.store, tx, id, external, record.row.project_id, randomUUID());
      }
      if (change.is_default !== undefined) await this.updateDefault(tx, id, change.is_default);
      patch.revision_number = record.row.revision_number + 1;
      patch.updated_at = timestamp();
      await updateRow(deps.store, tx, 'networks', id, patch);
      const reloaded = await this.reload(tx, id);
      // As Zed, an update that names `is_default` answers with it, external network or not.
      const shown = this.view(reloaded, ctx);
      const current = change.is_default === undefined ? shown : { is_default: change.is_default, ...shown };
      const event: ResourceContext = {
        resource: 'network',
        operation: 'update',
        request: ctx,
        current: networkState(current, reloaded.segments),
        original: networkState(original, record.segments),
      };
      return { result: current, events: [event] };
    });
  }

  private async reload(tx: Tx, id: string): Promise<NetworkRecord> {
    return (await getNetworkRecord(tx, id))!;
  }

  /** Only a VLAN's segmentation id may change; network type and physnet are fixed. */
  private async updateProvider(tx: Tx, record: NetworkRecord, body: NetworkUpdate): Promise<void> {
    const current = segmentOf(record);
    for (const attr of ['provider:network_type', 'provider:physical_network'] as const) {
      const wanted = body[attr];
      const have = attr === 'provider:network_type' ? current.network_type : current.physical_network;
      if (wanted !== undefined && wanted !== null && wanted !== have) {
        throw InvalidInput({
          error_message:
            'Plugin does not support updating the following provider network attributes: provider:network_type, provider:physical_network',
        });
      }
    }
    const segmentationId = body['provider:segmentation_id'];
    if (!segmentationId || segmentationId === current.segmentation_id) return;
    if (current.network_type !== 'vlan')
      throw InvalidInput({ error_message: 'Only VLAN type networks can be updated.' });
    const wanted = requestedSegment(this.deps.segments, {
      'provider:network_type': 'vlan',
      'provider:physical_network': current.physical_network,
      'provider:segmentation_id': segmentationId,
    });
    await reserveProviderSegment(tx, this.deps.segments, wanted!);
    await updateSegmentationId(tx, record.segments[0]!.id, segmentationId);
  }

  /** Unsharing is refused while other projects have ports on the network. */
  private async updateShared(tx: Tx, record: NetworkRecord, shared: boolean): Promise<void> {
    const isShared = record.rbac.some((r) => r.action === ACCESS_AS_SHARED && r.target_project === '*');
    if (shared === isShared) return;
    if (shared) {
      await insertRbac(tx, {
        id: randomUUID(),
        project_id: record.row.project_id,
        object_id: record.row.id,
        target_project: '*',
        action: ACCESS_AS_SHARED,
      });
      return;
    }
    if ((await projectsUsingSharedNetwork(tx, record.row.id, record.row.project_id)).length > 0) {
      throw InvalidSharedSetting({ network: record.row.name });
    }
    await deleteWildcardRbac(tx, record.row.id, ACCESS_AS_SHARED);
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const row = await lockNetworkRow(deps.store, tx, id);
      const [record] = row ? await loadNetworkRecords(tx, [row]) : [];
      if (!record || !canSeeNetwork(ctx, record)) throw this.notFound(id);
      const current = this.view(record, ctx);
      deps.authz.enforceDelete(ctx, this.spec, current);
      checkRevision(record.row.revision_number, precondition);
      const events: ResourceContext[] = [];
      for (const hook of this.deleteHooks) events.push(...(await hook(tx, id)));
      const blocking = await portsBlockingNetworkDelete(tx, id, AUTO_DELETE_PORT_OWNERS);
      if (blocking.length) {
        throw NetworkInUse({
          net_id: id,
          reason: `There are one or more ports still in use on the network, id for these ports is: ${blocking.join(',')}`,
        });
      }
      await deleteNetworkContents(tx, id);
      await deleteRowWithTags(tx, 'networks', id);
      const state = networkState(current, record.segments);
      const event: ResourceContext = { resource: 'network', operation: 'delete', request: ctx, current: state };
      return { result: undefined, events: [...events, event] };
    });
  }
}

/** The requested MTU if it fits the segment; 0 (unset) means the largest that fits. */
function validMtu(requested: number, max: number): number {
  if (requested && max && requested > max) {
    throw InvalidInput({ error_message: `Requested MTU is too big, maximum is ${max}` });
  }
  return requested || max;
}

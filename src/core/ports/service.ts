/**
 * Ports: create (MAC, fixed IPs, port security, security groups, address pairs, DHCP options,
 * binding attributes, DNS), show and list (own ports and ports on own networks), update (fixed
 * IP changes, MAC changes with EUI-64 recomputation, port-security rules), delete.
 *
 * A port is created DOWN and `unbound`: binding and status belong to the mechanism drivers.
 */
import { portCreate, portUpdate, type PortCreate, type PortUpdate } from './body.js';
import { portState } from '../driver-states.js';
import type { PortState } from '../../drivers/host.js';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { prepareResource, type ResourceSpec } from '../attributes.js';
import type { ResourceContext } from '../../drivers/contract.js';
import type { PolicyTarget } from '../authorizer.js';
import { adminContext, type RequestContext } from '../context.js';
import { bulkCreate, writeTransaction, type CoreDeps } from '../deps.js';
import { dnsAssignment, portDnsNamesEnabled } from '../dns.js';
import { MacAddressInUse, PortBound, PortNotFound } from '../errors.js';
import { isAutoAddressSubnet, toIpamSubnet, type IpamSubnet } from '../ipam.js';
import { EMPTY_LIST_QUERY, type ListQuery } from '../list-query.js';
import {
  policyTarget,
  stringField,
  type Body,
  type Precondition,
  type ResourceService,
  type View,
} from '../resource.js';
import { checkRevision } from '../revisions.js';
import { timestamp } from '../standard-attributes.js';
import type { NetworkService } from '../networks/service.js';
import type { Db, Tx } from '../../store/database.js';
import { TRUE } from '../../store/list.js';
import { getNetworkAccessOfPort, networkAccessByView, isSharedWith, type NetworkAccess } from '../../store/networks.js';
import {
  addressTaken,
  deletePortAllocations,
  getPortRecord,
  insertAllocations,
  insertPortChildren,
  listPortRecords,
  lockPortRow,
  orderPortChildren,
  macInUse,
  portVisibility,
  replaceAddressPairs,
  replaceExtraDhcpOpts,
  replacePortSecurityGroups,
  type PortRecord,
} from '../../store/ports.js';
import { toBool, type PortTable } from '../../store/schema.js';
import {
  allocatedOnSubnet,
  countAllocatedOnSubnet,
  getSubnetRow,
  subnetsOfNetwork,
  takenAddresses,
} from '../../store/subnets.js';
import { createPortSpec } from './attributes.js';
import { mergeOptions, optionsForNewPort } from './extra-dhcp-opts.js';
import {
  allocateForNewPort,
  changeFixedIps,
  moveEui64Addresses,
  type AddressBook,
  type Allocation,
  type FixedIpRequest,
} from './fixed-ips.js';
import { generateUniqueMac, randomMac } from './mac.js';
import type { QosBindings } from '../qos/bindings.js';
import { boundQosPolicies } from '../../store/qos.js';
import type { ListedTexts, ViewText } from './view-cache.js';
import { CachedPortViews } from './cached-views.js';
import { securityForNewPort, securityForUpdate } from './security.js';
import { deleteRowWithTags, insertRow, storedRow, type RowPatch, type RowValues, updateRow } from '../../store/rows.js';

/** Ports of routers: ACTIVE once OVN reports them up, without a binding. */
const ROUTER_PORT_OWNERS = ['network:router_interface', 'network:router_gateway'];

/** Ports a page of `allStates` reads. */
const STATES_PAGE = 2_000;

/** Binding states in which a port's MAC may still change (nothing uses it yet). */
const UNBOUND_STATES = ['unbound', 'binding_failed'];

/** Most ports have empty binding dicts; skipping JSON.parse for them matters in long lists. */
function parseJsonObject(text: string): unknown {
  return text === '{}' ? {} : JSON.parse(text);
}

/**
 * What another service needs to say about the deletion of a port (Neutron's callbacks): the L3
 * services refuse the direct deletion of the ports they own and disassociate floating IPs.
 */
export interface PortDeleteHook {
  /** Refuses a deletion through the port API (`prevent_l3_port_deletion`); not run for internal deletes. */
  guard?(tx: Tx, port: PortState): Promise<void>;
  /** Lets go of the port inside the deleting transaction; returns the events of what it changed. */
  release?(tx: Tx, port: PortState): Promise<ResourceContext[]>;
}

/** A port update as drivers hear of it. */
const updated = (request: RequestContext, current: View, original: View): ResourceContext => ({
  resource: 'port',
  operation: 'update',
  request,
  current: portState(current),
  original: portState(original),
});

export class PortService implements ResourceService {
  readonly spec: ResourceSpec;
  /** Registered by the services that own or point at ports (routers, floating IPs). */
  readonly deleteHooks: PortDeleteHook[] = [];
  private readonly cachedViews: CachedPortViews;

  constructor(
    private readonly deps: CoreDeps,
    private readonly networks: NetworkService,
    private readonly qos: QosBindings,
  ) {
    this.spec = createPortSpec(deps.config.network);
    this.cachedViews = new CachedPortViews(
      deps.store,
      (record) => this.view(record),
      (id) => this.notFound(id),
      deps.config.port_view_cache,
    );
  }

  notFound(id: string | null): Error {
    return PortNotFound({ port_id: id });
  }

  view(record: PortRecord): View {
    const { row } = record;
    const addresses = record.fixedIps.map((f) => f.ip_address);
    return {
      id: row.id,
      name: row.name,
      network_id: row.network_id,
      tenant_id: row.project_id,
      mac_address: row.mac_address,
      admin_state_up: toBool(row.admin_state_up),
      status: row.status,
      device_id: row.device_id,
      device_owner: row.device_owner,
      fixed_ips: record.fixedIps.map((f) => ({ subnet_id: f.subnet_id, ip_address: f.ip_address })),
      allowed_address_pairs: record.addressPairs.map((p) => ({ mac_address: p.mac_address, ip_address: p.ip_address })),
      extra_dhcp_opts: record.extraDhcpOpts.map((o) => ({
        opt_name: o.opt_name,
        opt_value: o.opt_value,
        ip_version: o.ip_version,
      })),
      security_groups: record.securityGroups,
      description: row.description,
      'binding:vnic_type': row.binding_vnic_type,
      'binding:profile': parseJsonObject(row.binding_profile),
      'binding:host_id': row.binding_host_id,
      'binding:vif_type': row.binding_vif_type,
      'binding:vif_details': parseJsonObject(row.binding_vif_details),
      port_security_enabled: toBool(row.port_security_enabled),
      qos_policy_id: record.qos.policyId,
      qos_network_policy_id: record.qos.networkPolicyId,
      dns_name: row.dns_name,
      dns_assignment: dnsAssignment(addresses, row.dns_name, this.deps.config.network.dns_domain, row.dns_domain),
      dns_domain: row.dns_domain,
      ip_allocation: row.ip_allocation,
      tags: record.tags,
      created_at: row.created_at,
      updated_at: row.updated_at,
      revision_number: row.revision_number,
      project_id: row.project_id,
    };
  }

  private target(view: View, network: NetworkAccess | undefined, ctx: RequestContext): PolicyTarget {
    return {
      ...view,
      'network:project_id': network?.row.project_id,
      'network:shared': network ? isSharedWith(network, ctx.projectId) : false,
    };
  }

  private visible(ctx: RequestContext, row: PortTable, network: NetworkAccess | undefined): boolean {
    return (
      ctx.isAdmin || ctx.isService || row.project_id === ctx.projectId || network?.row.project_id === ctx.projectId
    );
  }

  private async visibleRecord(
    db: Db,
    ctx: RequestContext,
    id: string,
  ): Promise<{ record: PortRecord; network: NetworkAccess; view: View }> {
    // All four lookups side by side: one round trip on PostgreSQL's pool.
    const [record, network] = await Promise.all([getPortRecord(db, id), getNetworkAccessOfPort(db, id)]);
    if (!record || !network || !this.visible(ctx, record.row, network)) throw this.notFound(id);
    const view = this.view(record);
    if (!this.deps.authz.canRead(ctx, 'port', this.target(view, network, ctx))) throw this.notFound(id);
    return { record, network, view };
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const scope = ctx.isAdmin || ctx.isService ? TRUE : portVisibility(ctx.projectId);
    const { records, markerFound } = await listPortRecords(
      { store: this.deps.store, projectId: ctx.projectId },
      query,
      scope,
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    const views = records.map((r) => this.view(r));
    if (ctx.isAdmin || ctx.isService) return views;
    const networks = await networkAccessByView(this.deps.store.db, views);
    return views.filter((v) =>
      this.deps.authz.canRead(ctx, 'port', this.target(v, networks.get(stringField(v, 'network_id')), ctx)),
    );
  }

  /**
   * Every port's driver state (the full OVN pass's snapshot), read `pageSize` ports at a time in
   * id order: each page's rows, children and views are garbage before the next is read, and only
   * the states stay. Read as one list, the records, views and states of every port were alive at
   * once: at 100,000 ports a read took 5.4 s with 2.2 s of it GC, left ~390 MiB of garbage for
   * ~95 MiB of states, and the process 525 MiB RSS; paged, 2.9-3.5 s and 285 MiB. A page starts
   * after the last id read, so a port deleted meanwhile cannot break it (a `marker` that is gone would).
   */
  async allStates(pageSize = STATES_PAGE): Promise<PortState[]> {
    const env = { store: this.deps.store, projectId: null };
    const page = { ...EMPTY_LIST_QUERY, limit: pageSize };
    const states: PortState[] = [];
    let after: string | undefined;
    for (;;) {
      const scope = after === undefined ? TRUE : sql`ports.id > ${after}`;
      const { records } = await listPortRecords(env, page, scope);
      for (const record of records) states.push(portState(this.view(record)));
      if (records.length < pageSize) return states;
      after = records.at(-1)!.row.id;
    }
  }

  /**
   * An admin's or service's list as the JSON texts of whole views (cached-views.ts). Other
   * callers' lists depend on per-port visibility and policy: undefined sends them the ordinary way.
   */
  async listTexts(ctx: RequestContext, query: ListQuery): Promise<ListedTexts | undefined> {
    if (!ctx.isAdmin && !ctx.isService) return undefined;
    return this.cachedViews.list({ store: this.deps.store, projectId: ctx.projectId }, query);
  }

  /** An admin's or service's show as the whole view's JSON text (cached-views.ts); else undefined. */
  async showText(ctx: RequestContext, id: string): Promise<ViewText | undefined> {
    if (!ctx.isAdmin && !ctx.isService) return undefined;
    return this.cachedViews.show(id);
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return (await this.visibleRecord(this.deps.store.db, ctx, id)).view;
  }

  /** The port as the caller may see it (else PortNotFound), read inside `db` (a transaction). */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<PortState> {
    return portState((await this.visibleRecord(db, ctx, id)).view);
  }

  /** Ports by id as an admin sees them, read inside `db`; missing ones are left out. */
  async statesWithin(db: Db, ids: readonly string[]): Promise<PortState[]> {
    const records = await Promise.all(ids.map((id) => getPortRecord(db, id)));
    return records.filter((r): r is PortRecord => r !== undefined).map((r) => portState(this.view(r)));
  }

  /** IPAM's access to the database, inside the transaction. */
  private addressBook(tx: Tx, networkId: string): AddressBook {
    return {
      isTaken: (ip) => addressTaken(tx, networkId, ip),
      takenAmong: (ips) => takenAddresses(tx, networkId, ips),
      allocatedOnSubnet: (subnetId) => allocatedOnSubnet(tx, subnetId),
      countAllocated: (subnetId) => countAllocatedOnSubnet(tx, subnetId),
      networkOfSubnet: async (subnetId) => (await getSubnetRow(tx, subnetId))?.network_id,
    };
  }

  private async ipamSubnets(tx: Tx, networkId: string): Promise<IpamSubnet[]> {
    return (await subnetsOfNetwork(tx, networkId)).map(toIpamSubnet);
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const views = await bulkCreate(this.deps, 'port', items, {
      authorize: async (tx, item) => {
        const body = portCreate(item);
        const network = await this.networks.getVisible(tx, ctx, body.network_id);
        this.deps.authz.enforceCreate(ctx, this.spec, this.target(item, network, ctx));
        return { body, network };
      },
      create: (tx, item, { body, network }) => this.createOne(tx, ctx, item, body, network),
    });
    // Committed, and built from what was written (see createOne): the list or show that usually
    // follows a create finds the view cached instead of reading every new port whole.
    for (const view of views) this.cachedViews.keepView(view);
    return views;
  }

  /**
   * Creates ports octonet needs for itself (the OVN metadata port), as Neutron's plugin-internal
   * `create_port`: an admin context, no quota counted. `items` are full bodies (`prepareResource`).
   */
  async createInternal(items: Body[]): Promise<View[]> {
    const ctx = adminContext('internal');
    return bulkCreate(this.deps, null, items, {
      authorize: async (tx, item) => {
        const body = portCreate(item);
        return { body, network: await this.networks.getVisible(tx, ctx, body.network_id) };
      },
      create: (tx, item, { body, network }) => this.createOne(tx, ctx, item, body, network),
    });
  }

  /**
   * Creates a port octonet needs inside the caller's transaction (a router's interface or gateway,
   * a floating IP's address): admin, no quota, all or nothing with the caller's own rows.
   * `item` is an unprepared body; its defaults are filled here.
   */
  async createWithin(tx: Tx, item: Body): Promise<{ port: PortState; event: ResourceContext }> {
    const ctx = adminContext('internal');
    const prepared = prepareResource(ctx, this.spec, { ...item }, true);
    const body = portCreate(prepared);
    const network = await this.networks.getVisible(tx, ctx, body.network_id);
    return this.createOne(tx, ctx, prepared, body, network);
  }

  private async createOne(
    tx: Tx,
    ctx: RequestContext,
    item: Body,
    body: PortCreate,
    network: NetworkAccess,
  ): Promise<{ view: View; port: PortState; event: ResourceContext }> {
    const { deps } = this;
    const networkId = network.row.id;
    const projectId = body.project_id;
    const deviceOwner = body.device_owner;
    let mac = body.mac_address;
    if (mac === undefined || mac === null) {
      // One in 16 million collides; the unique index catches that and the transaction runs again
      // with a new MAC, so the common case costs no lookup.
      mac = randomMac(deps.config.network.base_mac);
    } else if (await macInUse(tx, networkId, mac)) {
      throw MacAddressInUse({ net_id: networkId, mac });
    }
    const requests = body.fixed_ips;
    const port = { networkId, deviceOwner, mac };
    const allocations = await allocateForNewPort(
      await this.ipamSubnets(tx, networkId),
      requests,
      port,
      this.addressBook(tx, networkId),
    );
    const security = await securityForNewPort(deps, tx, ctx, {
      projectId,
      deviceOwner,
      portSecurity: body.port_security_enabled ?? toBool(network.row.port_security_enabled),
      securityGroups: body.security_groups,
      addressPairs: body.allowed_address_pairs,
    });
    const namesEnabled = portDnsNamesEnabled(deps.config.network.dns_domain);
    const now = timestamp();
    const values: RowValues<'ports'> = {
      id: randomUUID(),
      project_id: projectId,
      network_id: networkId,
      name: body.name,
      mac_address: mac,
      admin_state_up: item.admin_state_up as boolean,
      status: 'DOWN',
      device_id: body.device_id,
      device_owner: deviceOwner,
      port_security_enabled: security.portSecurity,
      dns_name: namesEnabled ? body.dns_name : '',
      dns_domain: namesEnabled ? body.dns_domain : '',
      ip_allocation: requests !== undefined && requests.length === 0 ? 'none' : 'immediate',
      binding_host_id: body['binding:host_id'] ?? '',
      binding_vnic_type: body['binding:vnic_type'],
      binding_profile: body['binding:profile'] ?? {},
      // Set by the drivers below, once the port is known.
      binding_vif_type: 'unbound',
      binding_vif_details: {},
      description: body.description,
      // Neutron's first revision is 1: its binding write bumps the new port once.
      revision_number: 1,
      created_at: now,
      updated_at: now,
    };
    // Built in memory rather than read back: the view is what was written.
    const row = storedRow(deps.store, 'ports', values);
    const record = orderPortChildren({
      row,
      fixedIps: allocations,
      addressPairs: security.addressPairs.map((p) => ({
        ip_address: p.ip_address,
        mac_address: p.mac_address ?? mac!,
      })),
      extraDhcpOpts: optionsForNewPort(body.extra_dhcp_opts),
      securityGroups: security.securityGroups,
      tags: body.tags,
      qos: {
        policyId: null,
        networkPolicyId: (await boundQosPolicies(tx, 'network', [networkId])).get(networkId) ?? null,
      },
    });
    const binding = deps.drivers.bindPort(portState(this.view(record)));
    values.binding_vif_type = binding.vifType;
    values.binding_vif_details = binding.vifDetails;
    Object.assign(row, await insertRow(deps.store, tx, 'ports', values));
    await insertPortChildren(tx, record);
    record.qos.policyId = await this.qos.attachNew(tx, ctx, 'port', row.id, body.qos_policy_id, projectId);
    const view = this.view(record);
    const state = portState(view);
    return { view, port: state, event: { resource: 'port', operation: 'create', request: ctx, current: state } };
  }

  /** Binds again after a change of host, VNIC type or profile; returns the port as it now is. */
  private async rebind(tx: Tx, id: string): Promise<View> {
    const before = this.view((await getPortRecord(tx, id))!);
    const binding = this.deps.drivers.bindPort(portState(before));
    if (binding.vifType === before['binding:vif_type']) return before;
    await updateRow(this.deps.store, tx, 'ports', id, {
      binding_vif_type: binding.vifType,
      binding_vif_details: binding.vifDetails,
    });
    return this.view((await getPortRecord(tx, id))!);
  }

  async update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View> {
    return writeTransaction(this.deps, (tx) => this.updateIn(tx, ctx, id, body, precondition));
  }

  /** Updates a port inside the caller's transaction (a router taking a port as its interface), as admin. */
  async updateWithin(tx: Tx, id: string, body: Body): Promise<{ port: PortState; event: ResourceContext }> {
    const ctx = adminContext('internal');
    const prepared = prepareResource(ctx, this.spec, body, false);
    const { result, events } = await this.updateIn(tx, ctx, id, prepared, {});
    const port = portState(result);
    return { port, event: events[0] ?? { resource: 'port', operation: 'update', request: ctx, current: port } };
  }

  private async updateIn(
    tx: Tx,
    ctx: RequestContext,
    id: string,
    body: Body,
    precondition: Precondition,
  ): Promise<{ result: View; events: ResourceContext[] }> {
    const { deps } = this;
    await lockPortRow(deps.store, tx, id);
    const { record, network } = await this.visibleRecord(tx, ctx, id);
    const original = this.view(record);
    deps.authz.enforceUpdate(ctx, this.spec, policyTarget(this.target(original, network, ctx), body), body);
    if (Object.keys(body).length === 0) return { result: original, events: [] };
    checkRevision(record.row.revision_number, precondition);
    const { row } = record;
    const change = portUpdate(body);
    const patch: RowPatch<'ports'> = {};
    for (const key of ['name', 'description', 'device_id', 'device_owner'] as const) {
      const value = change[key];
      if (value !== undefined) patch[key] = value;
    }
    if ('admin_state_up' in body) patch.admin_state_up = body.admin_state_up as boolean;
    if (change['binding:vnic_type'] !== undefined) patch.binding_vnic_type = change['binding:vnic_type'];
    if (change['binding:host_id'] !== undefined) patch.binding_host_id = change['binding:host_id'] ?? '';
    if ('binding:profile' in body) patch.binding_profile = change['binding:profile'] ?? {};
    if (portDnsNamesEnabled(deps.config.network.dns_domain)) {
      if (change.dns_name !== undefined) patch.dns_name = change.dns_name;
      if (change.dns_domain !== undefined) patch.dns_domain = change.dns_domain;
    }

    const mac = await this.updateMac(tx, row, change);
    if (mac !== row.mac_address) patch.mac_address = mac;
    await this.updateFixedIps(tx, record, change, {
      networkId: row.network_id,
      deviceOwner: patch.device_owner ?? row.device_owner,
      mac,
    });

    if (change.qos_policy_id !== undefined) await this.qos.change(tx, ctx, 'port', id, change.qos_policy_id);
    const security = await securityForUpdate(deps, tx, ctx, record, body, change);
    if (security.portSecurity !== undefined) patch.port_security_enabled = security.portSecurity;
    if (security.securityGroups) await replacePortSecurityGroups(tx, id, security.securityGroups);
    if (security.addressPairs) {
      await replaceAddressPairs(
        tx,
        id,
        security.addressPairs.map((p) => ({ ip_address: p.ip_address, mac_address: p.mac_address ?? mac })),
      );
    }
    if (change.extra_dhcp_opts) {
      await replaceExtraDhcpOpts(tx, id, mergeOptions(record.extraDhcpOpts, change.extra_dhcp_opts));
    }
    await updateRow(deps.store, tx, 'ports', id, {
      ...patch,
      revision_number: row.revision_number + 1,
      updated_at: timestamp(),
    });
    const rebinding = ['binding:host_id', 'binding:vnic_type', 'binding:profile'].some((k) => k in body);
    const current = rebinding ? await this.rebind(tx, id) : this.view((await getPortRecord(tx, id))!);
    return { result: current, events: [updated(ctx, current, original)] };
  }

  /**
   * The data plane reports the port's VIF up or down (ML2/OVN's `set_port_status_up/down`). Only
   * a bound port with `admin_state_up` goes ACTIVE (ML2's `_port_provisioned` leaves unbound and
   * failed bindings DOWN); a change bumps the revision and reaches the drivers as an update.
   */
  async reportUp(portId: string, up: boolean): Promise<void> {
    await this.updateFromDataPlane(portId, 'port-status', (row) => {
      // Router ports are never bound (they are everywhere); ML2/OVN forces them ACTIVE when up.
      const bound = !UNBOUND_STATES.includes(row.binding_vif_type) || ROUTER_PORT_OWNERS.includes(row.device_owner);
      const status = up && toBool(row.admin_state_up) && bound ? 'ACTIVE' : up ? row.status : 'DOWN';
      return status === row.status ? undefined : { status };
    });
  }

  /**
   * The data plane says which host holds a virtual port (a VIP) now, '' for none. As ML2/OVN's
   * `update_virtual_port_host` (Zed) does, the binding is replaced by an unbound one on that host;
   * unlike it, the status follows too (ACTIVE while a parent holds the address), so `port show` on
   * a load balancer's VIP says where it lives and whether anything answers for it.
   */
  reportVirtualHost(portId: string, host: string): Promise<View | undefined> {
    return this.updateFromDataPlane(portId, 'virtual-port-host', (row) => {
      const status = host && toBool(row.admin_state_up) ? 'ACTIVE' : 'DOWN';
      if (row.binding_host_id === host && row.status === status) return undefined;
      return {
        binding_host_id: host,
        binding_vif_type: 'unbound',
        binding_vif_details: {},
        binding_profile: {},
        binding_vnic_type: 'normal',
        status,
      };
    });
  }

  /**
   * A change the data plane reports, as admin, under the port's row lock: `patch` says what to
   * write (undefined: nothing); a write bumps the revision and reaches the drivers as an update.
   * Resolves the port as it now is when something was written.
   */
  private async updateFromDataPlane(
    portId: string,
    requestId: string,
    patch: (row: PortTable) => RowPatch<'ports'> | undefined,
  ): Promise<View | undefined> {
    const { deps } = this;
    const ctx = adminContext(requestId);
    return writeTransaction(deps, async (tx) => {
      await lockPortRow(deps.store, tx, portId);
      const record = await getPortRecord(tx, portId);
      const changes = record && patch(record.row);
      if (!record || !changes) return { result: undefined, events: [] };
      const original = this.view(record);
      await updateRow(deps.store, tx, 'ports', portId, {
        ...changes,
        revision_number: record.row.revision_number + 1,
        updated_at: timestamp(),
      });
      const current = this.view((await getPortRecord(tx, portId))!);
      return { result: current, events: [updated(ctx, current, original)] };
    });
  }

  /** A new MAC (null asks for a fresh one): refused on a bound port or when the network has it. */
  private async updateMac(tx: Tx, row: PortTable, change: PortUpdate): Promise<string> {
    if (change.mac_address === undefined) return row.mac_address;
    const wanted =
      change.mac_address ??
      (await generateUniqueMac(this.deps.config.network.base_mac, row.network_id, (m) =>
        macInUse(tx, row.network_id, m),
      ));
    if (wanted === row.mac_address) return wanted;
    if (!UNBOUND_STATES.includes(row.binding_vif_type)) {
      throw PortBound({ port_id: row.id, vif_type: row.binding_vif_type, old_mac: row.mac_address, new_mac: wanted });
    }
    if (await macInUse(tx, row.network_id, wanted)) throw MacAddressInUse({ net_id: row.network_id, mac: wanted });
    return wanted;
  }

  /**
   * Applies a fixed_ips change; without one, a MAC change still moves the EUI-64 addresses (they
   * are requested again by subnet, which recomputes them).
   */
  private async updateFixedIps(
    tx: Tx,
    record: PortRecord,
    change: PortUpdate,
    port: { networkId: string; deviceOwner: string; mac: string },
  ): Promise<void> {
    const subnets = await this.ipamSubnets(tx, port.networkId);
    let requests: FixedIpRequest[] | undefined = change.fixed_ips;
    if (requests === undefined) {
      if (port.mac === record.row.mac_address) return;
      const auto = new Set(subnets.filter(isAutoAddressSubnet).map((s) => s.id));
      requests = record.fixedIps.map((f) => (auto.has(f.subnet_id) ? { subnet_id: f.subnet_id } : { ...f }));
    }
    const current: Allocation[] = record.fixedIps.map((f) => ({ subnet_id: f.subnet_id, ip_address: f.ip_address }));
    const book = this.addressBook(tx, port.networkId);
    let changes = await changeFixedIps(subnets, current, requests, port, book);
    if (port.mac !== record.row.mac_address) changes = await moveEui64Addresses(subnets, changes, port, book);
    await deletePortAllocations(
      tx,
      record.row.id,
      changes.remove.map((a) => a.ip_address),
    );
    await insertAllocations(
      tx,
      changes.add.map((a) => ({ ...a, port_id: record.row.id, network_id: port.networkId })),
    );
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      await lockPortRow(deps.store, tx, id);
      const { record, network } = await this.visibleRecord(tx, ctx, id);
      const current = this.view(record);
      deps.authz.enforceDelete(ctx, this.spec, this.target(current, network, ctx));
      checkRevision(record.row.revision_number, precondition);
      const port = portState(current);
      for (const hook of this.deleteHooks) await hook.guard?.(tx, port);
      const events = await this.deleteIn(tx, ctx, port);
      return { result: undefined, events };
    });
  }

  /**
   * Deletes a port octonet owns (a router's interface or gateway, a floating IP's address) inside
   * the caller's transaction, without the checks that keep users from deleting it directly.
   */
  async deleteWithin(tx: Tx, id: string): Promise<ResourceContext[]> {
    await lockPortRow(this.deps.store, tx, id);
    const record = await getPortRecord(tx, id);
    return record ? this.deleteIn(tx, adminContext('internal'), portState(this.view(record))) : [];
  }

  private async deleteIn(tx: Tx, ctx: RequestContext, port: PortState): Promise<ResourceContext[]> {
    const events: ResourceContext[] = [];
    for (const hook of this.deleteHooks) if (hook.release) events.push(...(await hook.release(tx, port)));
    await deleteRowWithTags(tx, 'ports', port.id);
    const event: ResourceContext = { resource: 'port', operation: 'delete', request: ctx, current: port };
    return [...events, event];
  }
}

/**
 * Subnets: create (CIDR, gateway, pools, DNS, routes, IPv6 modes), show and list with the
 * network's visibility, update (gateway and pools re-validated), delete (releasing the addresses
 * of service ports and auto-address subnets, refusing others). A subnet write also bumps its
 * network's revision, as in Neutron.
 */
import { isStringList } from '../validators.js';
import { subnetCreate, subnetUpdate, type SubnetCreate } from './body.js';
import type { ResourceContext } from '../../drivers/contract.js';
import { subnetState } from '../driver-states.js';
import { randomUUID } from 'node:crypto';
import type { PolicyTarget } from '../authorizer.js';
import type { RequestContext } from '../context.js';
import { bulkCreate, writeTransaction, type CoreDeps } from '../deps.js';
import {
  BadRequest,
  define,
  GatewayIpInUse,
  InvalidInput,
  NetworkNotFound,
  SubnetInUse,
  SubnetNotFound,
} from '../errors.js';
import { formatIp, parseIp, parseNetwork, networksOverlap } from '../ip.js';
import {
  checkGatewayOutOfPools,
  defaultGateway,
  eui64For,
  formatRange,
  gatewayInvalidInSubnet,
  generatePools,
  isAutoAddressSubnet,
  ROUTER_INTERFACE_OWNERS,
  toIpamSubnet,
  validatePools,
  type IpamSubnet,
  type PoolText,
} from '../ipam.js';
import type { ListQuery } from '../list-query.js';
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
import { AUTO_DELETE_PORT_OWNERS } from '../networks/service.js';
import type { Db, Tx } from '../../store/database.js';
import { TRUE, listRows } from '../../store/list.js';
import {
  externalNetworkIds,
  getNetworkAccess,
  isExternal,
  isSharedWith,
  lockNetworkRow,
  networkAccessByView,
  type NetworkAccess,
} from '../../store/networks.js';
import { bumpPortRevisions, insertAllocations, portsOnNetwork } from '../../store/ports.js';
import { toBool, type SubnetTable } from '../../store/schema.js';
import {
  allocationsOnSubnet,
  bumpNetworkRevision,
  deleteAllocations,
  getSubnetRow,
  nextSubnetPosition,
  subnetVisibility,
  subnetsOfNetwork,
  SUBNETS_TABLE,
} from '../../store/subnets.js';
import { loadTags } from '../../store/tags.js';
import { SUBNET_SPEC } from './attributes.js';
import type { SubnetPoolService } from '../subnetpools/service.js';
import { canonicalCidr, checkNetworkMtuForSubnet, validateSubnet } from './validation.js';
import {
  decodeStringList,
  deleteRowWithTags,
  insertRow,
  type RowPatch,
  type RowValues,
  updateRow,
} from '../../store/rows.js';

/** `dns_nameservers` as the attribute map passed it: a list of addresses (converted and validated), or not given. */
function nameserversAsPassed(body: Body): string[] | undefined {
  const value = body.dns_nameservers;
  return isStringList(value) ? value : undefined;
}

/** neutron.ipam.exceptions.IpamValueInvalid: a Conflict carrying its own message. */
const IpamValueInvalid = define<{ message: string }>('IpamValueInvalid', 'Conflict', '%(message)s');

interface SubnetRecord {
  row: SubnetTable;
  tags: string[];
  /** The network is external (the subnet's read-only `router:external`, as master shows it). */
  external: boolean;
}

export class SubnetService implements ResourceService {
  readonly spec = SUBNET_SPEC;

  constructor(
    private readonly deps: CoreDeps,
    /** Where a subnet created with a `subnetpool_id` gets its CIDR. */
    private readonly pools: SubnetPoolService,
  ) {}

  notFound(id: string | null): Error {
    return SubnetNotFound({ subnet_id: id });
  }

  view(record: SubnetRecord): View {
    const { row } = record;
    return {
      id: row.id,
      name: row.name,
      tenant_id: row.project_id,
      network_id: row.network_id,
      ip_version: row.ip_version,
      subnetpool_id: row.subnetpool_id ?? null,
      enable_dhcp: toBool(row.enable_dhcp),
      ipv6_ra_mode: row.ipv6_ra_mode,
      ipv6_address_mode: row.ipv6_address_mode,
      gateway_ip: row.gateway_ip,
      cidr: row.cidr,
      allocation_pools: JSON.parse(row.allocation_pools) as PoolText[],
      host_routes: JSON.parse(row.host_routes) as unknown[],
      dns_nameservers: decodeStringList(row.dns_nameservers),
      description: row.description,
      service_types: decodeStringList(row.service_types),
      dns_publish_fixed_ip: toBool(row.dns_publish_fixed_ip),
      'router:external': record.external,
      tags: record.tags,
      created_at: row.created_at,
      updated_at: row.updated_at,
      revision_number: row.revision_number,
      project_id: row.project_id,
    };
  }

  /** The policy target: the subnet with its network's owner, sharing and external flag. */
  private target(view: View, network: NetworkAccess | undefined, ctx: RequestContext): PolicyTarget {
    return {
      ...view,
      'network:project_id': network?.row.project_id,
      shared: network ? isSharedWith(network, ctx.projectId) : false,
      'router:external': network ? isExternal(network) : false,
    };
  }

  private async records(db: Db, rows: SubnetTable[]): Promise<SubnetRecord[]> {
    const [tags, external] = await Promise.all([
      loadTags(
        db,
        rows.map((r) => r.id),
      ),
      externalNetworkIds(
        db,
        rows.map((r) => r.network_id),
      ),
    ]);
    return rows.map((row) => ({ row, tags: tags.get(row.id) ?? [], external: external.has(row.network_id) }));
  }

  private async visibleRecord(
    db: Db,
    ctx: RequestContext,
    id: string,
  ): Promise<{ record: SubnetRecord; network: NetworkAccess }> {
    const row = await getSubnetRow(db, id);
    const network = row ? await getNetworkAccess(db, row.network_id) : undefined;
    if (!row || !network) throw this.notFound(id);
    const [record] = await this.records(db, [row]);
    const visible =
      ctx.isAdmin ||
      ctx.isService ||
      row.project_id === ctx.projectId ||
      network.row.project_id === ctx.projectId ||
      isSharedWith(network, ctx.projectId);
    if (!visible || !this.deps.authz.canRead(ctx, 'subnet', this.target(this.view(record!), network, ctx))) {
      throw this.notFound(id);
    }
    return { record: record!, network };
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const scope = ctx.isAdmin || ctx.isService ? TRUE : subnetVisibility(ctx.projectId);
    const env = { store: this.deps.store, projectId: ctx.projectId };
    const page = await listRows<SubnetTable>(env, SUBNETS_TABLE, query, scope);
    // Neutron's subnet pager ignores a marker it cannot find (networks and ports answer 404).
    const { rows } = page.markerFound
      ? page
      : await listRows<SubnetTable>(env, SUBNETS_TABLE, { ...query, marker: undefined }, scope);
    const views = (await this.records(this.deps.store.db, rows)).map((r) => this.view(r));
    if (ctx.isAdmin) return views;
    const networks = await networkAccessByView(this.deps.store.db, views);
    return views.filter((v) =>
      this.deps.authz.canRead(ctx, 'subnet', this.target(v, networks.get(stringField(v, 'network_id')), ctx)),
    );
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return this.view((await this.visibleRecord(this.deps.store.db, ctx, id)).record);
  }

  /** The subnet as the caller may see it (else SubnetNotFound), read inside `db` (a transaction). */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<{ view: View; network: NetworkAccess }> {
    const { record, network } = await this.visibleRecord(db, ctx, id);
    return { view: this.view(record), network };
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    return bulkCreate(this.deps, 'subnet', items, {
      authorize: async (tx, item) => {
        const body = subnetCreate(item);
        const network = await getNetworkAccess(tx, body.network_id);
        if (!network) throw NetworkNotFound({ net_id: body.network_id });
        this.deps.authz.enforceCreate(ctx, this.spec, this.target(item, network, ctx));
        return { body, network };
      },
      create: (tx, item, { body, network }) => this.createOne(tx, ctx, item, body, network),
    });
  }

  private async createOne(
    tx: Tx,
    ctx: RequestContext,
    item: Body,
    body: SubnetCreate,
    network: NetworkAccess,
  ): Promise<{ view: View; event: ResourceContext }> {
    const { deps } = this;
    const hasCidr = body.cidr !== undefined && body.cidr !== null;
    if (hasCidr && body.prefixlen !== undefined) {
      throw BadRequest({ resource: 'subnets', msg: 'cidr and prefixlen must not be supplied together' });
    }
    const poolId = body.subnetpool_id ?? null;
    if (!hasCidr && !poolId)
      throw BadRequest({ resource: 'subnets', msg: 'a subnetpool must be specified in the absence of a cidr' });
    const ipVersion = body.ip_version;
    const given = body.cidr ? canonicalCidr(body.cidr) : undefined;
    const cidr = poolId
      ? await this.pools.allocateCidr(tx, ctx, poolId, {
          networkId: network.row.id,
          ipVersion,
          cidr: given,
          prefixlen: body.prefixlen,
        })
      : given!;
    const request = {
      ip_version: ipVersion,
      cidr,
      gateway_ip: body.gateway_ip,
      enable_dhcp: body.enable_dhcp,
      dns_nameservers: nameserversAsPassed(item),
      host_routes: body.host_routes,
      ipv6_ra_mode: body.ipv6_ra_mode,
      ipv6_address_mode: body.ipv6_address_mode,
    };
    validateSubnet(request, deps.config.network);

    const networkRow = await lockNetworkRow(deps.store, tx, network.row.id);
    if (!networkRow) throw NetworkNotFound({ net_id: network.row.id });
    checkNetworkMtuForSubnet(networkRow.id, networkRow.mtu, ipVersion);
    const net = parseNetwork(cidr)!;
    const gateway =
      request.gateway_ip === undefined
        ? defaultGateway(net)
        : request.gateway_ip === null
          ? null
          : parseIp(request.gateway_ip)!.value;
    // Neutron returns a new subnet's pools sorted (an update keeps the order given).
    // An empty list means the default pools too (the IPAM driver generates them).
    const pools =
      body.allocation_pools === undefined || body.allocation_pools.length === 0
        ? generatePools(net, gateway)
        : validatePools(body.allocation_pools, net).sort((a, b) => (a.first < b.first ? -1 : 1));
    if (body.allocation_pools !== undefined && gateway !== null)
      checkGatewayOutOfPools(ipVersion as 4 | 6, gateway, pools);
    // Only the default gateway gets here invalid (a /31's network+1 is its broadcast address).
    if (gateway !== null && gatewayInvalidInSubnet(net, gateway)) {
      throw IpamValueInvalid({
        message: `Gateway IP ${formatIp(net.version, gateway)} cannot be the network or broadcast IP address ${cidr}`,
      });
    }

    if (net.prefixLength === 0) throw InvalidInput({ error_message: '0 is not allowed as CIDR prefix length' });
    for (const other of await subnetsOfNetwork(tx, networkRow.id)) {
      if (networksOverlap(parseNetwork(other.cidr)!, net)) {
        throw InvalidInput({
          error_message: `Requested subnet with cidr: ${cidr} for network: ${networkRow.id} overlaps with another subnet`,
        });
      }
    }

    const now = timestamp();
    const values: RowValues<'subnets'> = {
      id: randomUUID(),
      project_id: body.project_id,
      network_id: networkRow.id,
      name: body.name,
      ip_version: ipVersion,
      cidr,
      subnetpool_id: poolId,
      gateway_ip: gateway === null ? null : formatIp(net.version, gateway),
      enable_dhcp: request.enable_dhcp,
      ipv6_ra_mode: request.ipv6_ra_mode ?? null,
      ipv6_address_mode: request.ipv6_address_mode ?? null,
      allocation_pools: pools.map((p) => formatRange(net.version, p)),
      dns_nameservers: request.dns_nameservers ?? [],
      host_routes: request.host_routes ?? [],
      // As the map passed it (see body.ts): a list of strings, or a falsy value Python lets through.
      service_types: isStringList(item.service_types) ? [...item.service_types].sort() : [],
      dns_publish_fixed_ip: item.dns_publish_fixed_ip as boolean,
      position: await nextSubnetPosition(tx, networkRow.id),
      description: body.description,
      revision_number: 0,
      created_at: now,
      updated_at: now,
    };
    const row = await insertRow(deps.store, tx, 'subnets', values);
    await bumpNetworkRevision(tx, networkRow.id, now);
    const ipam = toIpamSubnet(row);
    if (isAutoAddressSubnet(ipam)) await this.addAutoAddresses(tx, ipam, now);
    const view = this.view({ row, tags: [], external: isExternal(network) });
    return { view, event: { resource: 'subnet', operation: 'create', request: ctx, current: subnetState(view) } };
  }

  /** A new auto-address subnet gives every port on the network (but router interfaces) its EUI-64 address. */
  private async addAutoAddresses(tx: Tx, subnet: IpamSubnet, now: string): Promise<void> {
    const ports = (await portsOnNetwork(tx, subnet.networkId)).filter(
      (p) => !ROUTER_INTERFACE_OWNERS.includes(p.device_owner),
    );
    await insertAllocations(
      tx,
      ports.map((p) => ({
        port_id: p.id,
        network_id: subnet.networkId,
        subnet_id: subnet.id,
        ip_address: formatIp(6, eui64For(subnet, p.mac_address)),
      })),
    );
    await bumpPortRevisions(
      tx,
      ports.map((p) => p.id),
      now,
    );
  }

  async update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const { record, network } = await this.visibleRecord(tx, ctx, id);
      const original = this.view(record);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(this.target(original, network, ctx), body), body);
      checkRevision(record.row.revision_number, precondition);
      const { row } = record;
      const net = parseNetwork(row.cidr)!;
      const change = subnetUpdate(body);
      validateSubnet(
        {
          id,
          ip_version: row.ip_version,
          cidr: row.cidr,
          gateway_ip: change.gateway_ip,
          enable_dhcp: change.enable_dhcp,
          dns_nameservers: nameserversAsPassed(body),
          host_routes: change.host_routes,
        },
        deps.config.network,
        {
          enable_dhcp: toBool(row.enable_dhcp),
          ipv6_ra_mode: row.ipv6_ra_mode,
          ipv6_address_mode: row.ipv6_address_mode,
        },
      );
      const patch: RowPatch<'subnets'> = {};
      for (const key of ['name', 'description'] as const) {
        const value = change[key];
        if (value !== undefined) patch[key] = value;
      }
      for (const key of ['enable_dhcp', 'dns_publish_fixed_ip'] as const) {
        if (key in body) patch[key] = body[key] as boolean;
      }
      for (const key of ['dns_nameservers', 'host_routes', 'service_types'] as const) {
        if (key in body) patch[key] = (body[key] as readonly unknown[] | null) ?? [];
      }
      let gateway = row.gateway_ip === null ? null : parseIp(row.gateway_ip)!.value;
      if (change.gateway_ip !== undefined) {
        const wanted = change.gateway_ip === null ? null : parseIp(change.gateway_ip)!.value;
        if (wanted !== gateway && row.gateway_ip !== null) await this.checkGatewayNotInUse(tx, row);
        gateway = wanted;
        patch.gateway_ip = gateway === null ? null : formatIp(net.version, gateway);
      }
      let pools = toIpamSubnet(row).pools;
      if (change.allocation_pools !== undefined) {
        pools = validatePools(change.allocation_pools ?? [], net);
        patch.allocation_pools = pools.map((p) => formatRange(net.version, p));
      }
      if (gateway !== null && ('gateway_ip' in body || 'allocation_pools' in body)) {
        checkGatewayOutOfPools(net.version, gateway, pools);
      }
      const now = timestamp();
      await updateRow(deps.store, tx, 'subnets', id, {
        ...patch,
        revision_number: row.revision_number + 1,
        updated_at: now,
      });
      await bumpNetworkRevision(tx, row.network_id, now);
      const current = this.view({ ...record, row: (await getSubnetRow(tx, id))! });
      const event: ResourceContext = {
        resource: 'subnet',
        operation: 'update',
        request: ctx,
        current: subnetState(current),
        original: subnetState(original),
      };
      return { result: current, events: [event] };
    });
  }

  /** The gateway may not move while a router port holds it (`GatewayIpInUse`). */
  private async checkGatewayNotInUse(tx: Tx, row: SubnetTable): Promise<void> {
    for (const allocation of await allocationsOnSubnet(tx, row.id)) {
      if (allocation.ip_address === row.gateway_ip && ROUTER_INTERFACE_OWNERS.includes(allocation.device_owner)) {
        throw GatewayIpInUse({ ip_address: row.gateway_ip, port_id: allocation.port_id });
      }
    }
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const { record, network } = await this.visibleRecord(tx, ctx, id);
      const current = this.view(record);
      deps.authz.enforceDelete(ctx, this.spec, this.target(current, network, ctx));
      checkRevision(record.row.revision_number, precondition);
      const auto = isAutoAddressSubnet(toIpamSubnet(record.row));
      const releasable: string[] = [];
      for (const allocation of await allocationsOnSubnet(tx, id)) {
        const owner = allocation.device_owner;
        const released = AUTO_DELETE_PORT_OWNERS.includes(owner) || (auto && !ROUTER_INTERFACE_OWNERS.includes(owner));
        if (!released) {
          throw SubnetInUse({ subnet_id: id, reason: 'One or more ports have an IP allocation from this subnet' });
        }
        releasable.push(allocation.port_id);
      }
      await deleteAllocations(tx, id, releasable);
      // Their fixed_ips changed: a new revision, as Neutron's port update gives them (and what
      // tells cached port views apart).
      await bumpPortRevisions(tx, [...new Set(releasable)], timestamp());
      await deleteRowWithTags(tx, 'subnets', id);
      await bumpNetworkRevision(tx, record.row.network_id, timestamp());
      const event: ResourceContext = {
        resource: 'subnet',
        operation: 'delete',
        request: ctx,
        current: subnetState(current),
      };
      return { result: undefined, events: [event] };
    });
  }
}

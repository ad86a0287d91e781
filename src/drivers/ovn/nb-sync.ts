/**
 * Converges the OVN northbound database to octonet's database: per resource (after each API write,
 * and when the NB drifts) and in full (at start, after a reconnect, periodically). The database is
 * the truth; every pass reads it afresh, maps it (`mapping.ts`), compares it with the NB replica
 * and writes only the difference (`planner.ts`).
 *
 * Each resource's last desired state is remembered as a check (a plan against the replica), so
 * that a change seen on the NB monitor costs no database read when it is our own write echoing
 * back, and a drift is recognised the moment it shows.
 */
import type { Logger } from 'pino';
import type { NetworkState, PortState, ResourceReader, Snapshot, SubnetState } from '../host.js';
import { KeyedQueue } from './keyed-queue.js';
import {
  DROP_PORT_GROUP,
  dropPortGroup,
  isIgnoredPort,
  isMetadataPort,
  isTrustedPort,
  localnetPorts,
  logicalSwitch,
  logicalSwitchName,
  portGroupName,
  securityGroupPortGroup,
  subnetDhcpOptions,
  subnetHasDhcpOptions,
  switchPortRows,
  type DhcpOptionsSpec,
  type MappingOptions,
} from './mapping.js';
import type { OvnMetrics } from './metrics.js';
import { NbView } from './nb-view.js';
import type { OvsdbClient, NbTables, Operation } from './ovsdb/index.js';
import {
  mergeMutations,
  planNetwork,
  planNetworkDhcpCleanup,
  planPort,
  planPortGroup,
  planSubnetDhcp,
  type Outcome,
  type Plan,
} from './planner.js';

export type ResourceKind = 'network' | 'subnet' | 'port' | 'security_group';
export type ResourceKey = `${ResourceKind}:${string}` | 'drop';

export const keyOf = (kind: ResourceKind, id: string): ResourceKey => `${kind}:${id}`;

function parseKey(key: ResourceKey): { kind: ResourceKind | 'drop'; id: string } {
  if (key === 'drop') return { kind: 'drop', id: '' };
  const i = key.indexOf(':');
  return { kind: key.slice(0, i) as ResourceKind, id: key.slice(i + 1) };
}

/** Operations per NB transaction during a full pass: large enough to be quick, small enough to stay snappy. */
const BATCH_OPERATIONS = 2000;

export interface FullSyncReport {
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  readonly unchanged: number;
  readonly seconds: number;
}

export interface NbSyncOptions {
  readonly nb: OvsdbClient<NbTables>;
  readonly reader: ResourceReader;
  readonly mapping: MappingOptions;
  readonly randomMac: () => string;
  readonly metrics: OvnMetrics;
  readonly logger: Logger;
}

export class NbSync {
  readonly nbView: NbView;
  private readonly queue = new KeyedQueue();
  /** Per resource: the plan that would bring the NB back to what we last wrote for it. */
  private readonly checks = new Map<ResourceKey, () => Plan>();

  constructor(private readonly options: NbSyncOptions) {
    this.nbView = new NbView(options.nb.replica);
  }

  /** Reconciles one resource from the database (serialised per resource). */
  reconcile(key: ResourceKey): Promise<Outcome> {
    return this.queue.run(key, () => this.reconcileNow(key));
  }

  /**
   * After the NB changed under a resource: if its rows no longer match what we last wrote (or we
   * never wrote it), reconcile it from the database. Returns whether it was out of date.
   */
  async checkDrift(key: ResourceKey): Promise<Outcome | undefined> {
    return this.queue.run(`check:${key}`, async () => {
      const check = this.checks.get(key);
      if (check && check().ops.length === 0) return undefined;
      const outcome = await this.reconcile(key);
      if (outcome !== 'unchanged') {
        const { kind } = parseKey(key);
        this.options.metrics.repairs.inc({ resource: kind, action: outcome });
        this.options.logger.warn({ resource: key, action: outcome }, 'OVN NB drifted from the database; repaired');
      }
      return outcome;
    });
  }

  /** Resolves when no reconcile is queued or running. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async reconcileNow(key: ResourceKey): Promise<Outcome> {
    const { kind, id } = parseKey(key);
    switch (kind) {
      case 'network':
        return this.reconcileNetwork(id);
      case 'subnet':
        return this.reconcileSubnet(id);
      case 'port':
        return this.reconcilePort(id);
      case 'security_group':
        return this.reconcileSecurityGroup(id);
      case 'drop':
        return this.reconcileDropGroup();
    }
  }

  /** Plans, remembers the plan as the resource's drift check, writes what it found. */
  private async apply(key: ResourceKey, plan: () => Plan, extra: Operation[] = []): Promise<Outcome> {
    const first = plan();
    this.checks.set(key, plan);
    await this.transact([...first.ops, ...extra]);
    return first.outcome === 'unchanged' && extra.length > 0 ? 'deleted' : first.outcome;
  }

  private forget(key: ResourceKey): void {
    this.checks.delete(key);
  }

  async transact(ops: readonly Operation[]): Promise<void> {
    if (ops.length === 0) return;
    const merged = mergeMutations(ops);
    try {
      await this.options.nb.transact(merged);
      this.options.metrics.nbTransactions.inc({ result: 'ok' });
      this.options.metrics.nbOperations.inc(merged.length);
    } catch (error) {
      this.options.metrics.nbTransactions.inc({ result: 'error' });
      throw error;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Desired state, shared by the per-resource and the full passes

  private desiredNetwork(network: NetworkState) {
    return {
      logicalSwitch: logicalSwitch(network, this.options.mapping),
      localnets: localnetPorts(network, this.options.mapping),
    };
  }

  private desiredSubnet(subnet: SubnetState, network: NetworkState, metadataIp: string | undefined): DhcpOptionsSpec {
    const existing = this.nbView.subnetDhcp(subnet.id)?.options;
    const serverMac =
      (subnet.ip_version === 4 ? existing?.server_mac : existing?.server_id) ?? this.options.randomMac();
    return subnetDhcpOptions(subnet, network, metadataIp, serverMac, this.options.mapping);
  }

  private portPlan(
    port: PortState,
    network: Pick<NetworkState, 'id' | 'mtu'>,
    subnets: ReadonlyMap<string, SubnetState>,
  ) {
    const nb = this.nbView;
    const rows = switchPortRows(port, {
      network,
      subnets,
      subnetDhcp: (subnetId) => nb.subnetDhcp(subnetId),
    });
    const switchName = logicalSwitchName(port.network_id);
    return () => planPort(nb, port.id, switchName, rows, (subnetId) => nb.subnetDhcp(subnetId)?._uuid);
  }

  // -------------------------------------------------------------------------------------------
  // One resource

  private async reconcileNetwork(id: string): Promise<Outcome> {
    const key = keyOf('network', id);
    const network = await this.options.reader.network(id);
    const name = logicalSwitchName(id);
    if (!network) {
      this.forget(key);
      return this.apply(key, () => planNetwork(this.nbView, name, undefined), planNetworkDhcpCleanup(this.nbView, id));
    }
    const desired = this.desiredNetwork(network);
    return this.apply(key, () => planNetwork(this.nbView, name, desired));
  }

  private async reconcileSubnet(id: string): Promise<Outcome> {
    const key = keyOf('subnet', id);
    const { reader } = this.options;
    const subnet = await reader.subnet(id);
    if (!subnet) {
      this.forget(key);
      return this.apply(key, () => planSubnetDhcp(this.nbView, id, undefined));
    }
    const network = await reader.network(subnet.network_id);
    let desired: DhcpOptionsSpec | undefined;
    if (network && subnetHasDhcpOptions(subnet)) {
      const metadata = subnet.ip_version === 4 ? await reader.metadataPort(network.id) : undefined;
      const metadataIp = metadata?.fixed_ips.find((ip) => ip.subnet_id === id)?.ip_address;
      desired = this.desiredSubnet(subnet, network, metadataIp);
    }
    const copies = this.nbView.dhcpOfSubnet(id).flatMap((row) => row.external_ids.port_id ?? []);
    const outcome = await this.apply(key, () => planSubnetDhcp(this.nbView, id, desired));
    // A new or vanished row changes what every port on the subnet points at; changed options
    // reach the ports that carry their own copy of them (extra DHCP options).
    const ports =
      outcome === 'created' || outcome === 'deleted'
        ? (await reader.portsOfNetwork(subnet.network_id, id)).map((p) => p.id)
        : outcome === 'updated'
          ? copies
          : [];
    for (const portId of ports) void this.reconcile(keyOf('port', portId)).catch(() => undefined);
    return outcome;
  }

  private async reconcilePort(id: string): Promise<Outcome> {
    const key = keyOf('port', id);
    const { reader } = this.options;
    const port = await reader.port(id);
    if (!port || isIgnoredPort(port)) {
      this.forget(key);
      return this.apply(key, () => planPort(this.nbView, id, '', undefined, () => undefined));
    }
    // What the port's row points at must exist first: its switch, its subnets' DHCP rows, its groups.
    if (!this.nbView.logicalSwitch(logicalSwitchName(port.network_id)))
      await this.reconcile(keyOf('network', port.network_id));
    const subnets = new Map((await reader.subnets(port.fixed_ips.map((ip) => ip.subnet_id))).map((s) => [s.id, s]));
    for (const subnet of subnets.values()) {
      if (subnetHasDhcpOptions(subnet) && !this.nbView.subnetDhcp(subnet.id))
        await this.reconcile(keyOf('subnet', subnet.id));
    }
    if (!isTrustedPort(port)) {
      if (port.port_security_enabled && !this.nbView.portGroup(DROP_PORT_GROUP)) await this.reconcile('drop');
      for (const group of port.security_groups) {
        if (!this.nbView.portGroup(portGroupName(group))) await this.reconcile(keyOf('security_group', group));
      }
    }
    const network = isMetadataPort(port) ? await reader.network(port.network_id) : undefined;
    return this.apply(key, this.portPlan(port, network ?? { id: port.network_id, mtu: 0 }, subnets));
  }

  /**
   * A group's members are each port's to keep (its own plan adds and removes it), so a group's
   * plan leaves membership alone, except when the group itself is (re)created: then it starts
   * with every member the database has.
   */
  private async reconcileSecurityGroup(id: string): Promise<Outcome> {
    const key = keyOf('security_group', id);
    const group = await this.options.reader.securityGroup(id);
    const name = portGroupName(id);
    if (!group) {
      this.forget(key);
      return this.apply(key, () => planPortGroup(this.nbView, name, undefined, undefined));
    }
    const desired = securityGroupPortGroup(group);
    const members = this.nbView.portGroup(name) ? undefined : await this.options.reader.portIdsOfSecurityGroup(id);
    return this.createThenKeep(key, (ids) => planPortGroup(this.nbView, name, desired, ids), members);
  }

  private async reconcileDropGroup(): Promise<Outcome> {
    const present = this.nbView.portGroup(DROP_PORT_GROUP) !== undefined;
    const members = present
      ? undefined
      : (await this.options.reader.snapshot()).ports
          .filter((p) => !isTrustedPort(p) && p.port_security_enabled && !isIgnoredPort(p))
          .map((p) => p.id);
    return this.createThenKeep(
      'drop',
      (ids) => planPortGroup(this.nbView, DROP_PORT_GROUP, dropPortGroup(), ids),
      members,
    );
  }

  /**
   * Writes a group, with `memberPorts` (port ids) when it is being created, and remembers as its
   * drift check the plan that leaves membership alone.
   */
  private async createThenKeep(
    key: ResourceKey,
    plan: (members: string[] | undefined) => Plan,
    memberPorts: readonly string[] | undefined,
  ): Promise<Outcome> {
    const first = plan(memberPorts && this.lspUuids(memberPorts));
    this.checks.set(key, () => plan(undefined));
    await this.transact(first.ops);
    return first.outcome;
  }

  private lspUuids(portIds: readonly string[]): string[] {
    return portIds.map((id) => this.nbView.switchPort(id)?._uuid).filter((uuid): uuid is string => !!uuid);
  }

  // -------------------------------------------------------------------------------------------
  // Everything

  /** Compares the whole database with the NB and writes every difference, in dependency order. */
  async fullSync(): Promise<FullSyncReport> {
    const started = process.hrtime.bigint();
    const snapshot = await this.options.reader.snapshot();
    const nb = this.nbView;
    const counts: Record<Outcome, number> = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
    const batch = new Batch(this, counts, (key, plan) => this.checks.set(key, plan));

    // 1. Switches (with localnet ports) and groups (membership comes last, once every LSP exists).
    await batch.add('drop', () => planPortGroup(nb, DROP_PORT_GROUP, dropPortGroup(), undefined));
    const networks = new Map(snapshot.networks.map((n) => [n.id, n]));
    for (const network of snapshot.networks) {
      const desired = this.desiredNetwork(network);
      const name = logicalSwitchName(network.id);
      await batch.add(keyOf('network', network.id), () => planNetwork(nb, name, desired));
    }
    for (const row of [...nb.logicalSwitches()]) {
      const id = row.name.startsWith('neutron-') ? row.name.slice('neutron-'.length) : undefined;
      if (id && !networks.has(id))
        await batch.add(
          keyOf('network', id),
          () => planNetwork(nb, row.name, undefined),
          planNetworkDhcpCleanup(nb, id),
        );
    }
    const groups = new Map(snapshot.securityGroups.map((g) => [g.id, g]));
    for (const group of snapshot.securityGroups) {
      const desired = securityGroupPortGroup(group);
      await batch.add(keyOf('security_group', group.id), () =>
        planPortGroup(nb, portGroupName(group.id), desired, undefined),
      );
    }
    for (const row of [...nb.portGroups()]) {
      const id = row.external_ids['neutron:security_group_id'];
      if (id && !groups.has(id))
        await batch.add(keyOf('security_group', id), () => planPortGroup(nb, row.name, undefined, undefined));
    }
    await batch.flush();

    // 2. Subnets' DHCP rows.
    const subnets = new Map(snapshot.subnets.map((s) => [s.id, s]));
    const metadataIps = metadataAddresses(snapshot);
    for (const subnet of snapshot.subnets) {
      const network = networks.get(subnet.network_id);
      const desired =
        network && subnetHasDhcpOptions(subnet)
          ? this.desiredSubnet(subnet, network, metadataIps.get(subnet.id))
          : undefined;
      await batch.add(keyOf('subnet', subnet.id), () => planSubnetDhcp(nb, subnet.id, desired));
    }
    for (const row of [...nb.dhcpOptions()]) {
      const id = row.external_ids.subnet_id;
      if (id && !subnets.has(id)) await batch.add(keyOf('subnet', id), () => planSubnetDhcp(nb, id, undefined));
    }
    await batch.flush();

    // 3. Ports.
    const ports = new Set<string>();
    for (const port of snapshot.ports) {
      if (isIgnoredPort(port) || !networks.has(port.network_id)) continue;
      ports.add(port.id);
      const network = networks.get(port.network_id)!;
      await batch.add(keyOf('port', port.id), this.portPlan(port, network, subnets));
    }
    for (const row of [...nb.switchPorts()]) {
      if (row.external_ids['neutron:port_name'] !== undefined && !ports.has(row.name)) {
        await batch.add(keyOf('port', row.name), () => planPort(nb, row.name, '', undefined, () => undefined));
      }
    }
    await batch.flush();

    // 4. Group membership, compared here only: the groups' drift checks (from step 1) leave it to the ports.
    const guarded = snapshot.ports.filter((p) => !isTrustedPort(p) && p.port_security_enabled && ports.has(p.id));
    const dropMembers = this.lspUuids(guarded.map((p) => p.id));
    await batch.add('drop', () => planPortGroup(nb, DROP_PORT_GROUP, dropPortGroup(), dropMembers), [], false);
    const membersOf = groupMembers(snapshot, ports);
    for (const group of snapshot.securityGroups) {
      const desired = securityGroupPortGroup(group);
      const members = this.lspUuids(membersOf.get(group.id) ?? []);
      const name = portGroupName(group.id);
      await batch.add(keyOf('security_group', group.id), () => planPortGroup(nb, name, desired, members), [], false);
    }
    await batch.flush();

    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.options.metrics.lastFullSyncSeconds.set(seconds);
    return { ...counts, seconds };
  }
}

/** Each subnet's metadata port address. */
function metadataAddresses(snapshot: Snapshot): Map<string, string> {
  const result = new Map<string, string>();
  for (const port of snapshot.ports) {
    if (!isMetadataPort(port)) continue;
    for (const ip of port.fixed_ips) result.set(ip.subnet_id, ip.ip_address);
  }
  return result;
}

/** Security group id → ids of its (untrusted) member ports. */
function groupMembers(snapshot: Snapshot, ports: ReadonlySet<string>): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const port of snapshot.ports) {
    if (isTrustedPort(port) || !ports.has(port.id)) continue;
    for (const group of port.security_groups) {
      const list = result.get(group);
      if (list) list.push(port.id);
      else result.set(group, [port.id]);
    }
  }
  return result;
}

/** Collects plans into transactions of about `BATCH_OPERATIONS` operations. */
class Batch {
  private ops: Operation[] = [];

  constructor(
    private readonly sync: NbSync,
    private readonly counts: Record<Outcome, number>,
    /** Keeps each plan as its resource's drift check, as the per-resource path does. */
    private readonly remember: (key: ResourceKey, plan: () => Plan) => void,
  ) {}

  /** Adds a plan's operations; `remember` false keeps the resource's existing drift check. */
  async add(key: ResourceKey, plan: () => Plan, extra: Operation[] = [], remember = true): Promise<void> {
    const { ops, outcome } = plan();
    this.counts[extra.length > 0 && outcome === 'unchanged' ? 'deleted' : outcome]++;
    if (remember) this.remember(key, plan);
    this.ops.push(...ops, ...extra);
    if (this.ops.length >= BATCH_OPERATIONS) await this.flush();
  }

  async flush(): Promise<void> {
    const ops = this.ops;
    this.ops = [];
    await this.sync.transact(ops);
  }
}

/**
 * Converges the OVN northbound database to octonet's database one resource at a time (after each
 * API write, and when the NB drifts); the full pass (`full-sync.ts`) shares its drift checks and
 * its transaction path. The database is the truth; every reconcile reads it afresh, maps it
 * (`desired-state.ts`), compares it with the NB replica and writes only the difference (`planner.ts`).
 *
 * Each resource's last desired state is remembered as a check (`drift-checks.ts`), so that a
 * change seen on the NB monitor costs no database read when it is our own write echoing back, and
 * a drift is recognised the moment it shows.
 */
import type { Logger } from 'pino';
import type { PortState, ResourceReader, SubnetState } from '../../host.js';
import { DriftChecks } from './drift-checks.js';
import { KeyedQueue } from './keyed-queue.js';
import {
  DROP_PORT_GROUP,
  dropPortGroup,
  isIgnoredPort,
  isMetadataPort,
  isTrustedPort,
  logicalSwitchName,
  portFloatingIp,
  portGroupName,
  securityGroupPortGroup,
  subnetHasDhcpOptions,
  type DhcpOptionsSpec,
} from '../mapping.js';
import type { OvnMetrics } from '../metrics.js';
import type { NbView } from '../nb-view.js';
import { NbNotOwned } from '../nb-owner.js';
import { logicalRouterName } from '../router-mapping.js';
import { planRouter } from '../router-planner.js';
import type { OvsdbClient, NbTables, Operation } from '../ovsdb/index.js';
import type { DesiredState } from './desired-state.js';
import { effectiveQosPolicyId, planPortQos, withQos } from '../qos.js';
import { keyOf, parseKey, type ResourceKey } from './resource-key.js';
import {
  mergeMutations,
  planNetwork,
  planNetworkDhcpCleanup,
  planPort,
  planPortGroup,
  planSubnetDhcp,
  type Outcome,
  type Plan,
} from '../planner.js';

export interface NbSyncOptions {
  readonly nb: OvsdbClient<NbTables>;
  /** The NB replica, read by the plans. */
  readonly nbView: NbView;
  /** What the NB should hold for a resource (shared with the full pass). */
  readonly desired: DesiredState;
  readonly reader: ResourceReader;
  readonly metrics: OvnMetrics;
  readonly logger: Logger;
  /** Whether this deployment owns the NB now (`nb-owner.ts`); no write is sent while it does not. */
  readonly mayWrite: () => boolean;
}

export class NbSync {
  readonly nbView: NbView;
  private readonly desired: DesiredState;
  private readonly queue = new KeyedQueue();
  /** Per resource: whether the NB still holds what we last wrote for it. */
  private readonly checks: DriftChecks;
  /** Ports as the write that changed them returned them, so their reconcile need not read them back. */
  private readonly portHints = new Map<string, PortState>();
  /**
   * Subnets as ports need them (CIDR, IP version, DHCP flag): read once, dropped whenever the
   * subnet itself is reconciled. What can change (the DHCP flag) only decides whether a port waits
   * for its subnet's row; the row itself is always taken from the NB.
   */
  private readonly subnetCache = new Map<string, SubnetState>();

  constructor(private readonly options: NbSyncOptions) {
    this.nbView = options.nbView;
    this.desired = options.desired;
    this.checks = new DriftChecks(options.nbView);
  }

  /** Reconciles one resource from the database (serialised per resource). */
  reconcile(key: ResourceKey): Promise<Outcome> {
    return this.queue.run(key, () => this.reconcileNow(key));
  }

  /**
   * Reconciles a port from the view its create or update returned (the write path: one database
   * read fewer). Of two views the later revision is kept; an older one that still runs later is
   * refused by the planner, which never moves the NB back to an older revision.
   */
  reconcilePortFrom(port: PortState): Promise<Outcome> {
    const held = this.portHints.get(port.id);
    if (!held || held.revision_number <= port.revision_number) this.portHints.set(port.id, port);
    return this.reconcile(keyOf('port', port.id));
  }

  /**
   * After the NB changed under a resource: if its rows no longer match what we last wrote (or we
   * never wrote it), reconcile it from the database. Returns whether it was out of date.
   */
  async checkDrift(key: ResourceKey): Promise<Outcome | undefined> {
    return this.queue.run(`check:${key}`, async () => {
      if (this.checks.isInSync(key)) return undefined;
      const outcome = await this.reconcile(key);
      if (outcome !== 'unchanged') {
        const { kind } = parseKey(key);
        this.options.metrics.repairs.inc({ resource: kind, action: outcome });
        this.options.logger.warn({ resource: key, action: outcome }, 'OVN NB drifted from the database; repaired');
      }
      return outcome;
    });
  }

  /** Whether the NB holds exactly what was last written for the resource (a cheap, read-only check). */
  isInSync(key: ResourceKey): boolean {
    return this.checks.isInSync(key);
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
      case 'router':
        return this.reconcileRouter(id);
      case 'drop':
        return this.reconcileDropGroup();
    }
  }

  /** Plans, remembers the plan as the resource's drift check, writes what it found. */
  private async apply(key: ResourceKey, plan: () => Plan): Promise<Outcome> {
    const first = plan();
    if (!first.superseded) this.checks.remember(key, plan, first.ops.length === 0);
    await this.transact(first.ops);
    return first.outcome;
  }

  /**
   * Removes a resource the database no longer has. Its drift check goes too, so the map does not
   * grow with every resource ever deleted; a row reappearing under its name is still recognised
   * (no check means: reconcile from the database, which removes it again).
   */
  private async remove(key: ResourceKey, plan: Plan): Promise<Outcome> {
    this.checks.forget(key);
    await this.transact(plan.ops);
    return plan.outcome;
  }

  /** Whether NB writes are allowed now (the NB is this deployment's). */
  mayWrite(): boolean {
    return this.options.mayWrite();
  }

  async transact(ops: readonly Operation[]): Promise<void> {
    if (ops.length === 0) return;
    if (!this.options.mayWrite()) throw new NbNotOwned('the OVN NB is not owned by this deployment');
    const merged = mergeMutations(ops);
    const written = this.checks.mark();
    try {
      await this.options.nb.transact(merged);
      this.checks.settle(written);
      this.options.metrics.nbTransactions.inc({ result: 'ok' });
      this.options.metrics.nbOperations.inc(merged.length);
    } catch (error) {
      this.options.metrics.nbTransactions.inc({ result: 'error' });
      throw error;
    }
  }

  // -------------------------------------------------------------------------------------------
  // One resource

  private async reconcileNetwork(id: string): Promise<Outcome> {
    const key = keyOf('network', id);
    const network = await this.options.reader.network(id);
    const name = logicalSwitchName(id);
    if (!network) {
      const plan = planNetwork(this.nbView, name, undefined);
      const cleanup = planNetworkDhcpCleanup(this.nbView, id);
      return this.remove(key, {
        ops: [...plan.ops, ...cleanup],
        outcome: cleanup.length > 0 ? 'deleted' : plan.outcome,
      });
    }
    const desired = this.desired.network(network);
    return this.apply(key, () => planNetwork(this.nbView, name, desired));
  }

  private async subnetsOf(port: PortState): Promise<Map<string, SubnetState>> {
    const ids = [...new Set(port.fixed_ips.map((ip) => ip.subnet_id))];
    const missing = ids.filter((id) => !this.subnetCache.has(id));
    for (const subnet of await this.options.reader.subnets(missing)) this.subnetCache.set(subnet.id, subnet);
    return new Map(ids.flatMap((id) => (this.subnetCache.has(id) ? [[id, this.subnetCache.get(id)!]] : [])));
  }

  private async reconcileSubnet(id: string): Promise<Outcome> {
    const key = keyOf('subnet', id);
    this.subnetCache.delete(id);
    const { reader } = this.options;
    const subnet = await reader.subnet(id);
    if (!subnet) return this.remove(key, planSubnetDhcp(this.nbView, id, undefined));
    const network = await reader.network(subnet.network_id);
    let desired: DhcpOptionsSpec | undefined;
    if (network && subnetHasDhcpOptions(subnet)) {
      const metadata = subnet.ip_version === 4 ? await reader.metadataPort(network.id) : undefined;
      const metadataIp = metadata?.fixed_ips.find((ip) => ip.subnet_id === id)?.ip_address;
      desired = this.desired.subnet(subnet, network, metadataIp);
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
    const hinted = this.portHints.get(id);
    this.portHints.delete(id);
    const port = hinted ?? (await reader.port(id));
    if (!port || isIgnoredPort(port))
      return this.remove(
        key,
        withQos(
          planPort(this.nbView, id, '', undefined, () => undefined),
          planPortQos(this.nbView, id, '', []),
        ),
      );
    // What the port's row points at must exist first: its switch, its subnets' DHCP rows, its groups.
    if (!this.nbView.logicalSwitch(logicalSwitchName(port.network_id)))
      await this.reconcile(keyOf('network', port.network_id));
    const subnets = await this.subnetsOf(port);
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
    const policyId = effectiveQosPolicyId(port);
    const [holders, floatingIps, qosRules] = await Promise.all([
      reader.addressPairHolders(
        port.network_id,
        port.fixed_ips.map((ip) => ip.ip_address),
      ),
      reader.floatingIpsOfPort(port.id),
      policyId ? reader.qosRules([policyId]).then((rules) => rules.get(policyId) ?? []) : [],
    ]);
    const plan = this.desired.portPlan(
      port,
      network ?? { id: port.network_id, mtu: 0 },
      subnets,
      holders,
      qosRules,
      portFloatingIp(floatingIps),
    );
    return this.apply(key, plan);
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
    if (!group) return this.remove(key, planPortGroup(this.nbView, name, undefined, undefined));
    const desired = securityGroupPortGroup(group);
    const members = this.nbView.portGroup(name) ? undefined : await this.options.reader.portIdsOfSecurityGroup(id);
    return this.createThenKeep(key, (ids) => planPortGroup(this.nbView, name, desired, ids), members);
  }

  private async reconcileRouter(id: string): Promise<Outcome> {
    const key = keyOf('router', id);
    const { reader } = this.options;
    const router = await reader.router(id);
    const name = logicalRouterName(id);
    if (!router) return this.remove(key, planRouter(this.nbView, name, undefined));
    const [ports, floatingIps] = await Promise.all([reader.portsOfRouter(id), reader.floatingIpsOfRouter(id)]);
    const rows = await this.desired.routerRows(router, ports, floatingIps);
    return this.apply(key, () => planRouter(this.nbView, name, rows));
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
    const first = plan(memberPorts && this.nbView.switchPortUuids(memberPorts));
    this.checks.remember(key, () => plan(undefined));
    await this.transact(first.ops);
    return first.outcome;
  }

  /**
   * Keeps `plan` as the resource's drift check (the full pass shares the per-resource checks);
   * `inSync`: it was just found to need no write.
   */
  remember(key: ResourceKey, plan: () => Plan, inSync = false): void {
    this.checks.remember(key, plan, inSync);
  }
}

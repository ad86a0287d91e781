/**
 * The OVN mechanism driver, composed: the NB and SB connections, the writes after each API change,
 * the repair loop (`repair/`: drift seen on the NB monitor, a full pass at start, after every
 * reconnect and periodically on one replica), what OVN reports back (`status/`: port status, VIP
 * holders, chassis as agents and port binding, floating IP status) and router gateway scheduling.
 *
 * Like ML2/OVN, postcommit hooks write the NB before the API answers; unlike it, they re-read the
 * resource from the database, so two writes racing on one resource converge on the later one.
 */
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { OvnConfig } from '../../config/config.js';
import type {
  AgentProvider,
  DependencyCheck,
  MechanismDriver,
  PortBinding,
  ResourceContext,
  VirtualPortHolder,
} from '../contract.js';
import type { DriverHost, FloatingIpState, PortState } from '../host.js';
import { RouterGateways } from './gateways.js';
import { isMetadataPort, LEARNED_VIP_EXT_ID, resolveVipFailover, type MappingOptions } from './mapping.js';
import { createOvnMetrics, type OvnMetrics } from './metrics.js';
import { NB_MONITORED, NbView } from './nb-view.js';
import { NbNotOwned, NbOwnership } from './nb-owner.js';
import { OvsdbClient, OvsdbNotConnected, type NbTables, type RowChange, type SbTables } from './ovsdb/index.js';
import { DesiredState, keyOf, NbSync, PostcommitRetries, RepairLoop, type ResourceKey } from './repair/index.js';
import { isRouterPort } from './router-mapping.js';
import { ChassisAgents, floatingIpStatus, PortStatus, VirtualPortLocations, type LearnedVip } from './status/index.js';

const SB_MONITORED = {
  Chassis: ['name', 'hostname', 'other_config', 'external_ids', 'encaps'],
  Chassis_Private: ['name', 'chassis', 'nb_cfg', 'nb_cfg_timestamp', 'external_ids'],
  // Where gateway ports (`cr-lrp-*`) and virtual ports (and through which parent) are bound.
  Port_Binding: ['logical_port', 'chassis', 'type', 'up', 'virtual_parent', 'datapath', 'mac'],
  // What routers learned: in `learned-mac` mode, which amphora holds a VIP.
  MAC_Binding: ['logical_port', 'ip', 'mac', 'datapath', 'timestamp'],
} as const;

export interface OvnDriverOptions {
  readonly ovn: OvnConfig & { nb_connection: string; sb_connection: string };
  readonly dnsDomain: string;
  readonly baseMac: string;
  readonly logger: Logger;
  readonly registry: Registry;
  /** This deployment's identity (its database's), marked on the NB it owns (`nb-owner.ts`). */
  readonly deploymentId: string;
}

/** The host's resolvers, for subnets without DNS servers (as Neutron falls back to resolv.conf). */
function systemResolvers(): string[] {
  try {
    return readFileSync('/etc/resolv.conf', 'utf8')
      .split('\n')
      .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
      .filter((ip): ip is string => !!ip);
  } catch {
    return [];
  }
}

/** `neutron_lib.utils.net.get_random_mac`: the base's first three octets (four if set), then random. */
function randomMacFrom(base: string): () => string {
  const octets = base.split(':');
  const keep = octets[3] !== '00' ? 4 : 3;
  return () =>
    [
      ...octets.slice(0, keep),
      ...Array.from({ length: 6 - keep }, () => randomInt(256).toString(16).padStart(2, '0')),
    ].join(':');
}

/** The resource key a write's own NB rows are repaired under (a floating IP's live in its router and port). */
function contextKey(context: ResourceContext): ResourceKey | undefined {
  switch (context.resource) {
    case 'network':
    case 'subnet':
    case 'port':
    case 'security_group':
    case 'router':
      return keyOf(context.resource, context.current.id);
    case 'security_group_rule':
      return keyOf('security_group', context.current.security_group_id);
    case 'floatingip':
      return context.current.router_id ? keyOf('router', context.current.router_id) : undefined;
    case 'qos_policy':
      return undefined;
  }
}

export class OvnMechanismDriver implements MechanismDriver {
  readonly name = 'ovn';
  readonly nb: OvsdbClient<NbTables>;
  readonly sb: OvsdbClient<SbTables>;
  readonly metrics: OvnMetrics;
  private readonly nbView: NbView;
  private host!: DriverHost;
  private sync!: NbSync;
  private repair!: RepairLoop;
  private retries!: PostcommitRetries;
  private stopped = false;
  private readonly portStatus: PortStatus;
  private readonly chassis: ChassisAgents;
  private readonly gateways: RouterGateways;
  private readonly virtualPorts: VirtualPortLocations;
  private readonly owner: NbOwnership;
  /** The owner check and full pass that follow the latest NB sync. */
  private afterSync: Promise<void> = Promise.resolve();

  constructor(private readonly options: OvnDriverOptions) {
    const { ovn, logger } = options;
    const common = {
      echoIntervalMs: ovn.ovsdb_probe_interval,
      callTimeoutMs: ovn.ovsdb_call_timeout * 1000,
      logger: logger.child({ component: 'ovsdb' }),
    };
    this.nb = new OvsdbClient<NbTables>({
      ...common,
      remotes: ovn.nb_connection.split(','),
      database: 'OVN_Northbound',
      tables: NB_MONITORED,
    });
    this.sb = new OvsdbClient<SbTables>({
      ...common,
      remotes: ovn.sb_connection.split(','),
      database: 'OVN_Southbound',
      tables: SB_MONITORED,
    });
    this.metrics = createOvnMetrics(options.registry, { nb: this.nb, sb: this.sb });
    this.nbView = new NbView(this.nb.replica);
    this.portStatus = new PortStatus({ nbView: this.nbView, host: () => this.host, metrics: this.metrics, logger });
    this.owner = new NbOwnership({
      nb: this.nb,
      deploymentId: options.deploymentId,
      takeover: ovn.nb_takeover,
      logger,
      onOwned: () => this.repair?.requestFullSync('owner-mark'),
    });
    this.chassis = new ChassisAgents(this.nb, this.sb, ovn.agent_down_time * 1000, () => this.owner.mayWrite());
    this.gateways = new RouterGateways({
      nbView: () => this.nbView,
      chassis: this.chassis,
      reconcileRouter: (id) => this.reconcile(keyOf('router', id)),
      stopped: () => this.stopped,
    });
    this.virtualPorts = new VirtualPortLocations({
      sb: this.sb,
      learnedVips: () => this.learnedVips(),
      host: () => this.host,
      logger,
      stopped: () => this.stopped,
    });
  }

  private mappingOptions(): MappingOptions {
    const { ovn } = this.options;
    return {
      igmpSnoopingEnable: ovn.igmp_snooping_enable,
      igmpFloodUnregistered: ovn.igmp_flood_unregistered,
      igmpFloodReports: ovn.igmp_flood_reports,
      igmpFlood: ovn.igmp_flood,
      localnetLearnFdb: ovn.localnet_learn_fdb,
      fdbAgeThreshold: ovn.fdb_age_threshold,
      broadcastArpsToAllRouters: ovn.broadcast_arps_to_all_routers,
      dhcpLeaseTime: ovn.dhcp_default_lease_time,
      fallbackDnsServers: ovn.dns_servers.length > 0 ? ovn.dns_servers : systemResolvers(),
      dnsDomain: this.options.dnsDomain,
      vipFailover: resolveVipFailover(ovn.vip_failover, ovn.enable_distributed_floating_ip),
    };
  }

  async start(host: DriverHost): Promise<void> {
    const { logger, ovn } = this.options;
    this.host = host;
    if (ovn.vip_failover === 'learned-mac' && ovn.enable_distributed_floating_ip) {
      // A distributed NAT is resident where its logical port is bound; a learned-MAC VIP is bound nowhere.
      logger.warn('ovn.vip_failover learned-mac with distributed floating IPs: a floating IP on a VIP answers nowhere');
    }
    const desired = new DesiredState({
      nbView: this.nbView,
      reader: host.reader,
      mapping: this.mappingOptions(),
      randomMac: randomMacFrom(this.options.baseMac),
      router: {
        macBindingAgeThreshold: this.options.ovn.mac_binding_age_threshold,
        distributedFloatingIps: this.options.ovn.enable_distributed_floating_ip,
        metadataEnabled: this.options.ovn.metadata_enabled,
      },
      scheduleGateway: (router, external, current) => this.gateways.schedule(router, external, current),
    });
    const common = { nbView: this.nbView, desired, metrics: this.metrics, logger };
    this.sync = new NbSync({ ...common, nb: this.nb, reader: host.reader, mayWrite: () => this.owner.mayWrite() });
    this.retries = new PostcommitRetries({
      reconcile: (key) => this.sync.reconcile(key),
      isFinal: (error) => error instanceof NbNotOwned,
      logger,
    });
    this.repair = new RepairLoop({
      ...common,
      ovn: this.options.ovn,
      nb: this.nb,
      sync: this.sync,
      host,
      afterFullPass: (ports) => this.statusPass(ports),
    });
    this.nb.onChange((changes) => {
      this.owner.onNbChanges(changes);
      // Someone else's NB: its ports are not ours to report, its drift not ours to repair.
      if (!this.owner.mayWrite()) return;
      this.portStatus.onNbChanges(changes);
      this.repair.onNbChanges(changes);
    });
    this.sb.onChange((changes) => {
      this.gateways.onSbChanges(changes);
      this.virtualPorts.onSbChanges(changes);
    });
    // Every (re)connection may hide writes that failed while the NB was away, or an NB that came
    // back empty: compare everything then.
    // Only an NB this deployment owns (or has just claimed) is compared and written.
    this.nb.on('synced', () => {
      const trigger = this.nb.reconnects > 0 ? 'reconnect' : 'start';
      this.afterSync = this.owner.check().then(() => {
        if (!this.owner.mayWrite()) return;
        this.repair.requestFullSync(trigger);
        this.retries.retryNow();
      });
    });
    this.nb.on('disconnected', (reason) => {
      this.owner.forget();
      logger.warn({ err: reason?.message }, 'OVN NB connection lost; reconnecting');
    });
    // The API may open while OVN is still away: writes then wait in the database for the pass
    // that follows the first connection.
    const connected = Promise.all([this.nb.start(), this.sb.start()]).then(() => true);
    const waited = await Promise.race([connected, sleep(this.options.ovn.startup_wait * 1000, false, { ref: false })]);
    if (waited) {
      await this.afterSync;
      await this.repair.fullPassDone();
    } else
      logger.warn(
        { nb: this.options.ovn.nb_connection, sb: this.options.ovn.sb_connection },
        'OVN not reachable yet; serving the API and connecting in the background',
      );
    this.repair.startPeriodic();
  }

  /** The NB and SB connections and the NB's ownership (`/readyz`, which needs no token: no addresses). */
  readiness(): DependencyCheck[] {
    const connection = (name: string, client: OvsdbClient<NbTables> | OvsdbClient<SbTables>) => ({
      name,
      ready: client.connected,
      detail: client.connected ? 'connected' : 'not connected; reconnecting',
    });
    return [connection('ovn_nb', this.nb), connection('ovn_sb', this.sb), this.owner.readiness()];
  }

  /**
   * The database answers again after an outage: writes whose postcommit failed meanwhile are
   * retried now, and a full pass catches what failed outside them.
   */
  databaseRecovered(): void {
    if (this.stopped || !this.repair) return;
    this.retries.retryNow();
    this.repair.requestFullSync('database-recovered');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.retries?.stop();
    await this.repair?.stop();
    await this.sync?.idle();
    await Promise.all([this.nb.close(), this.sb.close()]);
  }

  /** Resolves when queued NB work is done (tests and the demo wait on it). */
  async settled(): Promise<void> {
    await this.afterSync;
    await this.repair.fullPassDone();
    await this.sync.idle();
  }

  // -------------------------------------------------------------------------------------------
  // Status from OVN (status/)

  /**
   * Ports whose status disagrees with their LSP, and virtual ports whose host disagrees with their
   * SB binding (events missed while away), are reported again. `ports`: the full pass's snapshot.
   */
  private async statusPass(ports: readonly PortState[]): Promise<void> {
    const byId = new Map(ports.map((port) => [port.id, port]));
    await this.portStatus.resync(ports);
    await this.virtualPorts.resync(
      (id) => this.nbView.switchPort(id)?.type === 'virtual',
      (id) => byId.get(id)?.['binding:host_id'],
    );
  }

  // -------------------------------------------------------------------------------------------
  // API writes

  /**
   * A write that fails here (the database or the NB went away after the commit) is retried by
   * resource key (`repair/retry.ts`): each failed reconcile's key, and the written resource's own
   * when what failed was something else (a read before any reconcile).
   */
  async postcommit(context: ResourceContext): Promise<void> {
    try {
      await this.afterWrite(context);
    } catch (error) {
      // Refused: said once when the NB's mark was read (nb-owner.ts), not at every write.
      if (error instanceof NbNotOwned) return;
      const key = contextKey(context);
      if (key) this.retries.schedule(key, error);
      if (error instanceof OvsdbNotConnected) return;
      throw error;
    }
  }

  /** A reconcile of the write path: on failure its key is retried (`postcommit`). */
  private reconcile = (key: ResourceKey) => this.retried(key, this.sync.reconcile(key));

  private async retried<T>(key: ResourceKey, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      this.retries.schedule(key, error);
      throw error;
    }
  }

  private async afterWrite(context: ResourceContext): Promise<void> {
    const { operation } = context;
    switch (context.resource) {
      case 'network': {
        const { current, original } = context;
        const id = current.id;
        await this.reconcile(keyOf('network', id));
        if (operation === 'create') await this.host.ensureMetadataPort(id);
        // Ports without a QoS policy of their own follow their network's (`qos_network_policy_id`).
        if (operation === 'update' && original && original.qos_policy_id !== current.qos_policy_id)
          await this.reconcilePorts((await this.host.reader.portsOfNetwork(id)).map((p) => p.id));
        if (operation === 'update' && original && original.mtu !== current.mtu) {
          for (const subnet of await this.host.reader.subnetsOfNetwork(id))
            await this.reconcile(keyOf('subnet', subnet.id));
          const metadata = await this.host.reader.metadataPort(id);
          if (metadata) await this.reconcile(keyOf('port', metadata.id));
        }
        return;
      }
      case 'subnet': {
        const subnet = context.current;
        // The metadata port follows the network's DHCP subnets first: its address is the DHCP server's.
        if (operation !== 'delete' || subnet.ip_version === 4) await this.host.ensureMetadataPort(subnet.network_id);
        await this.reconcile(keyOf('subnet', subnet.id));
        // A subnet write bumps its network's revision, which the switch carries.
        await this.reconcile(keyOf('network', subnet.network_id));
        if (operation === 'delete') {
          // The metadata port lost its address on the subnet without an update of its own.
          const metadata = await this.host.reader.metadataPort(subnet.network_id);
          if (metadata) await this.reconcile(keyOf('port', metadata.id));
        }
        return;
      }
      case 'port': {
        const { current: port, original } = context;
        if (operation === 'delete') await this.reconcile(keyOf('port', port.id));
        else await this.retried(keyOf('port', port.id), this.sync.reconcilePortFrom(port));
        if (operation === 'update') await this.portStatus.afterWrite(port);
        await this.afterRouterPortWrite(port, original);
        await this.afterAddressPairsWrite(port, original, operation);
        if (isMetadataPort(port)) {
          const subnets = new Set([...port.fixed_ips, ...(original?.fixed_ips ?? [])].map((ip) => ip.subnet_id));
          for (const subnet of subnets) await this.reconcile(keyOf('subnet', subnet));
        }
        return;
      }
      case 'security_group':
        return void (await this.reconcile(keyOf('security_group', context.current.id)));
      case 'security_group_rule':
        return void (await this.reconcile(keyOf('security_group', context.current.security_group_id)));
      case 'router':
        return void (await this.reconcile(keyOf('router', context.current.id)));
      case 'floatingip':
        return this.afterFloatingIpWrite(context.current, context.original, operation);
      case 'qos_policy':
        return this.reconcilePorts(await this.host.reader.portIdsUsingQosPolicy(context.current.id));
    }
  }

  private async reconcilePorts(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.reconcile(keyOf('port', id));
  }

  /**
   * A floating IP lives in its router's NAT rows: the routers it left and joined are reconciled,
   * then the ports it left and joined (their LSPs name it: `neutron:port_fip`, which the OVN
   * Octavia provider follows on a VIP port), then its status follows the data plane (ACTIVE once
   * its NAT row is in, DOWN otherwise).
   */
  private async afterFloatingIpWrite(
    fip: FloatingIpState,
    original: FloatingIpState | undefined,
    operation: ResourceContext['operation'],
  ): Promise<void> {
    const routers = new Set([fip.router_id, original?.router_id].filter((id): id is string => !!id));
    for (const router of routers) await this.reconcile(keyOf('router', router));
    const ports = new Set([fip.port_id, original?.port_id].filter((id): id is string => !!id));
    for (const port of ports) await this.reconcile(keyOf('port', port));
    if (operation === 'delete') return;
    const status = floatingIpStatus(this.nb.replica, fip.id);
    if (status === fip.status) return;
    await this.host.reportFloatingIpStatus(fip.id, status);
    // The status write bumped the revision that the NAT row carries: stamp it now rather than
    // leave it to the next full pass.
    if (fip.router_id) await this.reconcile(keyOf('router', fip.router_id));
  }

  /**
   * A port's allowed address pairs make the ports holding those addresses virtual (or stop making
   * them so): when the pairs change, or the port comes or goes, those ports are written again.
   */
  private async afterAddressPairsWrite(
    port: PortState,
    original: PortState | undefined,
    operation: ResourceContext['operation'],
  ): Promise<void> {
    const addressesOf = (p: PortState | undefined) =>
      new Set((p?.allowed_address_pairs ?? []).map((a) => a.ip_address));
    const before = operation === 'create' ? new Set<string>() : addressesOf(original ?? port);
    const after = operation === 'delete' ? new Set<string>() : addressesOf(port);
    const changed = [...new Set([...before, ...after])].filter((ip) => before.has(ip) !== after.has(ip));
    if (changed.length === 0) return;
    for (const holder of await this.host.reader.portsWithAddresses(port.network_id, changed)) {
      if (holder.id !== port.id) await this.reconcile(keyOf('port', holder.id));
    }
  }

  /** A router port's owner: its LRP lives with the router. */
  private async afterRouterPortWrite(port: PortState, original: PortState | undefined): Promise<void> {
    const routers = new Set(
      [port, original]
        .filter((p): p is PortState => !!p && isRouterPort(p))
        .map((p) => p.device_id)
        .filter(Boolean),
    );
    for (const router of routers) await this.reconcile(keyOf('router', router));
  }

  // -------------------------------------------------------------------------------------------
  // Chassis: binding and agents (status/chassis-agents.ts)

  /** VIPs written in `learned-mac` mode, from the NB rows that mark them. */
  private learnedVips(): LearnedVip[] {
    const { ovn } = this.options;
    if (resolveVipFailover(ovn.vip_failover, ovn.enable_distributed_floating_ip) !== 'learned-mac') return [];
    const vips: LearnedVip[] = [];
    for (const row of this.nb.replica.table('Logical_Switch_Port').values()) {
      const ip = row.external_ids[LEARNED_VIP_EXT_ID];
      if (ip) vips.push({ portId: row.name, ip });
    }
    return vips;
  }

  virtualPortHolders(): ReadonlyMap<string, VirtualPortHolder> {
    return this.virtualPorts.holders();
  }

  /**
   * SB changes the topology shows: chassis coming and going, ports (gateway and virtual ones)
   * moving between chassis, and routers' MAC bindings (a learned-MAC VIP's holder is the port whose
   * MAC a router learned for it). Heartbeats (Chassis_Private updates) are left out: they come all the time.
   */
  watchDataPlane(listener: () => void): () => void {
    return this.sb.onChange((changes) => {
      const shown = (c: RowChange<SbTables>) =>
        c.table === 'Chassis' ||
        c.table === 'Port_Binding' ||
        c.table === 'MAC_Binding' ||
        (c.table === 'Chassis_Private' && c.kind !== 'modify');
      if (changes.some(shown)) listener();
    });
  }

  bindPort(port: PortState): PortBinding | undefined {
    return this.chassis.bindPort(port);
  }

  get agents(): AgentProvider {
    return { ...this.chassis.provider, l3AgentsOfRouter: (id) => this.gateways.l3AgentsOfRouter(id) };
  }
}

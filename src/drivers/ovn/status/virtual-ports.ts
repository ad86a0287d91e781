/**
 * Where each virtual port (a load balancer's VIP) lives now. OVN binds a virtual port to the
 * chassis of whichever parent last announced the address (keepalived's gratuitous ARP), and records
 * that parent in the SB `Port_Binding.virtual_parent`. This module follows those bindings and hands
 * the chassis to core as the port's `binding:host_id` (ML2/OVN's `PortBindingUpdateVirtualPortsEvent`
 * and `update_virtual_port_host`, Zed), and logs one line per move: the data plane already moved, so
 * nothing here is on the failover path; it only tells the API (and the operator) where the VIP went.
 */
import type { Logger } from 'pino';
import type { DriverHost } from '../../host.js';
import type { ChassisRow, MacBindingRow, OvsdbClient, PortBindingRow, RowChange, SbTables } from '../ovsdb/index.js';

/** Where a virtual port is held: the holding chassis's hostname and the parent port, or nowhere. */
export interface VirtualPortLocation {
  readonly host: string;
  readonly parent: string;
}

const NOWHERE: VirtualPortLocation = { host: '', parent: '' };

/** A VIP written in `learned-mac` mode: its port and address (from its NB row). */
export interface LearnedVip {
  readonly portId: string;
  readonly ip: string;
}

export interface VirtualPortsDeps {
  readonly sb: OvsdbClient<SbTables>;
  /** The VIPs written in `learned-mac` mode (none in `virtual-port` mode). */
  readonly learnedVips: () => readonly LearnedVip[];
  readonly host: () => DriverHost;
  readonly logger: Logger;
  readonly stopped: () => boolean;
}

export class VirtualPortLocations {
  /** What was last reported per port, so a move is logged once and repeats cost nothing. */
  private readonly reported = new Map<string, VirtualPortLocation>();

  constructor(private readonly deps: VirtualPortsDeps) {}

  /**
   * The SB client's change listener: virtual bindings that changed chassis or parent, and (in
   * `learned-mac` mode) MAC bindings the routers learned for a VIP.
   */
  onSbChanges(changes: readonly RowChange<SbTables>[]): void {
    const learnedIps = new Set<string>();
    for (const change of changes) {
      if (change.table === 'MAC_Binding') learnedIps.add(((change.row ?? change.old) as MacBindingRow).ip);
    }
    if (learnedIps.size > 0) {
      for (const vip of this.deps.learnedVips()) {
        if (learnedIps.has(vip.ip)) void this.report(vip.portId, this.locateLearned(vip));
      }
    }
    for (const change of changes) {
      if (change.table !== 'Port_Binding') continue;
      const row = change.row as PortBindingRow | undefined;
      const old = change.old as Partial<PortBindingRow> | undefined;
      const virtualNow = row?.type === 'virtual';
      // A delete carries the whole old row; a modify only the columns that changed.
      const virtualBefore = (old?.type ?? row?.type) === 'virtual';
      if (!virtualNow && !virtualBefore) continue;
      const port = (row ?? old)!.logical_port!;
      void this.report(port, virtualNow ? this.locate(row) : NOWHERE);
    }
  }

  /** Reports every virtual binding again (events missed while disconnected); the full pass calls it. */
  async resync(
    isVirtualPort: (portId: string) => boolean,
    hostOf: (portId: string) => string | undefined,
  ): Promise<void> {
    const seen = new Set<string>();
    for (const [portId, location] of this.locations()) {
      seen.add(portId);
      if (hostOf(portId) !== location.host) await this.report(portId, location, true);
    }
    // A port that stopped being virtual (its last parent left) is held nowhere.
    for (const port of this.reported.keys()) {
      if (!seen.has(port) && !isVirtualPort(port)) await this.report(port, NOWHERE, true);
    }
  }

  /** Every virtual port held right now, by port id, as the SB says (for the topology feed). */
  holders(): Map<string, VirtualPortLocation> {
    const held = new Map<string, VirtualPortLocation>();
    for (const [portId, location] of this.locations()) if (location.host) held.set(portId, location);
    return held;
  }

  /** Where every VIP is (held or not): the virtual bindings, then the learned VIPs. */
  private *locations(): Generator<[string, VirtualPortLocation]> {
    for (const row of this.deps.sb.replica.table<PortBindingRow>('Port_Binding').values()) {
      if (row.type === 'virtual') yield [row.logical_port, this.locate(row)];
    }
    for (const vip of this.deps.learnedVips()) yield [vip.portId, this.locateLearned(vip)];
  }

  /**
   * A learned VIP is held by the port on its network whose MAC the routers last learned for its
   * address (the newest MAC binding: after a failover, the new master's gratuitous ARP updates it),
   * on that port's chassis. Until traffic crosses a router to or from the VIP it is held nowhere as
   * far as OVN knows: routers are written with `always_learn_from_arp_request=false` (as ML2/OVN
   * does), so a gratuitous ARP updates a binding but never creates one; the router's first ARP
   * for the VIP, answered by the master, does.
   */
  private locateLearned(vip: LearnedVip): VirtualPortLocation {
    const sb = this.deps.sb.replica;
    const own = sb.findOne<PortBindingRow>('Port_Binding', 'logical_port', vip.portId);
    if (!own) return NOWHERE;
    let newest: MacBindingRow | undefined;
    for (const binding of sb.table<MacBindingRow>('MAC_Binding').values()) {
      if (binding.ip === vip.ip && (!newest || binding.timestamp > newest.timestamp)) newest = binding;
    }
    if (!newest) return NOWHERE;
    const mac = newest.mac.toLowerCase();
    for (const row of sb.table<PortBindingRow>('Port_Binding').values()) {
      if (row.datapath !== own.datapath || row.type !== '' || row.logical_port === vip.portId) continue;
      if (!row.mac.some((entry) => entry.toLowerCase().split(' ')[0] === mac)) continue;
      if (!row.chassis) return NOWHERE;
      const chassis = sb.get<ChassisRow>('Chassis', row.chassis);
      return { host: chassis?.hostname || chassis?.name || '', parent: row.logical_port };
    }
    return NOWHERE;
  }

  private locate(row: PortBindingRow): VirtualPortLocation {
    const parent = row.virtual_parent ?? '';
    if (!row.chassis || !parent) return NOWHERE;
    const chassis = this.deps.sb.replica.get<ChassisRow>('Chassis', row.chassis);
    // Neutron reports the chassis's hostname (what Nova calls the host), falling back to its name.
    return { host: chassis?.hostname || chassis?.name || '', parent };
  }

  /**
   * Hands the location to core and logs the move: when core changed the port, and also when only
   * the parent changed (two amphorae on one node: the host stays, the VIP still moved).
   */
  private async report(portId: string, location: VirtualPortLocation, force = false): Promise<void> {
    const before = this.reported.get(portId);
    const moved = before?.host !== location.host || before?.parent !== location.parent;
    if (!force && before && !moved) return;
    if (this.deps.stopped()) return;
    if (location.host) this.reported.set(portId, location);
    else this.reported.delete(portId);
    try {
      const host = this.deps.host();
      let port = await host.reportVirtualPortHost(portId, location.host);
      if (!port && before && moved) port = await host.reader.port(portId);
      if (!port) return;
      const vip = port.fixed_ips.map((ip) => ip.ip_address).join(',');
      const what = port.device_owner === 'Octavia' ? 'load balancer VIP' : 'virtual port';
      this.deps.logger.info(
        { port: portId, vip, from: before?.host || null, to: location.host || null, parent: location.parent || null },
        location.host
          ? `${what} ${vip} is now held by port ${location.parent} on ${location.host}`
          : `${what} ${vip} is held by no port`,
      );
    } catch (error) {
      // The next full pass reports it again.
      this.reported.delete(portId);
      this.deps.logger.warn({ err: error, port: portId }, 'virtual port host update failed');
    }
  }
}

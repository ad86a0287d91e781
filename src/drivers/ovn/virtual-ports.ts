/**
 * Where each virtual port (a load balancer's VIP) lives now. OVN binds a virtual port to the
 * chassis of whichever parent last announced the address (keepalived's gratuitous ARP), and records
 * that parent in the SB `Port_Binding.virtual_parent`. This module follows those bindings and hands
 * the chassis to core as the port's `binding:host_id` (ML2/OVN's `PortBindingUpdateVirtualPortsEvent`
 * and `update_virtual_port_host`, Zed), and logs one line per move: the data plane already moved, so
 * nothing here is on the failover path; it only tells the API (and the operator) where the VIP went.
 */
import type { Logger } from 'pino';
import type { DriverHost } from '../host.js';
import type { ChassisRow, OvsdbClient, PortBindingRow, RowChange, SbTables } from './ovsdb/index.js';

/** Where a virtual port is held: the holding chassis's hostname and the parent port, or nowhere. */
export interface VirtualPortLocation {
  readonly host: string;
  readonly parent: string;
}

const NOWHERE: VirtualPortLocation = { host: '', parent: '' };

export interface VirtualPortsDeps {
  readonly sb: OvsdbClient<SbTables>;
  readonly host: () => DriverHost;
  readonly logger: Logger;
  readonly stopped: () => boolean;
}

export class VirtualPortLocations {
  /** What was last reported per port, so a move is logged once and repeats cost nothing. */
  private readonly reported = new Map<string, VirtualPortLocation>();

  constructor(private readonly deps: VirtualPortsDeps) {}

  /** The SB client's change listener: virtual bindings that changed chassis or parent. */
  onSbChanges(changes: readonly RowChange<SbTables>[]): void {
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
    const bindings = this.deps.sb.replica.table<PortBindingRow>('Port_Binding');
    const seen = new Set<string>();
    for (const row of bindings.values()) {
      if (row.type !== 'virtual') continue;
      seen.add(row.logical_port);
      const location = this.locate(row);
      if (hostOf(row.logical_port) !== location.host) await this.report(row.logical_port, location, true);
    }
    // A port that stopped being virtual (its last parent left) is held nowhere.
    for (const port of this.reported.keys()) {
      if (!seen.has(port) && !isVirtualPort(port)) await this.report(port, NOWHERE, true);
    }
  }

  private locate(row: PortBindingRow): VirtualPortLocation {
    const parent = row.virtual_parent ?? '';
    if (!row.chassis || !parent) return NOWHERE;
    const chassis = this.deps.sb.replica.get<ChassisRow>('Chassis', row.chassis);
    // Neutron reports the chassis's hostname (what Nova calls the host), falling back to its name.
    return { host: chassis?.hostname || chassis?.name || '', parent };
  }

  private async report(portId: string, location: VirtualPortLocation, force = false): Promise<void> {
    const before = this.reported.get(portId);
    if (!force && before && before.host === location.host && before.parent === location.parent) return;
    if (this.deps.stopped()) return;
    if (location.host) this.reported.set(portId, location);
    else this.reported.delete(portId);
    try {
      const port = await this.deps.host().reportVirtualPortHost(portId, location.host);
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

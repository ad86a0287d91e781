/**
 * A port's status from OVN: its VIF came up or went down (`Logical_Switch_Port.up`, set by northd
 * once a chassis claims the port), which core turns into ACTIVE / DOWN. Followed on the NB monitor,
 * and compared again after every full pass for what was missed while away. A VIP's status follows
 * who holds it instead (`virtual-ports.ts`).
 */
import type { Logger } from 'pino';
import type { DriverHost, PortState } from '../../host.js';
import { LEARNED_VIP_EXT_ID } from '../mapping.js';
import type { OvnMetrics } from '../metrics.js';
import { isNeutronPort, type NbView } from '../nb-view.js';
import type { LogicalSwitchPortRow, NbTables, RowChange } from '../ovsdb/index.js';

/** A Neutron port's VIF is up when a chassis bound it and the port is enabled. */
function isPortUp(row: Pick<LogicalSwitchPortRow, 'up' | 'enabled'>): boolean {
  return row.up === true && row.enabled !== false;
}

export interface PortStatusDeps {
  readonly nbView: NbView;
  readonly host: () => DriverHost;
  readonly metrics: OvnMetrics;
  readonly logger: Logger;
}

export class PortStatus {
  constructor(private readonly deps: PortStatusDeps) {}

  /** The NB client's change listener. Never throws; the reports run in the background. */
  onNbChanges(changes: readonly RowChange<NbTables>[]): void {
    for (const change of changes) this.reportStatus(change);
  }

  /** Ports whose status disagrees with their LSP (events missed while away) are reported again. */
  async resync(ports: readonly PortState[]): Promise<void> {
    for (const port of ports) {
      const lsp = this.deps.nbView.switchPort(port.id);
      // A VIP's status follows who holds it (virtual-ports.ts), not a VIF.
      if (!lsp || !isNeutronPort(lsp) || lsp.type === 'virtual' || lsp.external_ids[LEARNED_VIP_EXT_ID]) continue;
      const up = isPortUp(lsp);
      if (up !== (port.status === 'ACTIVE')) await this.deps.host().reportPortUp(port.id, up);
    }
  }

  /**
   * After core wrote a port: a status set DOWN while its LSP is up (a live migration's activation
   * sets it DOWN, and the VIF may be up on the target already, so no LSP change would follow) is
   * reported up again at once, as ML2/OVN's `update_port_postcommit` does for a migrating port,
   * rather than at the next full pass.
   */
  async afterWrite(port: PortState): Promise<void> {
    if (port.status === 'ACTIVE') return;
    const lsp = this.deps.nbView.switchPort(port.id);
    if (!lsp || !isNeutronPort(lsp) || lsp.type !== '' || lsp.external_ids[LEARNED_VIP_EXT_ID]) return;
    if (isPortUp(lsp)) await this.deps.host().reportPortUp(port.id, true);
  }

  private reportStatus(change: RowChange<NbTables>): void {
    if (change.table !== 'Logical_Switch_Port' || change.kind === 'delete') return;
    const row = change.row!;
    if (!isNeutronPort(row) || !['', 'virtual', 'router'].includes(row.type)) return;
    // A learned-MAC VIP is never bound: who holds it decides its status (virtual-ports.ts).
    if (row.external_ids[LEARNED_VIP_EXT_ID]) return;
    const up = isPortUp(row);
    const before = change.old
      ? isPortUp({ ...(change.old as LogicalSwitchPortRow), ...pickDefined(row, change.old) })
      : false;
    if (up === before) return;
    this.deps.metrics.portStatusChanges.inc({ status: up ? 'up' : 'down' });
    this.deps
      .host()
      .reportPortUp(row.name, up)
      .catch((error: unknown) => this.deps.logger.warn({ err: error, port: row.name }, 'port status update failed'));
  }
}

/** `old` of a modify holds only the changed columns in some replicas; complete it from `row`. */
function pickDefined(row: object, old: object): object {
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(row)) if (!(key in old)) result[key] = (row as Record<string, unknown>)[key];
  return result;
}

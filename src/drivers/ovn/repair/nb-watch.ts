/**
 * Follows the NB monitor for drift: a row octonet owns changed or vanished (by hand, a restarted
 * NB, another writer). The resource it belongs to is checked against what was last written and
 * repaired from the database at once; a burst too large for one-by-one repair becomes a full pass
 * instead. (The same monitor's port status, `Logical_Switch_Port.up`, is `../status/port-status.ts`.)
 *
 * The in-sync checks run in slices of `sliceSize` keys with the event loop free in between: after a
 * full pass into an empty NB every row echoes back, and checking 100,000 ports in one go held the
 * loop (and the API) for 5–29 s.
 */
import type { Logger } from 'pino';
import { DROP_PORT_GROUP } from '../mapping.js';
import { isNeutronPort } from '../nb-view.js';
import type { NbTables, PortGroupRow, RowChange } from '../ovsdb/index.js';
import type { NbSync } from './nb-sync.js';
import { keyOf, type ResourceKey } from './resource-key.js';

/** More resources than this out of line at once are repaired by one full pass. */
const FULL_PASS_THRESHOLD = 200;
/** Keys checked per turn of the event loop (a digest check is ~10 µs; a plan still held costs more). */
const SLICE_SIZE = 1000;

export interface NbWatchOptions {
  readonly sync: Pick<NbSync, 'isInSync' | 'checkDrift' | 'nbView'>;
  readonly logger: Logger;
  /** Asks for a full pass (drift too large to repair one resource at a time). */
  readonly requestFullSync: (trigger: string) => void;
  /** Keys checked per slice of a sweep (default `SLICE_SIZE`; tests use small slices). */
  readonly sliceSize?: number;
}

export class NbWatch {
  private readonly pending = new Set<ResourceKey>();
  /** Keys the sweep under way found out of line (repaired when it ends). */
  private readonly drifted = new Set<ResourceKey>();
  private flushScheduled = false;
  private paused = false;

  constructor(private readonly options: NbWatchOptions) {}

  /** The NB client's change listener. Never throws; work happens after the current tick. */
  onChanges(changes: readonly RowChange<NbTables>[]): void {
    for (const change of changes) {
      for (const key of this.keysOf(change)) this.pending.add(key);
    }
    this.schedule();
  }

  /** Holds drift checks (during a full pass, which compares everything anyway). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.flushScheduled || this.paused || this.pending.size === 0) return;
    this.flushScheduled = true;
    setImmediate(() => this.sweepSlice());
  }

  /**
   * Checks the next slice of pending keys. Keys found out of line gather over the whole sweep
   * (keys that arrive meanwhile join it), so a burst is judged as one whatever its slicing: past
   * `FULL_PASS_THRESHOLD` it becomes a full pass at once; otherwise, once nothing is pending, each
   * is repaired on its own.
   */
  private sweepSlice(): void {
    this.flushScheduled = false;
    // Paused for a full pass: what is left stays pending for the sweep after it (its keys are
    // checked then, against the pass's writes).
    if (this.paused) return;
    const sliceSize = this.options.sliceSize ?? SLICE_SIZE;
    let checked = 0;
    // Most changes are our own writes echoing back, or columns we do not own (`up`): those
    // resources still match what was written and cost nothing more here.
    for (const key of this.pending) {
      this.pending.delete(key);
      if (!this.options.sync.isInSync(key)) this.drifted.add(key);
      if (++checked >= sliceSize) break;
    }
    if (this.drifted.size > FULL_PASS_THRESHOLD) {
      this.drifted.clear();
      this.pending.clear();
      return this.options.requestFullSync('drift');
    }
    if (this.pending.size > 0) return this.schedule();
    const keys = [...this.drifted];
    this.drifted.clear();
    for (const key of keys) {
      this.options.sync
        .checkDrift(key)
        .catch((error: unknown) =>
          this.options.logger.warn({ err: error, resource: key }, 'OVN repair failed; the next full pass retries'),
        );
    }
  }

  /** Which resources a changed NB row belongs to. */
  private keysOf(change: RowChange<NbTables>): ResourceKey[] {
    const nb = this.options.sync.nbView;
    switch (change.table) {
      case 'Logical_Switch': {
        const row = (change.row ?? change.old)!;
        return row.name.startsWith('neutron-') ? [keyOf('network', row.name.slice('neutron-'.length))] : [];
      }
      case 'Logical_Switch_Port': {
        const row = (change.row ?? change.old)!;
        if (isNeutronPort(row)) return [keyOf('port', row.name)];
        if (row.name.startsWith('provnet-') && change.row) {
          const owner = nb.switchOf(change.uuid);
          if (owner?.name.startsWith('neutron-')) return [keyOf('network', owner.name.slice('neutron-'.length))];
        }
        return [];
      }
      case 'DHCP_Options': {
        const ids = (change.row ?? change.old)!.external_ids;
        if (ids.port_id) return [keyOf('port', ids.port_id)];
        return ids.subnet_id ? [keyOf('subnet', ids.subnet_id)] : [];
      }
      case 'Port_Group':
        return groupKeys((change.row ?? change.old)!);
      case 'ACL': {
        const group = nb.groupOfAcl(change.uuid);
        return group ? groupKeys(group) : [];
      }
      case 'Logical_Router':
        return routerKeys((change.row ?? change.old)!.name);
      case 'Logical_Router_Port':
        return routerKeys(nb.routerOfPort(change.uuid)?.name);
      case 'NAT':
        return routerKeys(nb.routerOfNat(change.uuid)?.name);
      case 'Logical_Router_Static_Route':
        return routerKeys(nb.routerOfRoute(change.uuid)?.name);
      case 'Gateway_Chassis': {
        const lrp = nb.routerPortOfGatewayChassis(change.uuid);
        return routerKeys(lrp ? nb.routerOfPort(lrp._uuid)?.name : undefined);
      }
      // Groups an older octonet wrote: the router's repair removes them.
      case 'HA_Chassis_Group': {
        const id = (change.row ?? change.old)!.external_ids['neutron:router_id'];
        return id ? [keyOf('router', id)] : [];
      }
      case 'HA_Chassis':
        return routerKeys(nb.groupOfHaChassis(change.uuid)?.name);
      case 'QoS': {
        const id = (change.row ?? change.old)!.external_ids['neutron:port_id'];
        return id ? [keyOf('port', id)] : [];
      }
      default:
        return [];
    }
  }
}

/** `neutron-<router id>` → the router's key. */
function routerKeys(name: string | undefined): ResourceKey[] {
  return name?.startsWith('neutron-') ? [keyOf('router', name.slice('neutron-'.length))] : [];
}

function groupKeys(group: PortGroupRow): ResourceKey[] {
  if (group.name === DROP_PORT_GROUP) return ['drop'];
  const id = group.external_ids['neutron:security_group_id'];
  return id ? [keyOf('security_group', id)] : [];
}

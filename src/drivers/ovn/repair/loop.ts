/**
 * The repair loop: watch → plan → transact. Drift seen on the NB monitor is repaired resource by
 * resource (`nb-watch.ts` → `nb-sync.ts`); a full pass (`full-sync.ts`) runs at start, after every
 * reconnect, periodically, and when drift is too large for one-by-one repair, on one replica at a
 * time. After each full pass, the statuses OVN reports are compared again (`afterFullPass`).
 *
 * A pass plans against the NB replica of one session: it does not start while the NB is away (the
 * reconnect's pass follows), and it stops at its next write once the client has reconnected, since
 * the replica it planned against was replaced by the new session's snapshot (rows written
 * meanwhile by other replicas would otherwise be inserted again and refused).
 */
import type { Logger } from 'pino';
import type { OvnConfig } from '../../../config/config.js';
import type { DriverHost, PortState } from '../../host.js';
import type { OvnMetrics } from '../metrics.js';
import type { NbView } from '../nb-view.js';
import { OvsdbNotConnected, type NbTables, type Operation, type OvsdbClient, type RowChange } from '../ovsdb/index.js';
import type { DesiredState } from './desired-state.js';
import { fullSync, type FullSyncReport, type FullSyncResult, type NbWriter } from './full-sync.js';
import type { NbSync } from './nb-sync.js';
import { NbWatch } from './nb-watch.js';

/** Only one replica runs the periodic full pass at a time. */
const FULL_SYNC_LOCK = 'octonet:ovn-full-sync';
/** How soon a replica that found another's pass running tries its own again. */
const LOCKED_RETRY_MS = 1000;
/**
 * Passes that need not run when another replica's is running: theirs reads the database after the
 * cause anyway (the periodic one; the database's recovery, whose failed writes are also retried
 * one by one). Any other trigger runs its own once theirs is over.
 */
const SKIPPABLE_WHEN_LOCKED = new Set(['periodic', 'database-recovered']);

/** The NB session a pass planned against was replaced (a reconnect) before it finished. */
class NbReplicaReplaced extends OvsdbNotConnected {
  override name = 'NbReplicaReplaced';
  constructor() {
    super('OVN_Northbound');
    this.message = 'the OVN NB reconnected during the full pass; the pass after the reconnect compares again';
  }
}

export interface RepairLoopOptions {
  readonly ovn: Pick<OvnConfig, 'full_sync_interval' | 'bfd_min_rx' | 'bfd_min_tx' | 'bfd_mult'>;
  readonly nb: OvsdbClient<NbTables>;
  readonly nbView: NbView;
  readonly desired: DesiredState;
  readonly sync: NbSync;
  readonly host: DriverHost;
  readonly metrics: OvnMetrics;
  readonly logger: Logger;
  /**
   * Runs inside the full pass's lock, after it, with the ports of the snapshot the pass compared:
   * statuses missed while away are reported again. (A status that changed during the pass was
   * reported as it changed; the reports re-read the row and write only a difference.)
   */
  readonly afterFullPass: (ports: readonly PortState[]) => Promise<void>;
}

export class RepairLoop {
  private readonly watch: NbWatch;
  private periodic: NodeJS.Timeout | undefined;
  private fullSyncRunning: Promise<void> | undefined;
  private fullSyncAgain: string | undefined;
  private lockedRetry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: RepairLoopOptions) {
    this.watch = new NbWatch({
      sync: options.sync,
      logger: options.logger,
      requestFullSync: (trigger) => this.requestFullSync(trigger),
    });
  }

  /** The NB client's change listener (drift). */
  onNbChanges(changes: readonly RowChange<NbTables>[]): void {
    this.watch.onChanges(changes);
  }

  /** Starts the periodic full pass (`full_sync_interval` seconds; 0 turns it off). */
  startPeriodic(): void {
    const interval = this.options.ovn.full_sync_interval;
    if (interval > 0) {
      this.periodic = setInterval(() => this.requestFullSync('periodic'), interval * 1000);
      this.periodic.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.periodic) clearInterval(this.periodic);
    if (this.lockedRetry) clearTimeout(this.lockedRetry);
    await this.fullSyncRunning;
  }

  /** Resolves when the running full pass (if any) is done. */
  async fullPassDone(): Promise<void> {
    await this.fullSyncRunning;
  }

  requestFullSync(trigger: string): void {
    if (this.stopped) return;
    if (this.fullSyncRunning) {
      this.fullSyncAgain = trigger;
      return;
    }
    this.fullSyncRunning = this.runFullSync(trigger).finally(() => {
      this.fullSyncRunning = undefined;
      const again = this.fullSyncAgain;
      this.fullSyncAgain = undefined;
      if (again) this.requestFullSync(again);
    });
  }

  private retryWhenUnlocked(trigger: string): void {
    if (this.stopped || this.lockedRetry) return;
    this.lockedRetry = setTimeout(() => {
      this.lockedRetry = undefined;
      this.requestFullSync(trigger);
    }, LOCKED_RETRY_MS);
    this.lockedRetry.unref();
  }

  /** Compares the whole database with the NB and writes every difference, now (no lock, no report). */
  async fullSync(): Promise<FullSyncReport> {
    return (await this.compareAll()).report;
  }

  private compareAll(): Promise<FullSyncResult> {
    const { nbView, desired, host, metrics, logger } = this.options;
    return fullSync({ writer: this.sessionWriter(), nbView, desired, reader: host.reader, metrics, logger });
  }

  /**
   * The NB writer of one pass, bound to the NB session it starts in: a write after a reconnect
   * would carry operations planned against the replica the new session's snapshot replaced.
   */
  private sessionWriter(): NbWriter {
    const { nb, sync } = this.options;
    const session = nb.reconnects;
    return {
      remember: (key, plan, inSync) => sync.remember(key, plan, inSync),
      transact: async (ops: readonly Operation[]) => {
        if (nb.reconnects !== session) throw new NbReplicaReplaced();
        await sync.transact(ops);
      },
    };
  }

  /** `NB_Global.options` that octonet's config sets (BFD timers); other keys are left alone. */
  private async ensureGlobalOptions(): Promise<void> {
    const { ovn } = this.options;
    const wanted: Record<string, string> = {};
    if (ovn.bfd_min_rx !== undefined) wanted['bfd-min-rx'] = String(ovn.bfd_min_rx);
    if (ovn.bfd_min_tx !== undefined) wanted['bfd-min-tx'] = String(ovn.bfd_min_tx);
    if (ovn.bfd_mult !== undefined) wanted['bfd-mult'] = String(ovn.bfd_mult);
    const global = [...this.options.nb.replica.table('NB_Global').values()][0];
    if (!global || Object.entries(wanted).every(([k, v]) => global.options[k] === v)) return;
    await this.options.sync.transact([
      {
        op: 'update',
        table: 'NB_Global',
        where: [['_uuid', '==', global._uuid]],
        row: { options: { ...global.options, ...wanted } },
      },
    ]);
  }

  private async runFullSync(trigger: string): Promise<void> {
    const { logger, metrics } = this.options;
    // Another deployment's NB (nb-owner.ts): nothing to compare, and the refusal was logged once.
    if (!this.options.sync.mayWrite()) return;
    // The replica is the last session's, maybe missing what others wrote since: the pass that
    // follows the reconnect (and its fresh snapshot) compares.
    if (!this.options.nb.connected) {
      logger.debug({ trigger }, 'OVN NB not connected; the full pass waits for the reconnect');
      return;
    }
    this.watch.pause();
    try {
      await this.ensureGlobalOptions();
      const ran = await this.options.host.exclusively(FULL_SYNC_LOCK, async () => {
        const { report, ports } = await this.compareAll();
        metrics.fullSyncs.inc({ trigger });
        const changed = report.created + report.updated + report.deleted;
        for (const action of ['created', 'updated', 'deleted'] as const) {
          if (report[action] > 0 && trigger !== 'start')
            metrics.repairs.inc({ resource: 'full-pass', action }, report[action]);
        }
        (changed > 0 && trigger !== 'start' ? logger.warn.bind(logger) : logger.info.bind(logger))(
          { trigger, ...report },
          changed > 0 ? 'OVN NB brought in line with the database' : 'OVN NB matches the database',
        );
        await this.options.afterFullPass(ports);
      });
      if (!ran) {
        logger.debug({ trigger }, 'another replica is running the full OVN pass');
        // That pass may have read the database before a write of ours that never reached the NB
        // (the NB leader died under it), so ours runs once theirs is over.
        if (!SKIPPABLE_WHEN_LOCKED.has(trigger)) this.retryWhenUnlocked(trigger);
      }
    } catch (error) {
      const level = error instanceof OvsdbNotConnected ? 'warn' : 'error';
      logger[level](
        { err: error, trigger },
        'full OVN pass failed; it runs again on reconnect or at the next interval',
      );
    } finally {
      this.watch.resume();
    }
  }
}

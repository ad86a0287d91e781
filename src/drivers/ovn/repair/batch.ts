/**
 * The full pass's NB writes: plans collected into large transactions, a few of them in flight at
 * once, sized from how quickly the NB answers (`BatchPacer`). Owns batching and pacing only; what
 * to write is `full-sync.ts`'s.
 */
import type { Logger } from 'pino';
import { OvsdbTransactionError, type Operation } from '../ovsdb/index.js';
import type { Outcome, Plan } from '../planner.js';
import type { ResourceKey } from './resource-key.js';

/**
 * What the full pass needs of the per-resource repair (`NbSync`): to leave each resource's drift
 * check behind, and to write through the same transaction path (merging, metrics).
 */
export interface NbWriter {
  /** `inSync`: the plan was just found to need no write. */
  remember(key: ResourceKey, plan: () => Plan, inSync?: boolean): void;
  transact(ops: readonly Operation[]): Promise<void>;
}

/**
 * Transaction size and depth of the pipeline. Few large transactions are far cheaper than many
 * small ones, for ovsdb-server and for us alike: each one that adds ports to a port group holding
 * every port copies that set (in ovsdb-server, in its log, in our replica's echo of it), so 100,000
 * ports in transactions of 500 copied a set of up to 100,000 uuids 200 times, per group. But one
 * transaction keeps the single-threaded ovsdb-server busy, and silent to every client, for as long
 * as it takes: on a loaded machine that must stay well under the probe intervals of its clients
 * (ovn-northd's, ours, the other API replicas'), and its answer under our call timeout.
 *
 * So: start large; when an answer comes slower than `slowMs`, halve the size and keep one
 * transaction in flight; when answers come fast again, grow back.
 *
 * But never below `floor`: a transaction's cost has a part that grows with the sets it mutates,
 * not with what it adds. Measured at 100,000 ports in 1,000 networks (2026-11-26, `sync-profile.ts`):
 * the same pass in 202 transactions instead of 27 cost the NB ovsdb-server +55 % CPU, ovn-northd
 * +90 %, the SB +130 % and octonet +70 %, and took 2.5× as long; halving under load made the load
 * worse. `floorFor` keeps each transaction's own work well above that fixed part.
 */
export class BatchPacer {
  static readonly MAX_OPERATIONS = 16_000;
  static readonly MIN_OPERATIONS = 500;
  static readonly MAX_IN_FLIGHT = 3;
  /** Operations per transaction now. */
  operations = BatchPacer.MAX_OPERATIONS;
  /** Transactions sent before the first of them must be answered. */
  inFlight = BatchPacer.MAX_IN_FLIGHT;

  constructor(
    private readonly slowMs = 4000,
    private readonly fastMs = 1000,
    private readonly floor = BatchPacer.MIN_OPERATIONS,
  ) {}

  /**
   * The smallest transaction worth sending while the largest set a transaction mutates (the
   * port groups every port joins: `neutron_pg_drop`, a default security group) holds up to
   * `largestSet` members: one operation for every 8 members (at 100,000 ports each transaction
   * then adds ~2,000 ports, ~0.4 s of the NB's time, against ~0.13 s, estimated from the
   * 202-transaction run, for copying and diffing those two sets), between `MIN_OPERATIONS` and
   * half of `MAX_OPERATIONS` (one halving stays possible, for an NB that answers slowly under load).
   */
  static floorFor(largestSet: number): number {
    return Math.min(BatchPacer.MAX_OPERATIONS / 2, Math.max(BatchPacer.MIN_OPERATIONS, Math.ceil(largestSet / 8)));
  }

  /**
   * One transaction's answer came `ms` after it was sent, with `queued` others sent before it
   * still open, when the size was `sentAt`. Returns whether the size changed.
   */
  answered(ms: number, queued: number, sentAt = this.operations): boolean {
    const before = this.operations;
    // The wait includes the transactions ahead of it on the same connection: judge its own share.
    const own = ms / (queued + 1);
    if (own > this.slowMs) {
      // Transactions sent before the last halving were slow for the same reason as the one that
      // caused it: halving again for each of them cut a slow spell's size by 8 (3 in flight).
      if (sentAt > this.operations) {
        this.inFlight = 1;
        return false;
      }
      this.operations = Math.max(this.floor, Math.floor(this.operations / 2));
      this.inFlight = 1;
    } else if (own < this.fastMs) {
      this.operations = Math.min(BatchPacer.MAX_OPERATIONS, this.operations * 2);
      this.inFlight = Math.min(BatchPacer.MAX_IN_FLIGHT, this.inFlight + 1);
    }
    return this.operations !== before;
  }
}

interface Pending {
  key: ResourceKey;
  ops: Operation[];
  replan: () => Operation[];
}

/**
 * Collects plans into transactions of about `pacer.operations` operations, keeping up to
 * `pacer.inFlight` of them sent at once: the next batch is planned while the NB commits the last
 * (one connection, so the NB applies them in order; at 100,000 ports, waiting for each reply
 * before planning the next left octonet idle half the pass). `flush` waits for all of them, so a
 * step that reads what the previous one wrote (group members need their LSPs' uuids) sees it in
 * the replica. When a batch is refused, its resources are planned again and written one by one:
 * the replica may have moved since they were planned (the API's own writes run beside the pass),
 * and one resource the NB refuses (say, a hand-made row in the way of a unique name) must not hold
 * back all the others; those are logged.
 */
export class Batch {
  private pending: Pending[] = [];
  private size = 0;
  private inFlight: Promise<void>[] = [];
  /** The first error that was not the NB refusing a transaction; `flush` (or the next `add`) throws it. */
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly writer: NbWriter,
    private readonly counts: Record<Outcome, number>,
    private readonly logger: Logger,
    private readonly pacer = new BatchPacer(),
  ) {}

  /** Adds a plan's operations; `remember` false keeps the resource's existing drift check. */
  async add(key: ResourceKey, plan: () => Plan, extra: Operation[] = [], remember = true): Promise<void> {
    const { ops, outcome } = plan();
    this.counts[extra.length > 0 && outcome === 'unchanged' ? 'deleted' : outcome]++;
    if (remember) this.writer.remember(key, plan, ops.length === 0);
    if (ops.length + extra.length === 0) return;
    this.pending.push({
      key,
      ops: extra.length > 0 ? [...ops, ...extra] : ops,
      replan: () => [...plan().ops, ...extra],
    });
    this.size += ops.length + extra.length;
    if (this.size < this.pacer.operations) return;
    this.send();
    while (this.inFlight.length >= this.pacer.inFlight) await this.inFlight.shift();
    this.rethrow();
  }

  /** Sends what is pending and waits until every batch sent is answered. */
  async flush(): Promise<void> {
    this.send();
    const all = this.inFlight;
    this.inFlight = [];
    await Promise.all(all);
    this.rethrow();
  }

  private send(): void {
    const pending = this.pending;
    this.pending = [];
    this.size = 0;
    if (pending.length === 0) return;
    const queued = this.inFlight.length;
    const sentAt = this.pacer.operations;
    const sent = performance.now();
    this.inFlight.push(
      this.write(pending).then(
        () => {
          const ms = performance.now() - sent;
          if (this.pacer.answered(ms, queued, sentAt))
            this.logger.info(
              { ms: Math.round(ms), queued, operations: this.pacer.operations, inFlight: this.pacer.inFlight },
              'full pass: NB transaction size changed',
            );
        },
        (error: unknown) => {
          this.failure ??= { error };
        },
      ),
    );
  }

  private rethrow(): void {
    if (this.failure) throw this.failure.error;
  }

  private async write(pending: readonly Pending[]): Promise<void> {
    try {
      await this.writer.transact(pending.flatMap((p) => p.ops));
    } catch (error) {
      if (!(error instanceof OvsdbTransactionError)) throw error;
      for (const { key, replan } of pending) {
        try {
          await this.writer.transact(replan());
        } catch (single) {
          if (!(single instanceof OvsdbTransactionError)) throw single;
          this.logger.error(
            { err: single, resource: key },
            "the NB refused this resource's rows; left for the next pass",
          );
        }
      }
    }
  }
}

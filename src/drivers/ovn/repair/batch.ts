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
  ) {}

  /** One transaction's answer came `ms` after it was sent, with `queued` others sent before it still open. */
  answered(ms: number, queued: number): void {
    // The wait includes the transactions ahead of it on the same connection: judge its own share.
    const own = ms / (queued + 1);
    if (own > this.slowMs) {
      this.operations = Math.max(BatchPacer.MIN_OPERATIONS, Math.floor(this.operations / 2));
      this.inFlight = 1;
    } else if (own < this.fastMs) {
      this.operations = Math.min(BatchPacer.MAX_OPERATIONS, this.operations * 2);
      this.inFlight = Math.min(BatchPacer.MAX_IN_FLIGHT, this.inFlight + 1);
    }
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
    const sent = performance.now();
    this.inFlight.push(
      this.write(pending).then(
        () => this.pacer.answered(performance.now() - sent, queued),
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

/**
 * Writes that failed after commit, retried by resource key until one succeeds: a postcommit whose
 * database read failed (the database went away between the commit and the driver's read of it) or
 * whose NB transaction failed (the NB leader died under it). Without this such a resource waited
 * for the periodic full pass. Each key waits with capped exponential backoff; `retryNow` (the
 * database or the NB is back) runs every waiting key at once. A resource that is gone by then
 * succeeds too: its reconcile removes its rows. The runs go through the keyed queue like any
 * other reconcile (the caller's `reconcile`), so a retry never races the resource's next write.
 *
 * It owns only the timers and the per-key attempt count; what a reconcile does is `nb-sync.ts`'s.
 */
import type { Logger } from 'pino';
import type { ResourceKey } from './resource-key.js';

export interface RetryDelays {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** Half a second, doubling, at most 30 s apart: seconds after a short outage, cheap during a long one. */
const DEFAULT_DELAYS: RetryDelays = { initialMs: 500, maxMs: 30_000 };

export interface PostcommitRetriesOptions {
  readonly reconcile: (key: ResourceKey) => Promise<unknown>;
  /** Errors no retry can help with (the NB belongs to another deployment): the key is dropped. */
  readonly isFinal: (error: unknown) => boolean;
  readonly logger: Logger;
  readonly delays?: RetryDelays;
}

export class PostcommitRetries {
  /** Keys waiting for their next attempt, with the attempt it will be (0-based) and its timer. */
  private readonly waiting = new Map<ResourceKey, { attempt: number; timer: NodeJS.Timeout }>();
  private readonly delays: RetryDelays;
  private stopped = false;

  constructor(private readonly options: PostcommitRetriesOptions) {
    this.delays = options.delays ?? DEFAULT_DELAYS;
  }

  /** A write of `key` failed with `error`: try it again later (once per key, however many failed). */
  schedule(key: ResourceKey, error: unknown): void {
    if (this.stopped || this.options.isFinal(error) || this.waiting.has(key)) return;
    this.options.logger.warn(
      { resource: key, err: (error as { message?: unknown } | null)?.message },
      'OVN write after commit failed; retrying it',
    );
    this.arm(key, 0);
  }

  /** What may have caused the failures is over (the database or the NB is back): retry every key now. */
  retryNow(): void {
    for (const [key, { attempt, timer }] of [...this.waiting]) {
      clearTimeout(timer);
      this.waiting.delete(key);
      void this.run(key, attempt);
    }
  }

  /** Keys still waiting for a successful write. */
  get pending(): readonly ResourceKey[] {
    return [...this.waiting.keys()];
  }

  stop(): void {
    this.stopped = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }

  private arm(key: ResourceKey, attempt: number): void {
    const { initialMs, maxMs } = this.delays;
    const delay = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      void this.run(key, attempt);
    }, delay);
    timer.unref();
    this.waiting.set(key, { attempt, timer });
  }

  private async run(key: ResourceKey, attempt: number): Promise<void> {
    try {
      await this.options.reconcile(key);
      this.options.logger.info({ resource: key, attempts: attempt + 1 }, 'OVN write after commit done on retry');
    } catch (error) {
      if (this.stopped || this.options.isFinal(error) || this.waiting.has(key)) return;
      this.options.logger.debug({ resource: key, attempt, err: (error as Error).message }, 'OVN write retry failed');
      this.arm(key, attempt + 1);
    }
  }
}

/**
 * A keyed work queue, controller-runtime style but single-worker: a key added while queued is
 * queued once; a key is never worked on twice at the same time; a failed key comes back after a
 * capped exponential backoff. One worker is enough here (a handful of networks per cluster) and
 * makes the reconcile of one network never race another's writes to shared Neutron objects.
 */
export interface WorkQueueOptions {
  /** Handles one key; a throw retries the key with backoff. */
  work(key: string): Promise<void>;
  onError?(key: string, error: unknown): void;
  /** First retry delay; doubles per consecutive failure up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export class WorkQueue {
  private readonly queued: string[] = [];
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = false;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: WorkQueueOptions) {}

  add(key: string): void {
    if (this.stopped || this.queued.includes(key)) return;
    this.queued.push(key);
    if (!this.running) void this.drain();
  }

  /** `key` again after `ms` (a requeue: the work asked to be run again soon); dropped by `stop`. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key);
    }, ms);
    this.timers.add(timer);
  }

  stop(): void {
    this.stopped = true;
    this.queued.length = 0;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Resolves when nothing is queued or running (retries waiting on a timer do not count). */
  idle(): Promise<void> {
    if (!this.running && this.queued.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queued.length > 0 && !this.stopped) {
      const key = this.queued.shift()!;
      try {
        await this.options.work(key);
        this.failures.delete(key);
      } catch (error) {
        this.options.onError?.(key, error);
        const count = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, count);
        const delay = Math.min((this.options.baseDelayMs ?? 500) * 2 ** (count - 1), this.options.maxDelayMs ?? 60_000);
        this.addAfter(key, delay);
      }
    }
    this.running = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

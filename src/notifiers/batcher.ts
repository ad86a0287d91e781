/**
 * Neutron's `BatchNotifier` (`neutron/notifiers/batch_notifier.py`): the first event of a quiet
 * spell is sent at once; the sender then waits `intervalMs` before it sends again, and everything
 * queued meanwhile goes out together in the next batch. Nothing is persisted: events queued when
 * the process stops are lost, as in Neutron.
 *
 * `queue` never waits and never throws: an API request that queues an event is not held up by it.
 */
export class EventBatcher<E> {
  private pending: E[] = [];
  /** The running send loop, while there is one. */
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    /** Sends one batch; must not throw (failures are the sender's to log and count). */
    private readonly send: (batch: E[]) => Promise<void>,
  ) {}

  queue(event: E): void {
    if (this.stopped) return;
    this.pending.push(event);
    this.loop ??= this.run().finally(() => (this.loop = null));
  }

  /** Events waiting for the next batch. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Sends what is queued without waiting out the interval, then refuses new events. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await this.send(batch);
      if (this.stopped) continue;
      // Holding the loop through the interval is what batches the events queued meanwhile.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.intervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}

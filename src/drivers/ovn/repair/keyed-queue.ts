/**
 * Runs work per key one at a time, and folds requests that arrive while a run for the same key is
 * still waiting into that run: reconciling a resource twice in a row is wasted, since each run
 * reads the whole current state anyway. Different keys run concurrently.
 */
export class KeyedQueue {
  /** The last scheduled run of each key (running or waiting). */
  private readonly tails = new Map<string, Promise<unknown>>();
  /** Runs that have not started yet, which a new request may join. */
  private readonly waiting = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const joinable = this.waiting.get(key);
    if (joinable) return joinable as Promise<T>;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => {
        this.waiting.delete(key);
        return work();
      });
    this.waiting.set(key, next);
    this.tails.set(key, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.tails.get(key) === next) this.tails.delete(key);
      });
    return next;
  }

  /** Resolves once every run scheduled so far has ended. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.allSettled([...this.tails.values()]);
  }
}

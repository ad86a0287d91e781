/**
 * Gives the operating system back the memory of the start-up's full OVN pass, once, before the
 * API opens (`octonet serve` only: tests and the demo start servers in-process and skip it).
 *
 * Why: at 100,000 ports the pass leaves ~170 MiB of live heap, but V8 grew the heap to 0.8–1 GiB
 * while the pass allocated (its limit grows up to ×4 the live size while the collector keeps up),
 * and a normal full collection frees the objects without moving the survivors: pages partly
 * full stay committed. Measured (bench/scale, 2026-11-26): after the pass and a full GC the heap
 * kept 450–600 MiB committed for 140–170 MiB live (RSS 574–733 MiB). V8's memory reducer, which
 * would compact, waits for an allocation rate under ~1 MB/s, which the SB's updates from a
 * still-busy ovn-northd kept above for minutes. One collection that moves every survivor
 * (`--compact-on-every-full-gc` for this one call) leaves the heap at its live size: RSS after it
 * 315-330 MiB (284-292 with the launcher's malloc settings), for one pause before the API opens
 * (0.9-1.8 s at 100,000 ports on a loaded 2-core machine, 0.25 s at 10,000). Compacting on every
 * full collection instead paused each one in the pass 1.0-1.3 s: not for a server with its API open.
 *
 * `gc` comes from a new context after `--expose-gc` is set at run time (the main context never
 * gets a global `gc`); both flags are set back afterwards.
 */
import type { Logger } from 'pino';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const mib = (bytes: number) => Math.round(bytes / 1048576);

/** One full, compacting collection; logs RSS and the heap before and after. */
export function compactHeapOnce(logger: Logger): void {
  const before = process.memoryUsage();
  const started = performance.now();
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
  const after = process.memoryUsage();
  logger.info(
    {
      ms: Math.round(performance.now() - started),
      rss_mib: [mib(before.rss), mib(after.rss)],
      heap_total_mib: [mib(before.heapTotal), mib(after.heapTotal)],
      heap_used_mib: [mib(before.heapUsed), mib(after.heapUsed)],
    },
    'heap compacted after start-up',
  );
}

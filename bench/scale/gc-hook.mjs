/**
 * Bench-only preload (bench/scale puts it in the measured server's NODE_OPTIONS with
 * OCTONET_BENCH_GC_FILE; nothing else loads it): on SIGUSR2 the `serve` process writes its memory
 * as it is, runs a full garbage collection, and writes its memory again, as JSON into that file.
 * RSS alone mixes what stays live with garbage V8 has not collected yet; this tells them apart.
 * Plain JavaScript, so that the server runs without tsx's loader (which would cost memory itself).
 */
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const file = process.env.OCTONET_BENCH_GC_FILE;
if (file && process.argv[2] === 'serve') {
  // `--expose-gc` set at run time, and `gc` read from a new context, which gets it.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const memory = () => {
    const heap = getHeapStatistics();
    return { rss: process.memoryUsage.rss(), heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size };
  };
  process.on('SIGUSR2', () => {
    const before = memory();
    gc();
    // V8 hands freed pages back to the system from a background thread: give it a moment.
    setTimeout(() => writeFileSync(file, JSON.stringify({ before, after: memory() }) + '\n'), 2000);
  });
}

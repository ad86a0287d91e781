/**
 * The measured server's memory, honestly: RSS as it is and after a full garbage collection, with
 * the V8 heap used at both moments. The server is started with `gc-hook.mjs` preloaded (bench
 * only: `gcHookEnv`), and `collectedMemory` asks it through SIGUSR2 to collect and report.
 * "Live after GC" is the heap that stays; RSS after GC still holds pages V8 and malloc keep.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { statusKiB } from '../api/process-meter.js';

const HOOK = resolve(fileURLToPath(import.meta.url), '..', 'gc-hook.mjs');
const ANSWER_TIMEOUT_MS = 60_000;

/** MiB, one decimal. */
const mib = (bytes: number) => Math.round(bytes / 104857.6) / 10;

export interface CollectedMemory {
  rssMiB: number;
  heapUsedMiB: number;
  /** After a full GC: RSS, and the heap that stays live. */
  rssAfterGcMiB: number;
  liveHeapMiB: number;
  peakRssMiB: number;
}

/** The environment of a `serve` to be measured with `collectedMemory` (its answer goes to `file`). */
export function gcHookEnv(file: string): NodeJS.ProcessEnv {
  const options = [process.env.NODE_OPTIONS, `--import=${HOOK}`].filter(Boolean).join(' ');
  return { ...process.env, NODE_OPTIONS: options, OCTONET_BENCH_GC_FILE: file };
}

/** The answer file of a server started in `dir` under `label`. */
export const gcAnswerFile = (dir: string, label: string) => join(dir, `gc-${label}.json`);

/** Asks the server (started with `gcHookEnv(file)`) to collect, and reads its answer. */
export async function collectedMemory(pid: number, file: string): Promise<CollectedMemory> {
  rmSync(file, { force: true });
  const peakKiB = statusKiB(pid, 'VmHWM');
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  while (!existsSync(file) || !readFileSync(file, 'utf8').endsWith('\n')) {
    if (Date.now() > deadline) throw new Error(`no memory answer from ${pid} (gc-hook.mjs not preloaded?)`);
    await sleep(100);
  }
  const { before, after } = JSON.parse(readFileSync(file, 'utf8')) as Record<
    'before' | 'after',
    { rss: number; heapUsed: number }
  >;
  return {
    rssMiB: mib(before.rss),
    heapUsedMiB: mib(before.heapUsed),
    rssAfterGcMiB: mib(after.rss),
    liveHeapMiB: mib(after.heapUsed),
    peakRssMiB: mib(peakKiB * 1024),
  };
}

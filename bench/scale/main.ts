/**
 * `npm run bench:scale -- [--ports 10000,100000] [--per-network 100] [--samples 1000]`: octonet
 * (SQLite) with many ports, issue 18's scale table. For each size: networks of `--per-network`
 * ports each (100,000 ports → 1,000 networks), ports bulk-created 500 a request, each with a
 * device_id of its own. Then, per size:
 *
 * - create rate (ports/s over the whole fill, and the first and last batch's);
 * - `GET /v2.0/ports?network_id=` and `?device_id=` latency (median, p99) over random targets,
 *   until the whole answer has arrived (not parsed: as ../shared/bench/api-bench.py times it);
 * - the whole port list, paginated 1,000 at a time as clients page it (seconds per full walk);
 * - the API server's memory after that: RSS and V8 heap used as they are, after a full GC, and peak RSS;
 *   then its RSS over 90 s with no request (V8 gives back what the fill grew only once idle);
 * - start-up time of `serve` over the filled database (spawn → first answer);
 * - the full OVN pass into an empty NB, and over the complete NB (a restart), as octonet logs it,
 *   and the server's memory 5 s after each (the NB synced and watched): RSS and V8 heap used as
 *   they are, then after a full GC (RSS, and the heap that stays live), and peak RSS. The GC is
 *   asked for through a bench-only preload (`gc-hook.mjs`, SIGUSR2; see `gc-memory.ts`).
 *
 * Prints figures and asserts nothing; each size starts from nothing, and everything it starts
 * it stops. Run on a quiet machine: the figures are wall-clock.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startOvnCentral } from '../../test/fixtures/ovn-central.js';
import { intOption } from '../goals-report.js';
import { runBench } from '../lab-run.js';
import { BULK, fill } from './fill.js';
import { collectedMemory, gcAnswerFile, gcHookEnv, type CollectedMemory } from './gc-memory.js';
import { NeutronApi } from '../ovn/neutron-api.js';
import { statusKiB } from '../api/process-meter.js';
import { LogFollower, startServe, type LogLine } from '../ovn/octonet-serve.js';
import { now, summarize, type Summary } from '../ovn/stats.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const PAGE = 1000;
const SUMMARY = ['OVN NB brought in line with the database', 'OVN NB matches the database'];
const PASS_TIMEOUT_MS = 1_800_000;
/** How long the server idles after its start-up pass before its memory is read (echoes settle). */
const SETTLE_MS = 5_000;
/**
 * How long the server is left idle after the reads before its RSS is read again: V8's memory
 * reducer compacts the heap only once the allocation rate has stayed low for a while (after a
 * 100,000-port fill it took 40–50 s here), which no request-driven reading shows.
 */
const IDLE_MS = 90_000;
const IDLE_SAMPLE_MS = 5_000;

interface SizeResult {
  ports: number;
  networks: number;
  createSeconds: number;
  createRate: number;
  /** Ports per bulk create (a network's ports, at most `BULK`). */
  batchSize: number;
  firstBatchMs: number;
  lastBatchMs: number;
  byNetwork: Summary;
  byDevice: Summary;
  listAll: Summary;
  /** The API server's memory after the reads. */
  readsMemory: CollectedMemory;
  /** Its RSS every `IDLE_SAMPLE_MS` while idle after the reads (`idleRss`), MiB. */
  idleRssMiB: number[];
  startupSeconds: number;
  /** Seconds, and passes that failed before the one timed (see `fullPass`). */
  fullSyncEmpty: PassResult;
  fullSyncComplete: PassResult;
}

/** One full pass: its seconds, the passes that failed first, and the server's memory after it. */
interface PassResult {
  seconds: number;
  failed: number;
  /** The API server's memory with the NB fully synced and watched. */
  memory: CollectedMemory;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

async function timed(samples: number, request: () => Promise<unknown>): Promise<Summary> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = now();
    await request();
    times.push(now() - t);
  }
  return summarize(times)!;
}

/**
 * A GET's whole answer, read and dropped: neither the client's JSON parser nor the garbage of
 * decoding 100 KB into a string (the client's own collections) is part of the server's latency.
 */
async function answered(api: NeutronApi, path: string): Promise<void> {
  const { status, bytes } = await api.drained(path);
  if (status !== 200 || bytes === 0) throw new Error(`GET ${path}: HTTP ${status}, ${bytes} bytes`);
}

/** Walks the whole port list page by page, as the CLI and SDK do with `limit` and the next link. */
async function walkAllPorts(api: NeutronApi): Promise<number> {
  let path: string | undefined = `/v2.0/ports?limit=${PAGE}`;
  let seen = 0;
  while (path) {
    const page: { ports: unknown[]; ports_links?: { rel: string; href: string }[] } = await api.call('GET', path);
    seen += page.ports.length;
    const next = page.ports_links?.find((l) => l.rel === 'next')?.href;
    path = next && page.ports.length === PAGE ? new URL(next).pathname + new URL(next).search : undefined;
  }
  return seen;
}

/**
 * One start of `serve` with OVN on: the seconds its start-up full pass logged. When that pass
 * failed (at 100,000 ports on a loaded machine the NB or SB went silent past the echo interval and
 * the connection was dropped), the figure is spawn → the end of the first pass that completed,
 * with how many failed before it in `failed`.
 */
async function fullPass(dir: string, ovn: { nb: string; sb: string }, label: string): Promise<PassResult> {
  // The API opens once the start-up pass is over (driver.ts), so the wait for it is the pass's.
  const { serve, answerFile } = await startServeWithGcHook(dir, label, {
    logLevel: 'info',
    ovn,
    startupTimeoutMs: PASS_TIMEOUT_MS,
  });
  try {
    const log = new LogFollower(serve);
    const { line } = await log.waitFor((l: LogLine) => SUMMARY.includes(l.msg), PASS_TIMEOUT_MS);
    const failed = log.records.filter((l) => l.msg.startsWith('full OVN pass failed')).length;
    const seconds = line.trigger === 'start' ? Number(line.seconds ?? NaN) : (line.time - serve.spawnedAt) / 1000;
    // Echoes settle before the memory is read.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { seconds, failed, memory: await collectedMemory(serve.pid, answerFile) };
  } finally {
    await serve.stop();
  }
}

/**
 * `serve` with the bench-only GC preload, whose answers go to the returned file (`gc-memory.ts`).
 * The server inherits this process's environment (startServe), so the preload goes there for this
 * one spawn.
 */
async function startServeWithGcHook(
  dir: string,
  label: string,
  options: Omit<Parameters<typeof startServe>[0], 'repoRoot' | 'dir' | 'logFile'>,
): Promise<{ serve: Awaited<ReturnType<typeof startServe>>; answerFile: string }> {
  const answerFile = gcAnswerFile(dir, label);
  const saved = { ...process.env };
  Object.assign(process.env, gcHookEnv(answerFile));
  const serve = await startServe({ repoRoot, dir, logFile: join(dir, `serve-${label}.log`), ...options }).finally(
    () => {
      delete process.env.OCTONET_BENCH_GC_FILE;
      if (saved.NODE_OPTIONS === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved.NODE_OPTIONS;
    },
  );
  return { serve, answerFile };
}

/** The server's RSS (MiB) every `IDLE_SAMPLE_MS` over `IDLE_MS` with no request. */
async function idleRss(pid: number): Promise<number[]> {
  const samples: number[] = [];
  for (let waited = 0; waited < IDLE_MS; waited += IDLE_SAMPLE_MS) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS));
    samples.push(Math.round(statusKiB(pid, 'VmRSS') / 1024));
  }
  return samples;
}

async function measure(ports: number, perNetwork: number, samples: number): Promise<SizeResult> {
  const progress = (line: string) => process.stderr.write(`bench:scale ${ports}: ${line}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'octonet-scale-'));
  try {
    const { serve, answerFile } = await startServeWithGcHook(dir, 'reads', { logLevel: 'warn' });
    const api = new NeutronApi(serve.baseUrl);
    let filled: Awaited<ReturnType<typeof fill>>;
    let byNetwork: Summary, byDevice: Summary, listAll: Summary;
    let readsMemory: CollectedMemory;
    let idleRssMiB: number[];
    try {
      filled = await fill(api, ports, perNetwork, progress);
      progress(`filled in ${filled.seconds.toFixed(1)} s; reading`);
      byNetwork = await timed(samples, () => answered(api, `/v2.0/ports?network_id=${pick(filled.networks)}`));
      progress(`ports?network_id= median ${byNetwork.median.toFixed(2)} ms, p99 ${byNetwork.p99.toFixed(2)} ms`);
      byDevice = await timed(samples, () => answered(api, `/v2.0/ports?device_id=${pick(filled.devices)}`));
      progress(`ports?device_id= median ${byDevice.median.toFixed(2)} ms, p99 ${byDevice.p99.toFixed(2)} ms`);
      let walked = 0;
      listAll = await timed(3, async () => (walked = await walkAllPorts(api)));
      progress(`list all: median ${(listAll.median / 1000).toFixed(2)} s`);
      // Every port plus one DHCP port per network would be more than asked: octonet (like ML2/OVN) has none.
      if (walked < ports) throw new Error(`the paginated list gave ${walked} ports of ${ports}`);
      readsMemory = await collectedMemory(serve.pid, answerFile);
      progress(memoryLine(readsMemory));
      idleRssMiB = await idleRss(serve.pid);
      progress(`RSS every ${IDLE_SAMPLE_MS / 1000} s while idle: ${idleRssMiB.join(', ')} MiB`);
    } finally {
      api.close();
      await serve.stop();
    }
    const t = now();
    const again = await startServe({ repoRoot, dir, logFile: join(dir, 'serve-restart.log'), logLevel: 'warn' });
    const startupSeconds = (now() - t) / 1000;
    await again.stop();
    progress(`start-up ${startupSeconds.toFixed(2)} s`);

    progress('full OVN passes');
    const central = startOvnCentral();
    let fullSyncEmpty: PassResult, fullSyncComplete: PassResult;
    try {
      fullSyncEmpty = await fullPass(dir, central, 'empty-nb');
      progress(
        `full pass into an empty NB ${fullSyncEmpty.seconds.toFixed(2)} s (${fullSyncEmpty.failed} failed before); ${memoryLine(fullSyncEmpty.memory)}`,
      );
      fullSyncComplete = await fullPass(dir, central, 'complete-nb');
      progress(
        `full pass over a complete NB ${fullSyncComplete.seconds.toFixed(2)} s (${fullSyncComplete.failed} failed before); ${memoryLine(fullSyncComplete.memory)}`,
      );
    } finally {
      central.stop();
    }
    return {
      ports,
      networks: filled.networks.length,
      createSeconds: filled.seconds,
      createRate: ports / filled.seconds,
      batchSize: Math.min(BULK, perNetwork),
      firstBatchMs: filled.batches[0]!,
      lastBatchMs: filled.batches.at(-1)!,
      byNetwork,
      byDevice,
      listAll,
      readsMemory,
      idleRssMiB,
      startupSeconds,
      fullSyncEmpty,
      fullSyncComplete,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const memoryLine = (m: CollectedMemory) =>
  `RSS ${m.rssMiB} MiB, heap used ${m.heapUsedMiB} MiB; after a full GC RSS ${m.rssAfterGcMiB} MiB, ` +
  `live heap ${m.liveHeapMiB} MiB; peak RSS ${m.peakRssMiB} MiB`;

const memoryCell = (m: CollectedMemory) =>
  `${m.rssMiB} / ${m.heapUsedMiB}; ${m.rssAfterGcMiB} / ${m.liveHeapMiB}; ${m.peakRssMiB}`;

function table(results: readonly SizeResult[]): string {
  const f = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
  const pass = (p: PassResult) =>
    p.failed > 0 ? `${f(p.seconds, 2)} (spawn → first pass done; ${p.failed} failed first)` : f(p.seconds, 2);
  const rows: [string, (r: SizeResult) => string][] = [
    ['networks', (r) => f(r.networks, 0)],
    ['create: ports/s (whole fill)', (r) => f(r.createRate)],
    [
      'create: first / last bulk request, ms',
      (r) => `${f(r.firstBatchMs, 0)} / ${f(r.lastBatchMs, 0)} (${r.batchSize} ports)`,
    ],
    ['GET ports?network_id= median / p99 ms', (r) => `${f(r.byNetwork.median, 2)} / ${f(r.byNetwork.p99, 2)}`],
    ['GET ports?device_id= median / p99 ms', (r) => `${f(r.byDevice.median, 2)} / ${f(r.byDevice.p99, 2)}`],
    [`list all, pages of ${PAGE}, median s`, (r) => f(r.listAll.median / 1000, 2)],
    [
      'API server after the reads: RSS / heap used; after a full GC: RSS / live heap; peak RSS MiB',
      (r) => memoryCell(r.readsMemory),
    ],
    [
      `API server idle after the reads: RSS at ${IDLE_MS / 1000} s (lowest) MiB`,
      (r) => `${r.idleRssMiB.at(-1)} (${Math.min(...r.idleRssMiB)})`,
    ],
    ['start-up (spawn → first answer) s', (r) => f(r.startupSeconds, 2)],
    ['full sync into an empty NB s', (r) => pass(r.fullSyncEmpty)],
    ['full sync over a complete NB s', (r) => pass(r.fullSyncComplete)],
    [
      'with OVN, 5 s after the pass into an empty NB: RSS / heap used; after a full GC: RSS / live heap; peak RSS MiB',
      (r) => memoryCell(r.fullSyncEmpty.memory),
    ],
    ['with OVN, 5 s after the pass over a complete NB: (as above) MiB', (r) => memoryCell(r.fullSyncComplete.memory)],
  ];
  const header = `| ports | ${results.map((r) => f(r.ports, 0)).join(' | ')} |`;
  const rule = `| :-- | ${results.map(() => '--:').join(' | ')} |`;
  return [header, rule, ...rows.map(([name, cell]) => `| ${name} | ${results.map(cell).join(' | ')} |`)].join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      ports: { type: 'string' },
      'per-network': { type: 'string' },
      samples: { type: 'string' },
      'results-dir': { type: 'string' },
    },
  });
  const sizes = (values.ports ?? '10000,100000').split(',').map((s) => intOption('ports', s.trim(), 0));
  const perNetwork = intOption('per-network', values['per-network'], 100);
  if (perNetwork > 250) throw new Error('--per-network: at most 250 (one /24 per network)');
  // 1,000: the p99 of 200 samples is the second-slowest request, one garbage collection's pause.
  const samples = intOption('samples', values.samples, 1000);
  const results: SizeResult[] = [];
  const load = loadavg()[0]!.toFixed(1);
  for (const size of sizes) results.push(await measure(size, perNetwork, samples));
  const out = table(results);
  const resultsDir = resolve(repoRoot, values['results-dir'] ?? 'bench/scale/results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ cpus: cpus().length, load, perNetwork, samples, results }, null, 1) + '\n');
  process.stdout.write(
    `\noctonet on SQLite, ${perNetwork} ports a network, ${samples} samples a filter; ${cpus().length} CPUs, ` +
      `load ${load} at the start\n\n${out}\n\nresults: ${file}\n`,
  );
  return 0;
}

runBench(main);

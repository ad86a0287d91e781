/**
 * `npm run bench:mgmtnet`: how long `mgmt-net apply` takes and how many Neutron calls it makes, on
 * 3 and 50 controller nodes (per-node-ports, the minimal spec), against `octonet serve` on SQLite in
 * a subprocess (bench/ovn's startServe, through the launcher): the first apply (creates everything), the second apply (must
 * make zero writes), one node joining, and delete. With `--neutron URL` the same runs against that
 * Neutron too (e.g. the Zed anchor, http://127.0.0.1:9797). Each figure is the median of `--reps`
 * runs, each on fresh objects (its own spec name). Prints a table and writes
 * bench/mgmtnet/results/<timestamp>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NeutronClient } from '../../src/mgmtnet/neutron-client.js';
import { applySpec, deleteSpec } from '../../src/mgmtnet/reconcile.js';
import type { MgmtNetSpec } from '../../src/mgmtnet/spec.js';
import { makeSpec } from '../../test/mgmtnet/fixtures.js';
import { repoRoot } from '../lab-run.js';
import { startServe } from '../ovn/octonet-serve.js';

interface Options {
  nodes: number[];
  reps: number;
  neutron?: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { nodes: [3, 50], reps: 3 };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--nodes':
        options.nodes = value!.split(',').map(Number);
        i++;
        break;
      case '--reps':
        options.reps = Number(value);
        i++;
        break;
      case '--neutron':
        options.neutron = value;
        i++;
        break;
      case '--help':
        process.stdout.write('usage: npm run bench:mgmtnet -- [--nodes 3,50] [--reps 3] [--neutron URL]\n');
        process.exit(0);
      // falls through (unreachable)
      default:
        process.stderr.write(`bench:mgmtnet: unknown option ${argv[i]}\n`);
        process.exit(2);
    }
  }
  if (options.nodes.some((n) => !Number.isInteger(n) || n < 1) || !(options.reps >= 1)) {
    process.stderr.write('bench:mgmtnet: --nodes takes positive integers, --reps a positive integer\n');
    process.exit(2);
  }
  return options;
}

/** The minimal per-node-ports spec with `nodes` controllers. */
function spec(name: string, nodes: number): MgmtNetSpec {
  return makeSpec({ nodes: Array.from({ length: nodes }, (_, n) => ({ name: `node${n + 1}` })) }, name);
}

interface Figure {
  ms: number;
  reads: number;
  writes: number;
}

interface Row {
  target: string;
  nodes: number;
  first: Figure;
  second: Figure;
  join: Figure;
  remove: Figure;
}

async function timed(client: NeutronClient, fn: () => Promise<unknown>): Promise<Figure> {
  client.resetCounts();
  const t0 = performance.now();
  await fn();
  return { ms: performance.now() - t0, reads: client.calls.reads, writes: client.calls.writes };
}

function median(figures: Figure[]): Figure {
  const mid = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)]!;
  };
  return {
    ms: mid(figures.map((f) => f.ms)),
    reads: mid(figures.map((f) => f.reads)),
    writes: mid(figures.map((f) => f.writes)),
  };
}

async function measure(target: string, url: string, nodes: number, reps: number): Promise<Row> {
  const runs: Omit<Row, 'target' | 'nodes'>[] = [];
  const tag = Math.random().toString(36).slice(2, 7);
  for (let rep = 0; rep < reps; rep++) {
    const client = NeutronClient.noauth(url);
    const s = spec(`bench-${tag}-${nodes}-${rep}`, nodes);
    let report: Awaited<ReturnType<typeof applySpec>> | undefined;
    const first = await timed(client, async () => {
      report = await applySpec(s, client);
      if (report.error) throw new Error(`first apply: ${report.error}`);
    });
    const second = await timed(client, async () => {
      const again = await applySpec(s, client, { previous: report!.status });
      if (again.objects.some((o) => o.action !== 'unchanged')) throw new Error('second apply changed something');
      report = again;
    });
    const grown = spec(s.metadata.name, nodes + 1);
    const join = await timed(client, () => applySpec(grown, client, { previous: report!.status }));
    const remove = await timed(client, () => deleteSpec(grown, client));
    runs.push({ first, second, join, remove });
    process.stderr.write(`bench: ${target} ${nodes} nodes run ${rep + 1}/${reps}: first ${first.ms.toFixed(0)} ms\n`);
  }
  return {
    target,
    nodes,
    first: median(runs.map((r) => r.first)),
    second: median(runs.map((r) => r.second)),
    join: median(runs.map((r) => r.join)),
    remove: median(runs.map((r) => r.remove)),
  };
}

function table(rows: Row[]): string {
  const cell = (f: Figure) =>
    `${f.ms.toFixed(0).padStart(6)} ms ${String(f.reads).padStart(4)}r ${String(f.writes).padStart(4)}w`;
  const head = `| target         | nodes | first apply            | second apply           | +1 node                | delete                 |`;
  const rule = `|----------------|-------|------------------------|------------------------|------------------------|------------------------|`;
  return [
    head,
    rule,
    ...rows.map(
      (r) =>
        `| ${r.target.padEnd(14)} | ${String(r.nodes).padStart(5)} | ${cell(r.first)} | ${cell(r.second)} | ${cell(r.join)} | ${cell(r.remove)} |`,
    ),
  ].join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'octonet-bench-mgmtnet-'));
  const server = await startServe({ repoRoot, dir, logFile: join(dir, 'serve.log'), logLevel: 'warn' });
  const rows: Row[] = [];
  try {
    for (const nodes of options.nodes) rows.push(await measure('octonet sqlite', server.baseUrl, nodes, options.reps));
    if (options.neutron) {
      for (const nodes of options.nodes) rows.push(await measure('neutron', options.neutron, nodes, options.reps));
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const text = table(rows);
  process.stdout.write(
    `mgmt-net apply, per-node-ports, median of ${options.reps} (r = Neutron reads, w = writes); ${cpus().length} CPUs\n${text}\n`,
  );
  const results = join('bench', 'mgmtnet', 'results');
  mkdirSync(results, { recursive: true });
  const file = join(results, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ options, rows }, null, 2)}\n`);
  process.stderr.write(`bench: wrote ${file}\n`);
}

await main();

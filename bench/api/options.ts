/**
 * The options of `npm run bench:api -- ...`: the workload handed to api-bench.py (the same for
 * every target), which targets run, and where the real Neutron's figures come from. Owns parsing
 * and the help text only; nothing here starts a process.
 */
import { parseArgs } from 'node:util';
import { intOption } from '../goals-report.js';

export type Backend = 'sqlite' | 'postgres';

export interface Workload {
  ports: number;
  concurrency: number;
  /** Floating IPs; 0 skips api-bench's router / floating-IP phases. */
  fips: number;
  listReps: number;
  showReps: number;
}

export interface BenchOptions {
  workload: Workload;
  backends: Backend[];
  /** Do not run the live Neutron anchor, even where it can run. */
  skipNeutron: boolean;
  /** A previous anchor run (bench-anchor.sh JSON or one of our results files) to compare with. */
  neutronResults: string | undefined;
  resultsDir: string;
  /** Echo api-bench.py's own output while it runs. */
  verbose: boolean;
  /** Run a small copy of the workload on each fresh octonet before measuring (not counted). */
  warmup: boolean;
  /** Run each octonet with the OVN driver on against its own OVN central (NB, SB, northd), as Neutron runs with ML2/OVN. */
  ovn: boolean;
  /** Also run octonet on PostgreSQL as this many replicas behind haproxy (1: not). */
  replicas: number;
  /** Ports per phase of the write-scaling workload (run when replicas > 1). */
  scalingPorts: number;
  /** Only the write-scaling comparison: no api-bench.py workload, no SQLite, no Neutron column. */
  scalingOnly: boolean;
  /** Runs of each of one replica and N replicas, alternated (the machine's load drifts). */
  scalingRounds: number;
  /** A built dist/ to serve from instead of this checkout's (to compare two builds). */
  serverDist: string | undefined;
}

export const HELP = `usage: npm run bench:api -- [options]

Runs ../shared/bench/api-bench.py against octonet on SQLite, octonet on PostgreSQL and the real
Neutron (the anchor in ../shared/anchors/neutron-zed) and prints one comparison table.

workload (the same for every target):
  --ports N              ports per create phase (default 500: 500 sequential + 500 concurrent)
  --concurrency C        concurrent clients (default 8)
  --fips F               floating IPs; 0 skips the router/floating-IP phases (default 100, as run1.json)
  --list-reps N          repetitions of each list phase (default 20)
  --show-reps N          repetitions of port-show and port-update-name (default 100)
targets:
  --backends LIST        octonet backends, comma-separated: sqlite,postgres (default both)
  --skip-neutron         do not run the live Neutron anchor (about 25 min for the default workload)
  --neutron-results F    compare with this earlier anchor run instead of running it: a
                         bench-anchor.sh JSON or a bench/api/results/*.json file. Default when the
                         anchor cannot run or --skip-neutron is given:
                         ../shared/anchors/neutron-zed/bench-results/run1.json
  --no-warmup            measure octonet cold: by default each freshly started octonet first runs a
                         small copy of the workload (20 ports), unmeasured, so the single-request
                         phases do not time V8 compiling code on first use
  --ovn                  run octonet with its OVN driver writing a real OVN central (NB, SB, northd
                         of its own), as the Neutron anchor runs ML2/OVN; their CPU and memory count
output:
  --replicas N           also run octonet on PostgreSQL as N replicas sharing one database behind
                         haproxy (round robin per request), as a deployment runs them; then every
                         PostgreSQL target also runs the write-scaling workload (concurrent port
                         creates and deletes, each phase metered: CPU-seconds per write of the
                         replicas, PostgreSQL and haproxy, PostgreSQL lock waits and rollbacks per
                         write) and the report compares one replica with N
  --scaling-ports N      ports per write-scaling phase (default 600)
  --scaling-only         only the write-scaling comparison of one PostgreSQL replica and N: no
                         api-bench.py workload, no SQLite, no Neutron column
  --scaling-rounds R     alternate one replica and N replicas R times (default 1)
  --server-dist DIR      run octonet serve from this built dist/ (e.g. another checkout's, to
                         compare two builds on the same workload); default this checkout's dist/
  --results-dir DIR      where <timestamp>.json and <timestamp>.logs/ go (default bench/api/results)
  --verbose              show api-bench.py's own output while it runs
  --help`;

/** Returns undefined when --help was asked for. */
export function parseBenchOptions(argv: string[]): BenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      ports: { type: 'string' },
      concurrency: { type: 'string' },
      fips: { type: 'string' },
      'list-reps': { type: 'string' },
      'show-reps': { type: 'string' },
      backends: { type: 'string' },
      'skip-neutron': { type: 'boolean', default: false },
      'neutron-results': { type: 'string' },
      'results-dir': { type: 'string' },
      verbose: { type: 'boolean', default: false },
      'no-warmup': { type: 'boolean', default: false },
      ovn: { type: 'boolean', default: false },
      replicas: { type: 'string' },
      'scaling-ports': { type: 'string' },
      'scaling-only': { type: 'boolean', default: false },
      'scaling-rounds': { type: 'string' },
      'server-dist': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  const backends = (values.backends ?? 'sqlite,postgres').split(',').map((b) => b.trim());
  for (const b of backends) {
    if (b !== 'sqlite' && b !== 'postgres') throw new Error(`--backends: unknown backend ${b} (sqlite, postgres)`);
  }
  return {
    workload: {
      ports: intOption('ports', values.ports, 500),
      concurrency: intOption('concurrency', values.concurrency, 8),
      fips: intOption('fips', values.fips, 100, 0),
      listReps: intOption('list-reps', values['list-reps'], 20),
      showReps: intOption('show-reps', values['show-reps'], 100),
    },
    backends: [...new Set(backends)] as Backend[],
    skipNeutron: values['skip-neutron'] ?? false,
    neutronResults: values['neutron-results'],
    resultsDir: values['results-dir'] ?? 'bench/api/results',
    verbose: values.verbose ?? false,
    warmup: !(values['no-warmup'] ?? false),
    ovn: values.ovn ?? false,
    replicas: intOption('replicas', values.replicas, 1),
    scalingPorts: intOption('scaling-ports', values['scaling-ports'], 600),
    scalingOnly: values['scaling-only'] ?? false,
    scalingRounds: intOption('scaling-rounds', values['scaling-rounds'], 1),
    serverDist: values['server-dist'],
  };
}

/** api-bench.py arguments for a workload (without --url and --json). */
export function workloadArgs(w: Workload): string[] {
  return [
    '--ports',
    String(w.ports),
    '--concurrency',
    String(w.concurrency),
    '--fips',
    String(w.fips),
    '--list-reps',
    String(w.listReps),
    '--show-reps',
    String(w.showReps),
  ];
}

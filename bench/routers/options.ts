/**
 * The options of `npm run bench:routers -- ...`: how many rounds and failover runs, which BFD
 * timers, whether the lab stays up afterwards, where results go. Parsing and help text only.
 */
import { parseArgs } from 'node:util';
import { intOption } from '../goals-report.js';

export interface RoutersBenchOptions {
  /** Rounds of the floating IP figure and of the router interface figure. */
  rounds: number;
  /** Gateway failovers per BFD setting, each on a fresh lab. */
  failoverRuns: number;
  /** Also run the failovers with OVN's default BFD timers (1000 ms, mult 3). */
  defaultBfd: boolean;
  /** Leave the last lab up (its octonet serve is stopped) for a look afterwards. */
  keepLab: boolean;
  resultsDir: string;
}

export const HELP = `usage: npm run bench:routers -- [options]

Starts a 3-node OVN lab (VMs on node1, gateway chassis node2 and node3) and octonet serve (SQLite)
writing its NB, then measures with real packets (an ICMP echo every 5 ms, timestamped):
  floating IP create+associate (POST /v2.0/floatingips with port_id) → first reply from the outside,
  router interface add (PUT add_router_interface) → first routed reply between two subnets,
  gateway failover: the active gateway node killed → the longest gap in replies to a floating IP
  (each run on a fresh lab; BFD 100 ms × 3, and with --default-bfd also OVN's default timers).

  --rounds N          floating IP rounds, and router interface rounds (default 10 each)
  --failover-runs N   gateway failovers per BFD setting (default 5)
  --default-bfd       also run the failovers with OVN's default BFD timers (1000 ms × 3)
  --keep-lab          leave the last lab (octonet-routers) up at the end
  --results-dir DIR   where <timestamp>.json and <timestamp>.logs/ go (default bench/routers/results)
  --help`;

/** Returns undefined when --help was asked for. */
export function parseRoutersBenchOptions(argv: string[]): RoutersBenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      rounds: { type: 'string' },
      'failover-runs': { type: 'string' },
      'default-bfd': { type: 'boolean', default: false },
      'keep-lab': { type: 'boolean', default: false },
      'results-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  return {
    rounds: intOption('rounds', values.rounds, 10),
    failoverRuns: intOption('failover-runs', values['failover-runs'], 5, 0),
    defaultBfd: values['default-bfd'] ?? false,
    keepLab: values['keep-lab'] ?? false,
    resultsDir: values['results-dir'] ?? 'bench/routers/results',
  };
}

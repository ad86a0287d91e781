/**
 * The options of `npm run bench:failover -- ...`: rounds per setting, the size of the big NB, and
 * where results go. Parsing and help text only.
 */
import { parseArgs } from 'node:util';
import { intOption } from '../goals-report.js';

export const VIP_FAILOVER_MODES = ['virtual-port', 'learned-mac'] as const;
export type VipFailoverMode = (typeof VIP_FAILOVER_MODES)[number];

export interface FailoverBenchOptions {
  /** octonet's `ovn.vip_failover` settings to measure, each on its own lab. */
  modes: VipFailoverMode[];
  /** Failovers per keepalived setting and NB size. */
  rounds: number;
  /** The big NB: ports and routers made through the API before the second series (0 ports: skip it). */
  ports: number;
  routers: number;
  keepLab: boolean;
  resultsDir: string;
}

export const HELP = `usage: npm run bench:failover -- [options]

Starts a 3-node OVN lab (amphorae on node1 and node2, gateway chassis node2 and node3) and octonet
serve (SQLite), builds an Octavia-style load balancer (VIP port, two amphora ports with the VIP in
their allowed address pairs, keepalived with Octavia's settings, a floating IP on the VIP), probes
the floating IP from outside every 5 ms, and kills the master amphora again and again:
  (a) kill → the backup's gratuitous ARP (VRRP), (b) that ARP → first reply through the floating
  IP (OVN rebinding), (c) the outage the client sees, (d) that ARP → the API showing the VIP port
  on the backup's node; with keepalived at Octavia's defaults and at the fastest timers it allows;
  first on a small NB, then again after filling the NB with --ports ports and --routers routers;
  for each of octonet's ovn.vip_failover modes (virtual-port, learned-mac), each on its own lab.

  --rounds N          failovers per setting and NB size (default 5)
  --modes LIST        ovn.vip_failover modes, comma-separated (default virtual-port,learned-mac)
  --ports N           ports in the big NB (default 10000; 0 skips the big-NB series)
  --routers N         routers in the big NB, each with a network and subnet (default 500)
  --keep-lab          leave the lab (octonet-failover) up at the end
  --results-dir DIR   where <timestamp>.json and <timestamp>.logs/ go (default bench/failover/results)
  --help`;

/** Returns undefined when --help was asked for. */
export function parseFailoverBenchOptions(argv: string[]): FailoverBenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      rounds: { type: 'string' },
      modes: { type: 'string' },
      ports: { type: 'string' },
      routers: { type: 'string' },
      'keep-lab': { type: 'boolean', default: false },
      'results-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  const routers = intOption('routers', values.routers, 500);
  if (routers > 4096) throw new Error('--routers must be at most 4096 (one /24 each in 172.16.0.0/12)');
  const modes = (values.modes ?? VIP_FAILOVER_MODES.join(',')).split(',').map((m) => m.trim());
  for (const mode of modes) {
    if (!(VIP_FAILOVER_MODES as readonly string[]).includes(mode)) {
      throw new Error(`--modes: ${mode} is not one of ${VIP_FAILOVER_MODES.join(', ')}`);
    }
  }
  return {
    modes: [...new Set(modes)] as VipFailoverMode[],
    rounds: intOption('rounds', values.rounds, 5),
    ports: intOption('ports', values.ports, 10_000, 0),
    routers,
    keepLab: values['keep-lab'] ?? false,
    resultsDir: values['results-dir'] ?? 'bench/failover/results',
  };
}

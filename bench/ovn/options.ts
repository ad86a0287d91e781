/**
 * The options of `npm run bench:ovn -- ...`: how many samples each figure takes, whether the real
 * Neutron runs, where results go. Owns parsing and the help text only; nothing here starts a process.
 */
import { parseArgs } from 'node:util';
import { intOption } from '../goals-report.js';

export interface OvnBenchOptions {
  /** Port create → ACTIVE samples, each with a VM plugged on node1 or node2 in turn. */
  activeSamples: number;
  /** Sequential port creates, then as many updates and deletes, with OVN writes on. */
  ports: number;
  /** LSPs deleted behind octonet's back, one at a time, each timed until it is back. */
  repairs: number;
  /** Ports in the database for the start-up full pass. */
  fullSyncPorts: number;
  /** Port creates / updates / deletes against the real Neutron. */
  neutronPorts: number;
  skipNeutron: boolean;
  resultsDir: string;
}

export const HELP = `usage: npm run bench:ovn -- [options]

Starts a 2-node OVN lab and octonet serve (SQLite) writing its NB, then measures: port create →
ACTIVE against ovn-controller's own claim, port churn with NB transactions per API write, repair of
a deleted Logical_Switch_Port, the start-up full pass over many ports, and the NB transactions per
API write of the real Neutron + ML2/OVN (the anchor in ../shared/anchors/neutron-zed).

  --active-samples N     port create → ACTIVE samples (default 30)
  --ports N              sequential port creates, updates and deletes (default 500 each)
  --repairs N            deleted LSPs timed until octonet has put them back (default 20)
  --full-sync-ports N    ports in the database for the full-pass figure (default 10000)
  --neutron-ports N      port creates, updates and deletes against Neutron (default 50 each)
  --skip-neutron         do not use the Neutron anchor
  --results-dir DIR      where <timestamp>.json and <timestamp>.logs/ go (default bench/ovn/results)
  --help`;

/** Returns undefined when --help was asked for. */
export function parseOvnBenchOptions(argv: string[]): OvnBenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'active-samples': { type: 'string' },
      ports: { type: 'string' },
      repairs: { type: 'string' },
      'full-sync-ports': { type: 'string' },
      'neutron-ports': { type: 'string' },
      'skip-neutron': { type: 'boolean', default: false },
      'results-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  return {
    activeSamples: intOption('active-samples', values['active-samples'], 30),
    ports: intOption('ports', values.ports, 500),
    repairs: intOption('repairs', values.repairs, 20),
    fullSyncPorts: intOption('full-sync-ports', values['full-sync-ports'], 10_000),
    neutronPorts: intOption('neutron-ports', values['neutron-ports'], 50),
    skipNeutron: values['skip-neutron'] ?? false,
    resultsDir: values['results-dir'] ?? 'bench/ovn/results',
  };
}

/**
 * `octonet node-agent --node NAME -f spec.yaml`: the node agent as a command. Each pass re-reads
 * the spec (a node removed from it is unplugged on the next pass), runs `runNodeAgentPass` and
 * prints what it changed and, when they change, the node's conditions. `--once` runs one pass (and
 * the ones it requeues while its change settles) and exits 0 when the node is Ready, 1 when not, 2
 * for a bad spec or flags. Between timed passes, a change to the node's OVS interfaces (an OVS
 * restart, a deleted o-hm0) starts a pass at once, and a pass that asks to be requeued is followed
 * by the next after the delay it names.
 *
 * Where the node's commands run: on this machine by default (a controller node, or a DaemonSet
 * pod in the host's network namespace); `--netns NS` runs them in a network namespace; `--lab LAB`
 * runs them in the lab node of that name (its namespace, with its OVS's environment).
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { openLab } from '../lab/index.js';
import { KeystoneAuthError } from '../mgmtnet/keystone-auth.js';
import { NeutronApiError, NeutronClient } from '../mgmtnet/neutron-client.js';
import {
  fromNeutronClient,
  runNodeAgentPass,
  runNodeAgentUntilSettled,
  type NodeAgentLog,
  type NodeAgentPassOptions,
  type NodeAgentReport,
} from '../mgmtnet/node-agent/index.js';
import { watchOvsInterfaces } from '../mgmtnet/node-agent/ovs-watch.js';
import { parseSpec, SpecError } from '../mgmtnet/spec.js';

interface NodeAgentOptions {
  node: string;
  file: string;
  osUrl?: string;
  once?: boolean;
  interval: number;
  netns?: string;
  lab?: string;
  json?: boolean;
  probe: boolean;
  watch: boolean;
}

const log: NodeAgentLog = {
  info: (fields, message) => line('info', fields, message),
  warn: (fields, message) => line('warn', fields, message),
};

function line(level: string, fields: object, message: string): void {
  const rest = Object.entries(fields)
    .filter(([key]) => key !== 'node' && key !== 'interface')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  process.stderr.write(`node-agent: ${level === 'warn' ? 'warning: ' : ''}${message}${rest ? ` ${rest}` : ''}\n`);
}

function prefixFor(options: NodeAgentOptions): string[] {
  if (options.lab) return openLab({ name: options.lab }).nodeCommand(options.node, []);
  if (options.netns) return ['ip', 'netns', 'exec', options.netns];
  return [];
}

export function describeReport(report: NodeAgentReport): string {
  const port = report.port;
  const lines = [
    `node ${report.node} (chassis ${report.chassis ?? '?'}): ${report.interface}` +
      (port
        ? ` port ${port.id} mac ${port.mac} ${port.fixedIps.join(', ')} MTU ${report.mtu} ${port.status}`
        : ' no port'),
  ];
  if (report.routes.length) lines.push(`  routes: ${report.routes.join(', ')}`);
  for (const c of report.conditions)
    lines.push(`  ${c.type.padEnd(18)} ${c.status.padEnd(7)} ${c.reason}: ${c.message}`);
  return lines.join('\n') + '\n';
}

const conditionsKey = (report: NodeAgentReport) =>
  report.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`).join(',');

/** A pass's options; the spec is re-read each time. */
function passOptions(
  options: NodeAgentOptions,
  client: NeutronClient,
  previous?: NodeAgentReport,
): NodeAgentPassOptions {
  return {
    client: fromNeutronClient(client),
    spec: parseSpec(readFileSync(options.file, 'utf8')),
    node: options.node,
    host: prefixFor(options),
    log,
    probe: options.probe,
    previous,
  };
}

async function runAgent(options: NodeAgentOptions): Promise<number> {
  const client = await NeutronClient.fromEnvironment(options.osUrl);
  if (options.once) {
    // One answer, after the change it made has settled (the port ACTIVE), as `--once` promises.
    const report = await runNodeAgentUntilSettled(passOptions(options, client));
    process.stdout.write(options.json ? JSON.stringify(report, null, 2) + '\n' : describeReport(report));
    return report.ready ? 0 : 1;
  }
  let stopping = false;
  // Set by a signal or an OVS change; a change during a pass makes the next one start at once.
  let pending = false;
  let wake: (() => void) | undefined;
  const poke = () => {
    pending = true;
    wake?.();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopping = true;
      poke();
    });
  }
  const watch = options.watch ? watchOvsInterfaces(prefixFor(options), poke) : undefined;
  let previous: NodeAgentReport | undefined;
  while (!stopping) {
    pending = false;
    // The next pass: after the interval, or sooner when this one asks (a change still settling).
    let nextMs = options.interval * 1000;
    try {
      const report = await runNodeAgentPass(passOptions(options, client, previous));
      if (report.actions.length || !previous || conditionsKey(previous) !== conditionsKey(report)) {
        process.stdout.write(options.json ? JSON.stringify(report) + '\n' : describeReport(report));
      }
      previous = report;
      if (report.requeue) nextMs = Math.min(nextMs, report.requeue.afterMs);
    } catch (error) {
      // A level-triggered loop keeps going: Neutron or OVS may be back on the next pass.
      if (error instanceof SpecError) log.warn({}, `invalid spec, keeping the interface as it is: ${error.message}`);
      else if (error instanceof NeutronApiError) log.warn({}, error.describe());
      else log.warn({}, (error as Error).message);
    }
    if (pending) continue;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, nextMs);
    });
    clearTimeout(timer);
    wake = undefined;
  }
  watch?.stop();
  return 0;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

export function registerNodeAgentCommand(program: Command): void {
  program
    .command('node-agent')
    .description("plug this node's Octavia management port (o-hm0) and keep it plugged")
    .requiredOption('--node <name>', "this node's name in the spec (spec.nodes[].name)")
    .requiredOption('-f, --file <spec.yaml>', 'the OctaviaManagementNetwork spec (re-read on every pass)')
    .option('--os-url <url>', 'Neutron endpoint without auth (noauth); otherwise OS_* variables or clouds.yaml')
    .option('--once', 'run one pass; exit 0 when Ready, 1 when not')
    .option('--interval <seconds>', 'time between passes', seconds, 10)
    .option('--netns <namespace>', "run the node's commands in this network namespace")
    .option('--lab <name>', 'run them in the lab node named by --node (its namespace and OVS)')
    .option('--json', 'print reports as JSON')
    .option('--no-probe', 'skip the active heartbeat-path probe')
    .option('--no-watch', "only timed passes (default: also a pass whenever the node's OVS interfaces change)")
    .action(async (options: NodeAgentOptions) => {
      try {
        process.exitCode = await runAgent(options);
      } catch (error) {
        if (error instanceof SpecError) {
          process.stderr.write(`octonet node-agent: invalid spec: ${error.message}\n`);
          process.exitCode = 2;
        } else if (error instanceof NeutronApiError) {
          process.stderr.write(`octonet node-agent: ${error.describe()}\n`);
          process.exitCode = 1;
        } else if (error instanceof KeystoneAuthError) {
          process.stderr.write(`octonet node-agent: ${error.message}\n`);
          process.exitCode = 1;
        } else {
          throw error;
        }
      }
    });
}

/**
 * `octonet operator`: the management-network reconcile driven by Kubernetes custom resources
 * (src/mgmtnet/kube). Subcommands:
 *   octonet operator [--kube-url URL | --kubeconfig FILE] [--namespace NS] [--os-url URL]
 *                    [--no-leader-elect] [--lease-name NAME] [--lease-duration/--renew-deadline/--retry-period S]
 *   octonet operator node-agent [--node NAME]   (the DaemonSet: plugs its node's ports)
 *   octonet operator crds [--write DIR]          (the CRD manifests, generated from the spec schema)
 * The Kubernetes flavour of the node agent lives here, not as a flag on `octonet node-agent`
 * (whose --node/-f are required for the file-driven mode), so the two commands stay independent.
 * Neutron credentials: `--os-url` (noauth) or the usual OS_* variables / clouds.yaml (OS_CLOUD),
 * as `octonet mgmt-net`. Parses flags and starts the pieces; knows nothing of reconciling.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { pino, type Logger } from 'pino';
import type { KubeClient } from '../mgmtnet/kube/client.js';
import { CRD_FILES, renderCrdYaml } from '../mgmtnet/kube/crds.js';
import { parseWorkloadRef, type WorkloadRef } from '../mgmtnet/kube/rollout.js';
import { NeutronClient } from '../mgmtnet/neutron-client.js';
import { fromNeutronClient } from '../mgmtnet/node-agent/index.js';

interface KubeFlags {
  kubeUrl?: string;
  kubeconfig?: string;
  namespace?: string;
  osUrl?: string;
  logLevel: string;
}

function workloadRef(value: string, previous: WorkloadRef[]): WorkloadRef[] {
  try {
    return [...previous, parseWorkloadRef(value)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

interface OperatorFlags {
  resync: number;
  rollWorkload: WorkloadRef[];
  leaderElect: boolean;
  leaseName: string;
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

/**
 * The modules that talk to Kubernetes, loaded when a command needs them: they load
 * @kubernetes/client-node (measured: about 0.5 s and 45 MiB more RSS), which `octonet serve` and
 * every other command sharing this CLI must not pay for.
 */
async function loadKube() {
  const [client, connection, election, agent, operator] = await Promise.all([
    import('../mgmtnet/kube/client.js'),
    import('../mgmtnet/kube/connection.js'),
    import('../mgmtnet/kube/leader-election.js'),
    import('../mgmtnet/kube/node-agent.js'),
    import('../mgmtnet/kube/operator.js'),
  ]);
  return { ...client, ...connection, ...election, ...agent, ...operator };
}
type Kube = Awaited<ReturnType<typeof loadKube>>;

function connect(k: Kube, flags: KubeFlags, userAgent: string): { kube: KubeClient; namespace: string } {
  const connection = k.resolveConnection({ url: flags.kubeUrl, kubeconfig: flags.kubeconfig });
  // The pod's own namespace by default: the operator serves the namespace it is deployed in.
  const namespace = flags.namespace ?? process.env.POD_NAMESPACE ?? connection.namespace ?? 'default';
  return { kube: new k.KubeClient(connection, userAgent), namespace };
}

/** SIGINT/SIGTERM abort the loops; the command resolves once they have stopped. */
function stopSignal(logger: Logger): AbortSignal {
  const abort = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'stopping');
      abort.abort();
    });
  }
  return abort.signal;
}

function withKubeFlags(command: Command): Command {
  return command
    .option('--kube-url <url>', 'Kubernetes API URL without credentials (kubectl proxy); default: in-cluster')
    .option('--kubeconfig <file>', 'a kubeconfig file (default: $KUBECONFIG, else the in-cluster service account)')
    .option('--namespace <ns>', 'namespace of the resources (default: $POD_NAMESPACE, the service account’s)')
    .option('--os-url <url>', 'Neutron endpoint without auth (noauth); otherwise OS_* variables or clouds.yaml')
    .option('--log-level <level>', 'fatal, error, warn, info, debug or trace', 'info');
}

async function guarded(name: string, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    // By name: the class lives in a module loaded only on demand.
    if (error instanceof Error && error.name === 'KubeConnectionError') {
      process.stderr.write(`octonet ${name}: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

export function registerOperatorCommand(program: Command): void {
  const operator = withKubeFlags(
    program
      .command('operator')
      .description('reconcile OctaviaManagementNetwork custom resources (Kubernetes)')
      .option('--resync <seconds>', 'reconcile every network this often, to repair drift in Neutron', seconds, 60)
      .option(
        '--roll-workload <kind/name>',
        'a health manager or worker workload (daemonset/, deployment/, statefulset/) rolled when the controller list changes; repeatable',
        workloadRef,
        [],
      )
      .option('--no-leader-elect', 'reconcile without taking the Lease (a single replica only)')
      .option('--lease-name <name>', 'the coordination.k8s.io Lease the replicas elect a leader on', 'octonet-operator')
      .option('--lease-duration <seconds>', 'how long a Lease stays valid without renewal', seconds, 15)
      .option(
        '--renew-deadline <seconds>',
        'the leader stops leading when it could not renew for this long',
        seconds,
        10,
      )
      .option('--retry-period <seconds>', 'time between acquisition attempts and renewals', seconds, 2),
  ).action(async (flags: KubeFlags & OperatorFlags) =>
    guarded('operator', async () => {
      if (
        flags.leaderElect &&
        !(flags.retryPeriod < flags.renewDeadline && flags.renewDeadline < flags.leaseDuration)
      ) {
        process.stderr.write('octonet operator: need --retry-period < --renew-deadline < --lease-duration\n');
        process.exitCode = 2;
        return;
      }
      const logger = pino({ level: flags.logLevel, base: { service: 'octonet-operator' } });
      const k = await loadKube();
      const { kube, namespace } = connect(k, flags, 'octonet-operator');
      const neutron = await NeutronClient.fromEnvironment(flags.osUrl);
      // The pod's name (downward API) names this replica in the Lease and in Events.
      const identity = process.env.POD_NAME ?? hostname();
      logger.info({ server: kube.server, namespace, identity }, 'operator starting');
      const signal = stopSignal(logger);
      const run = (leading: AbortSignal) =>
        k.runOperator({
          kube,
          namespace,
          neutron,
          signal: leading,
          logger,
          identity,
          resyncMs: flags.resync * 1000,
          rollWorkloads: flags.rollWorkload,
        });
      if (!flags.leaderElect) return run(signal);
      await k.runWithLeaderElection({
        kube,
        namespace,
        name: flags.leaseName,
        identity,
        leaseDurationMs: flags.leaseDuration * 1000,
        renewDeadlineMs: flags.renewDeadline * 1000,
        retryPeriodMs: flags.retryPeriod * 1000,
        signal,
        logger,
        onLeading: run,
      });
    }),
  );

  withKubeFlags(
    operator
      .command('node-agent')
      .description("plug this node's management ports, as its OctaviaManagementPort resources say (DaemonSet)")
      .option('--node <name>', "this node's Kubernetes name (default: $NODE_NAME, from the downward API)")
      .option('--interval <seconds>', 'time between repair passes', seconds, 30)
      .option('--no-probe', 'skip the active heartbeat-path probe'),
  ).action(async (_flags: unknown, command: Command) =>
    guarded('operator node-agent', async () => {
      // The shared flags (--kube-url…) exist on `operator` too and commander gives them to the
      // parent wherever they appear: read both levels.
      const flags = command.optsWithGlobals<KubeFlags & { node?: string; interval: number; probe: boolean }>();
      const node = flags.node ?? process.env.NODE_NAME;
      if (!node) {
        process.stderr.write('octonet operator node-agent: give --node or set NODE_NAME\n');
        process.exitCode = 2;
        return;
      }
      const logger = pino({ level: flags.logLevel, base: { service: 'octonet-node-agent', node } });
      const k = await loadKube();
      const { kube, namespace } = connect(k, flags, 'octonet-node-agent');
      const neutron = fromNeutronClient(await NeutronClient.fromEnvironment(flags.osUrl));
      logger.info({ server: kube.server, namespace }, 'node agent starting');
      await k.runKubeNodeAgent({
        kube,
        namespace,
        node,
        neutron,
        host: [],
        signal: stopSignal(logger),
        logger,
        intervalMs: flags.interval * 1000,
        probe: flags.probe,
      });
    }),
  );

  operator
    .command('crds')
    .description('print the CustomResourceDefinitions (generated from the spec schema), or write them')
    .option('--write <dir>', 'write one file per CRD into this directory')
    .action((flags: { write?: string }) => {
      for (const file of Object.keys(CRD_FILES) as (keyof typeof CRD_FILES)[]) {
        const text = renderCrdYaml(file);
        if (flags.write) {
          mkdirSync(flags.write, { recursive: true });
          writeFileSync(join(flags.write, file), text);
        } else process.stdout.write(`---\n${text}`);
      }
    });
}

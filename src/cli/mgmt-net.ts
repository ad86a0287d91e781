/**
 * `octonet mgmt-net apply|status|delete -f spec.yaml`: the command-line face of src/mgmtnet.
 *
 * Parses flags, reads the spec and the files that keep state between runs, calls the reconcile and
 * prints. Next to the spec (or where the flags say) live:
 * - `<spec>.state.json`: the last status (stored IDs, condition times, the last controller list, so
 *   `controllerListChanged` means "since the last apply");
 * - `<spec>.heartbeat-key` (or `spec.heartbeatKey.file`): the generated heartbeat key, 0600;
 * - with `--octavia-config-dir DIR`: `DIR/<node>.conf`, the INI fragment per node (0600: it holds the key);
 * - `<state>.octavia.json`: the controller list last delivered to the running Octavia services
 *   (`--reload-octavia`) and amphorae (`--configure-amphorae`), so a failed delivery is retried.
 * Exit status: 0 when Ready, 1 when not (or Neutron failed), 2 for a bad spec or bad flags.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { OctaviaClient } from '../mgmtnet/amphora-configure.js';
import { KeystoneAuthError } from '../mgmtnet/keystone-auth.js';
import { NeutronApiError, NeutronClient } from '../mgmtnet/neutron-client.js';
import { loadOrCreateHeartbeatKey, renderIni } from '../mgmtnet/octavia-config.js';
import { propagateControllerList, type PropagationState } from '../mgmtnet/octavia-propagate.js';
import { parseReloadTarget, type ReloadTarget } from '../mgmtnet/octavia-reload.js';
import { parseWorkloadRef, type WorkloadRef } from '../mgmtnet/kube/rollout.js';
import {
  applySpec,
  deleteSpec,
  readStatus,
  type ApplyReport,
  type MgmtNetStatus,
  type ObjectReport,
} from '../mgmtnet/reconcile.js';
import { parseSpec, SpecError, type MgmtNetSpec } from '../mgmtnet/spec.js';

interface CommonOptions {
  file: string;
  osUrl?: string;
  json?: boolean;
  state?: string;
}

function log(message: string, fields: Record<string, unknown> = {}): void {
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  process.stderr.write(`mgmt-net: ${message}${rest ? ` ${rest}` : ''}\n`);
}

function readSpec(file: string): MgmtNetSpec {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SpecError('(file)', `cannot read ${file}: ${(error as Error).message}`);
  }
  return parseSpec(text);
}

function statePath(options: CommonOptions): string {
  return options.state ?? `${options.file}.state.json`;
}

function readState(path: string): MgmtNetStatus | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as MgmtNetStatus;
  } catch {
    log('ignoring an unreadable state file', { path });
    return undefined;
  }
}

function writeAtomically(path: string, text: string, mode = 0o644): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, text, { mode });
  renameSync(temporary, path);
}

/** Runs an action; a bad spec or flags exit 2, a Neutron or auth failure exits 1, with one line. */
function guarded<A extends unknown[]>(action: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      process.exitCode = await action(...args);
    } catch (error) {
      if (error instanceof SpecError) {
        process.stderr.write(`octonet mgmt-net: invalid spec: ${error.message}\n`);
        process.exitCode = 2;
      } else if (error instanceof NeutronApiError) {
        process.stderr.write(`octonet mgmt-net: ${error.describe()}\n`);
        process.exitCode = 1;
      } else if (error instanceof InvalidArgumentError) {
        process.stderr.write(`octonet mgmt-net: ${error.message}\n`);
        process.exitCode = 2;
      } else if (error instanceof Error && error.name === 'KubeConnectionError') {
        // By name: the class lives in a module loaded only for --worker-rollout.
        process.stderr.write(`octonet mgmt-net: ${error.message}\n`);
        process.exitCode = 2;
      } else if (error instanceof KeystoneAuthError) {
        process.stderr.write(`octonet mgmt-net: ${error.message}\n`);
        process.exitCode = 1;
      } else {
        throw error;
      }
    }
  };
}

function describeObjects(objects: readonly ObjectReport[]): string {
  const kindWidth = Math.max(4, ...objects.map((o) => o.kind.length));
  return objects
    .map(
      (o) =>
        `  ${o.action.padEnd(9)} ${o.kind.padEnd(kindWidth)} ${o.name}${o.id ? `  (${o.id})` : ''}${o.detail ? `  [${o.detail}]` : ''}`,
    )
    .join('\n');
}

function describeStatus(status: MgmtNetStatus): string {
  const lines = ['conditions:'];
  for (const c of status.conditions)
    lines.push(`  ${c.type.padEnd(20)} ${c.status.padEnd(7)} ${c.reason}: ${c.message}`);
  lines.push('nodes:');
  for (const n of status.nodes) {
    lines.push(
      `  ${n.name.padEnd(12)} port ${n.portId ?? '-'}  mac ${n.mac ?? '-'}  ${n.fixedIps.join(', ') || '-'}  host ${n.chassis ?? '-'}  ${n.status}`,
    );
  }
  const o = status.octavia;
  lines.push(
    'octavia:',
    `  [health_manager] bind_port = ${o.health_manager.bind_port}`,
    `  [health_manager] controller_ip_port_list = ${o.health_manager.controller_ip_port_list.join(', ')}`,
    `  [controller_worker] amp_boot_network_list = ${o.controller_worker.amp_boot_network_list.join(', ')}`,
    `  [controller_worker] amp_secgroup_list = ${o.controller_worker.amp_secgroup_list.join(', ')}`,
  );
  return lines.join('\n');
}

function isReady(status: MgmtNetStatus): boolean {
  return status.conditions.find((c) => c.type === 'Ready')?.status === 'True';
}

interface ApplyFlags extends CommonOptions {
  watch?: boolean;
  interval: number;
  octaviaConfigDir?: string;
  rotateHeartbeatKey?: boolean;
  reloadOctavia: ReloadTarget[];
  configureAmphorae?: boolean;
  octaviaUrl?: string;
  workerRollout: WorkloadRef[];
  kubeUrl?: string;
  kubeconfig?: string;
  kubeNamespace?: string;
}

type WorkerCheck = (list: readonly string[]) => Promise<{ ready: boolean; detail: string }>;

/**
 * `--worker-rollout`: the amphorae are configured (and that recorded) once the worker workloads
 * rolled out with the list the operator put on them. The Kubernetes modules load only then: they
 * load @kubernetes/client-node, which every other use of this command must not pay for.
 */
async function workerCheckFrom(options: ApplyFlags, network: string): Promise<WorkerCheck | undefined> {
  if (options.workerRollout.length === 0) return undefined;
  if (!options.configureAmphorae) throw new InvalidArgumentError('--worker-rollout goes with --configure-amphorae');
  const [{ KubeClient }, { resolveConnection }, { workloadsRolledOut }] = await Promise.all([
    import('../mgmtnet/kube/client.js'),
    import('../mgmtnet/kube/connection.js'),
    import('../mgmtnet/kube/rollout.js'),
  ]);
  const connection = resolveConnection({ url: options.kubeUrl, kubeconfig: options.kubeconfig });
  const namespace = options.kubeNamespace ?? connection.namespace ?? 'default';
  const kube = new KubeClient(connection, 'octonet-mgmt-net');
  return (list) => workloadsRolledOut(kube, namespace, options.workerRollout, network, list);
}

function octaviaStatePath(options: CommonOptions): string {
  return `${statePath(options).replace(/\.json$/, '')}.octavia.json`;
}

/** Octavia's API: `--octavia-url`, else the catalog's `load-balancer` endpoint; the token when there is one. */
async function octaviaClientFrom(options: ApplyFlags, client: NeutronClient): Promise<OctaviaClient | undefined> {
  if (!options.configureAmphorae) return undefined;
  const keystone = client.keystone;
  if (!keystone) {
    if (options.octaviaUrl) return new OctaviaClient({ url: options.octaviaUrl });
    throw new InvalidArgumentError('--configure-amphorae without Keystone credentials needs --octavia-url');
  }
  return new OctaviaClient({
    url: options.octaviaUrl ?? (await keystone.serviceEndpoint('load-balancer')),
    authHeaders: async () => ({ 'x-auth-token': (await keystone.token()).value }),
  });
}

/** Signals Octavia and configures amphorae when the list differs from what they last got; reports, never throws. */
async function propagate(
  options: ApplyFlags,
  list: readonly string[],
  octavia: OctaviaClient | undefined,
  workerCheck: WorkerCheck | undefined,
): Promise<void> {
  if (options.reloadOctavia.length === 0 && octavia === undefined) return;
  const path = octaviaStatePath(options);
  let previous: PropagationState = {};
  try {
    if (existsSync(path)) previous = JSON.parse(readFileSync(path, 'utf8')) as PropagationState;
  } catch {
    log('ignoring an unreadable state file', { path });
  }
  const result = await propagateControllerList(list, previous, {
    reload: options.reloadOctavia,
    ...(octavia ? { octavia } : {}),
    ...(workerCheck ? { workerCheck } : {}),
    amphoraPush: { log },
  });
  for (const r of result.reloads) {
    log(r.ok ? 'reloaded' : 'reload FAILED (tried again next pass)', { target: r.target, detail: r.detail });
  }
  if (result.waiting !== undefined)
    log('amphora configure waits for the worker (tried again next pass)', { why: result.waiting });
  if (result.unconfirmed) {
    log(
      'amphora configure not recorded: nothing tells that the worker has this list (give --reload-octavia for it, or --worker-rollout); pushed again next pass',
    );
  }
  const a = result.amphorae;
  if (a?.error !== undefined) log('amphora configure FAILED (tried again next pass)', { error: a.error });
  else if (a) {
    log('amphora configure', { configured: a.configured.length, skipped: a.skipped.length, failed: a.failed.length });
    for (const f of a.failed)
      log('amphora configure FAILED (tried again next pass)', { amphora: f.id, error: f.error });
  }
  writeAtomically(path, `${JSON.stringify(result.state, null, 2)}\n`);
}

async function applyOnce(
  options: ApplyFlags,
  client: NeutronClient,
  rotate: boolean,
  octavia: OctaviaClient | undefined,
  workerCheck?: WorkerCheck,
): Promise<ApplyReport> {
  const spec = readSpec(options.file);
  const keyFile = spec.spec.heartbeatKey.file ?? `${options.file}.heartbeat-key`;
  const key = loadOrCreateHeartbeatKey(keyFile, rotate);
  if (key.created) log('generated a heartbeat key', { file: keyFile });
  if (key.rotated) {
    // heartbeat_key is mutable and part of the amphora agent config: deliver everything again.
    if (existsSync(octaviaStatePath(options))) writeAtomically(octaviaStatePath(options), '{}\n');
    log('rotated the heartbeat key: reload the health managers and workers and configure the amphorae', {
      file: keyFile,
      ...(options.reloadOctavia.length > 0 || options.configureAmphorae ? { delivery: 'this pass' } : {}),
    });
  }
  const path = statePath(options);
  const report = await applySpec(spec, client, { previous: readState(path), log });
  writeAtomically(path, `${JSON.stringify(report.status, null, 2)}\n`);
  if (options.octaviaConfigDir) {
    mkdirSync(options.octaviaConfigDir, { recursive: true });
    for (const node of report.nodes) {
      if (node.fixedIps.length === 0) continue;
      writeAtomically(
        join(options.octaviaConfigDir, `${node.name}.conf`),
        renderIni(report.octavia, { node: node.name, addresses: node.fixedIps }, key.key),
        0o600,
      );
    }
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...report, status: report.status }, null, 2)}\n`);
  } else {
    process.stdout.write(`${describeObjects(report.objects)}\n${describeStatus(report.status)}\n`);
    process.stdout.write(
      `controller list ${report.controllerListChanged ? `CHANGED${options.reloadOctavia.length > 0 ? '' : ': reload the health managers and workers (SIGHUP; see --reload-octavia)'}` : 'unchanged'}; Neutron calls: ${report.calls.reads} reads, ${report.calls.writes} writes\n`,
    );
  }
  if (report.error) log('apply stopped', { error: report.error });
  // A pass stopped half-way knows only part of the nodes: its list is not one to hand out.
  else await propagate(options, report.octavia.health_manager.controller_ip_port_list, octavia, workerCheck);
  return report;
}

async function clientFrom(options: CommonOptions): Promise<NeutronClient> {
  return NeutronClient.fromEnvironment(options.osUrl);
}

function collectReloadTarget(value: string, previous: ReloadTarget[]): ReloadTarget[] {
  try {
    return [...previous, parseReloadTarget(value)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function collectWorkloadRef(value: string, previous: WorkloadRef[]): WorkloadRef[] {
  try {
    return [...previous, parseWorkloadRef(value)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number of seconds');
  return n;
}

export function registerMgmtNetCommand(program: Command): void {
  const mgmt = program
    .command('mgmt-net')
    .description('the Octavia management network: apply a spec to Neutron, show its status, delete it');
  const common = (command: Command) =>
    command
      .requiredOption('-f, --file <spec.yaml>', 'the OctaviaManagementNetwork spec')
      .option('--os-url <url>', 'Neutron endpoint without authentication (noauth); default: OS_* variables or OS_CLOUD')
      .option('--state <file>', 'where the last status is kept (default: <spec>.state.json)')
      .option('--json', 'print JSON');

  common(mgmt.command('apply').description('create or update what the spec describes (idempotent)'))
    .option('--watch', 'apply again every --interval seconds until interrupted')
    .option('--interval <seconds>', 'seconds between passes with --watch', parseSeconds, 30)
    .option('--octavia-config-dir <dir>', 'write the INI fragment of each node to <dir>/<node>.conf')
    .option('--rotate-heartbeat-key', 'generate a new heartbeat key (the old one is replaced)')
    .option(
      '--reload-octavia <target>',
      'when the controller list changed, SIGHUP an Octavia service (health managers and workers): systemd:<unit>, pidfile:<path> or command:<shell command>; repeatable',
      collectReloadTarget,
      [],
    )
    .option(
      '--configure-amphorae',
      "when the controller list changed, push it to every amphora (Octavia's amphora configure)",
    )
    .option(
      '--octavia-url <url>',
      "Octavia's API for --configure-amphorae (default: the catalog's load-balancer endpoint)",
    )
    .option(
      '--worker-rollout <kind/name>',
      'Kubernetes: configure the amphorae once this worker workload (deployment/, daemonset/, statefulset/) rolled out with the list the operator put on it; repeatable',
      collectWorkloadRef,
      [],
    )
    .option('--kube-url <url>', 'for --worker-rollout: Kubernetes API URL without credentials (kubectl proxy)')
    .option('--kubeconfig <file>', 'for --worker-rollout: a kubeconfig file (default: $KUBECONFIG, else in-cluster)')
    .option('--kube-namespace <ns>', "for --worker-rollout: the workloads' namespace (default: the context's)")
    .action(
      guarded(async (options: ApplyFlags) => {
        const client = await clientFrom(options);
        const octavia = await octaviaClientFrom(options, client);
        const workerCheck = await workerCheckFrom(options, readSpec(options.file).metadata.name);
        let report = await applyOnce(options, client, options.rotateHeartbeatKey === true, octavia, workerCheck);
        if (!options.watch) return report.error || !isReady(report.status) ? 1 : 0;
        // The wait between passes ends early on SIGINT/SIGTERM, so a stop never waits a full interval.
        let stopping = false;
        let wake: () => void = () => undefined;
        const stop = () => {
          stopping = true;
          wake();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        while (!stopping) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, options.interval * 1000);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          if (stopping) break;
          try {
            report = await applyOnce(options, client, false, octavia, workerCheck);
          } catch (error) {
            // Level-triggered: a failed pass (a bad edit of the spec, Neutron away) is reported and the next one tries again.
            log('pass failed', { error: (error as Error).message });
          }
        }
        return 0;
      }),
    );

  common(
    mgmt.command('status').description("print conditions, node ports and addresses, and Octavia's options"),
  ).action(
    guarded(async (options: CommonOptions) => {
      const spec = readSpec(options.file);
      const client = await clientFrom(options);
      const status = await readStatus(spec, client, { previous: readState(statePath(options)) });
      process.stdout.write(options.json ? `${JSON.stringify(status, null, 2)}\n` : `${describeStatus(status)}\n`);
      return isReady(status) ? 0 : 1;
    }),
  );

  common(
    mgmt.command('delete').description('delete what the spec owns; rename what is still in use to <name>-orphaned'),
  ).action(
    guarded(async (options: CommonOptions) => {
      const spec = readSpec(options.file);
      const client = await clientFrom(options);
      const report = await deleteSpec(spec, client, { log });
      process.stdout.write(
        options.json ? `${JSON.stringify(report, null, 2)}\n` : `${describeObjects(report.objects)}\n`,
      );
      const orphaned = report.objects.filter((o) => o.action === 'orphaned');
      if (orphaned.length > 0 && !options.json) {
        process.stdout.write(`${orphaned.length} object(s) still in use were renamed *-orphaned and left in place\n`);
      }
      return 0;
    }),
  );
}

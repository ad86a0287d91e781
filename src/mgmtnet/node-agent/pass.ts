/**
 * One level-triggered pass of the node agent, in four steps: observe (the node's port in Neutron,
 * the chassis name and the interface in the node's own OVS: `observe.ts`), plug (`binding:host_id`
 * and the OVS interface: `plug.ts`), address (the link's MAC, MTU, addresses and routes:
 * `address.ts`) and probe (`probe.ts`); then the result is observed again and the conditions say
 * why the node is not ready. Running it again with nothing changed changes nothing. It owns one
 * OVS interface per node (marked with the spec's name) and the addresses and routes on it; it
 * touches one Neutron attribute, the port's `binding:host_id`.
 *
 * The port is found by its owner tags (`octonet-mgmt-net:<name>` and `octonet-node:<node>`), never
 * by name: a port someone else made with the same name is not ours. No port means the node left
 * (or the operator has not made it yet): the interface is removed, so a node that left stops
 * answering on its old address even if OVN's flows linger.
 *
 * A pass never waits. After a change, OVN takes a moment to claim the port and Neutron to report
 * it ACTIVE: the pass then asks to be run again soon (`requeue`), for up to `settleMs` after its
 * last change, and the caller's loop schedules that pass (`runNodeAgentUntilSettled` for a caller
 * that wants one settled answer).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { finding, nodeConditions, type Condition, type Finding, type NodeConditionType } from '../conditions.js';
import { nodeTag, ownerTag } from '../spec.js';
import { addressStep } from './address.js';
import { nodeStep, type NodeAgentLog, type NodeAgentSpec, type NodeStep } from './context.js';
import { hostFromPrefix, type NodeHost } from './host.js';
import { routeKey } from './link.js';
import type { NeutronPort, NodeAgentNeutron } from './neutron.js';
import { observeNode, observeOutcome, readChassis, readPortNetwork, portBound } from './observe.js';
import { bindPort, plugStep, unplugLeftover } from './plug.js';
import { probeStep } from './probe.js';

export { type NodeAgentLog, type NodeAgentSpec } from './context.js';

/** After a change, how long the passes keep asking to be re-run until the port is up. */
export const DEFAULT_SETTLE_MS = 15_000;
/** How soon a settling pass asks to be re-run. */
export const SETTLE_REQUEUE_MS = 500;

export interface NodeAgentPassOptions {
  client: NodeAgentNeutron;
  spec: NodeAgentSpec;
  /** The node's name in the spec (`nodes[].name`), as in the port's `octonet-node:` tag. */
  node: string;
  /** Where commands run: an argv prefix (`lab.nodeCommand(node, [])`, `[]` on the node itself) or a runner. */
  host: NodeHost | readonly string[];
  log?: NodeAgentLog;
  /** Routes to add besides the subnets' host routes and the link router's (e.g. from the CLI). */
  routes?: readonly { destination: string; nexthop: string }[];
  /** Skip the active probe (HeartbeatPathOpen becomes Unknown). Default: probe. */
  probe?: boolean;
  /** After a change, how long to keep requeueing until Neutron reports the port ACTIVE (default 15 s). */
  settleMs?: number;
  /** The previous pass's report: condition transition times, and whether a change is still settling. */
  previous?: NodeAgentReport;
}

/** Run the next pass sooner than the caller's period, and why (the blocking condition's reason). */
export interface Requeue {
  afterMs: number;
  reason: string;
}

export interface NodeAgentReport {
  node: string;
  interface: string;
  chassis?: string;
  port?: {
    id: string;
    mac: string;
    networkId: string;
    fixedIps: string[];
    status: string;
    hostId: string;
  };
  mtu?: number;
  routes: string[];
  /** What this pass changed, in words; empty when everything already was as it should be. */
  actions: string[];
  conditions: Condition[];
  ready: boolean;
  /** Absent: nothing is pending, the caller's periodic pass is soon enough. */
  requeue?: Requeue;
  /** While a change settles: until when (ms since the epoch) the passes requeue. */
  settleUntil?: number;
}

type Findings = Record<NodeConditionType, Finding>;

/** The same finding for every condition the pass could not get to (the probe: Unknown). */
function stoppedAt(why: Finding): Findings {
  return {
    PortBound: why,
    Plugged: why,
    Addressed: why,
    HeartbeatPathOpen: finding('Unknown', why.reason, why.message),
  };
}

export async function runNodeAgentPass(options: NodeAgentPassOptions): Promise<NodeAgentReport> {
  const host = typeof options.host === 'function' ? options.host : hostFromPrefix(options.host);
  const step = nodeStep({ ...options, host });
  const report = (found: Findings, rest: Partial<NodeAgentReport> = {}) => buildReport(step, options, found, rest);

  // Observe.
  const chassis = await readChassis(step);
  if (typeof chassis !== 'string') return report(stoppedAt(chassis));
  const observed = await observeNode(step);
  if (!observed.port) {
    await unplugLeftover(step, observed.iface);
    const gone = finding('False', 'PortNotFound', `no port tagged ${ownerTag(step.spec)} and ${nodeTag(step.node)}`);
    return report(stoppedAt(gone), { chassis });
  }
  // Plug.
  const bound = await bindPort(step, observed.port, chassis);
  const where = await readPortNetwork(step, bound);
  const mtu = where.network.mtu;
  const wanted = { name: step.dev, portId: bound.id, mac: bound.mac_address, mtu, owner: step.owner };
  const foreign = await plugStep(step, observed.iface, wanted);
  if (foreign) {
    const notOurs = finding('Unknown', foreign.reason, foreign.message);
    const found = { PortBound: portBound(bound, chassis), Plugged: foreign, Addressed: notOurs };
    return report({ ...found, HeartbeatPathOpen: notOurs }, { chassis });
  }
  // Address.
  const addressing = await addressStep(step, bound, where, options.routes);
  // The result as Neutron and OVS show it now, then the probe.
  const outcome = await observeOutcome(step, bound, chassis);
  const probe = await probeStep(step, {
    enabled: options.probe !== false,
    plugged: outcome.plugged.status === 'True' && addressing.addressed.status === 'True',
    port: outcome.port,
    mtu,
    addresses: addressing.addresses,
    gateways: addressing.gateways,
  });
  const found = {
    PortBound: outcome.portBound,
    Plugged: outcome.plugged,
    Addressed: addressing.addressed,
    HeartbeatPathOpen: probe,
  };
  const summary = { chassis, port: portSummary(outcome.port), mtu, routes: addressing.routes.map(routeKey) };
  // Only a pass that plugged and addressed can be waiting for OVN: the others stop before.
  const settle = settling({
    changed: step.actions.length > 0,
    earlier: options.previous?.settleUntil,
    found,
    settleMs: options.settleMs ?? DEFAULT_SETTLE_MS,
    now: Date.now(),
  });
  return { ...report(found, summary), ...settle };
}

function portSummary(port: NeutronPort): NonNullable<NodeAgentReport['port']> {
  return {
    id: port.id,
    mac: port.mac_address,
    networkId: port.network_id,
    fixedIps: port.fixed_ips.map((f) => f.ip_address),
    status: port.status,
    hostId: port['binding:host_id'] ?? '',
  };
}

function buildReport(
  step: NodeStep,
  options: NodeAgentPassOptions,
  found: Findings,
  rest: Partial<NodeAgentReport>,
): NodeAgentReport {
  const conditions = nodeConditions(found, options.previous?.conditions);
  return {
    node: step.node,
    interface: step.dev,
    routes: [],
    ...rest,
    actions: step.actions,
    conditions,
    ready: conditions[0]!.status === 'True',
  };
}

/**
 * Whether to run again soon: a change (this pass's, or one still settling from an earlier pass)
 * is waiting for ovn-controller to claim the port and Neutron to report it ACTIVE. The window ends
 * `settleMs` after the last change; the reason is the blocking condition's.
 */
export function settling(input: {
  changed: boolean;
  /** The previous report's `settleUntil`. */
  earlier: number | undefined;
  found: Pick<Findings, 'PortBound' | 'Plugged'>;
  settleMs: number;
  now: number;
}): Pick<NodeAgentReport, 'requeue' | 'settleUntil'> {
  const { earlier, now } = input;
  const until = input.changed ? now + input.settleMs : earlier !== undefined && earlier > now ? earlier : undefined;
  const waiting = [input.found.PortBound, input.found.Plugged].find((f) => f.status !== 'True');
  if (until === undefined || !waiting) return {};
  return { requeue: { afterMs: SETTLE_REQUEUE_MS, reason: waiting.reason }, settleUntil: until };
}

/**
 * Passes until nothing is settling: the first pass, then each requeued one after its delay, for up
 * to `settleMs` in all. The answer is the last report with every pass's actions: what a caller that
 * wants one settled answer (`node-agent --once`, a test, the demo) shows.
 */
export async function runNodeAgentUntilSettled(options: NodeAgentPassOptions): Promise<NodeAgentReport> {
  const giveUpAt = Date.now() + (options.settleMs ?? DEFAULT_SETTLE_MS);
  const actions: string[] = [];
  let report = await runNodeAgentPass(options);
  actions.push(...report.actions);
  while (report.requeue && Date.now() < giveUpAt) {
    await delay(report.requeue.afterMs);
    report = await runNodeAgentPass({ ...options, previous: report });
    actions.push(...report.actions);
  }
  return { ...report, actions };
}

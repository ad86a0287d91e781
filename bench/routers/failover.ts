/**
 * Gateway failover outage. Per run a fresh lab and octonet (startCloud): VM `left` on node1 with a
 * floating IP, the router's gateway on node2 and node3 (the HA chassis group octonet schedules).
 * Once every BFD session runs the timers asked for and the outside gets steady replies from the floating IP
 * (pinged every 5 ms, timestamped), the node whose l3-agents entry says `ha_state: active` is
 * killed (`lab.killNode`: SIGKILL of its ovn-controller and ovs-vswitchd, which on the userspace
 * datapath takes its datapath). The outage is the longest gap between two replies after the kill;
 * also timed: kill → first reply after it, the echo requests lost in it, and kill → octonet's
 * l3-agents showing another node active (polled every 50 ms).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Lab } from '../../src/lab/index.js';
import { FIP_ADDRESS, startCloud, type Cloud, type CloudOptions } from './cloud.js';
import { Prober, longestGap } from './prober.js';

export type BfdSetting = 'bfd-100ms' | 'ovn-default';

export interface FailoverRun {
  setting: BfdSetting;
  run: number;
  /** The node killed (the active gateway before). */
  killed: string;
  /**
   * BFD detection time of every session before the kill (Detect Multiplier × RX Interval in
   * ovs-appctl bfd/show: the negotiated timers, not the configured ones).
   */
  bfdDetectMs: number;
  /** The longest gap between replies after the kill, ms. */
  outageMs: number;
  /** Kill → the first reply after that gap, ms. */
  killToResumedMs: number;
  /** Echo requests without a reply in that gap. */
  lost: number;
  /** Kill → GET l3-agents shows another node active, ms. */
  agentMovedMs?: number;
  /** The node l3-agents shows active afterwards. */
  newActive?: string;
}

const WAIT_MS = 30_000;
const GATEWAYS = ['node2', 'node3'];

interface L3Agent {
  host: string;
  ha_state?: string | null;
}

async function activeGateway(cloud: Cloud): Promise<string | undefined> {
  const { agents } = await cloud.api.call<{ agents: L3Agent[] }>('GET', `/v2.0/routers/${cloud.routerId}/l3-agents`);
  return agents.find((a) => a.ha_state === 'active')?.host;
}

/** Where BFD runs: node1 (the VM, choosing which gateway to send to) and both gateway chassis. */
const BFD_NODES = ['node1', ...GATEWAYS];

/**
 * Waits until every BFD session of the lab is up, forwarding, and runs the timers asked for:
 * sessions come up at the slow 1 s rate and only then negotiate faster timers (a few seconds), and
 * a kill before that would measure OVN's defaults. Returns the detection time seen (Detect
 * Multiplier × RX Interval, the largest over the sessions).
 */
async function waitForBfd(lab: Lab, detectMs: number): Promise<number> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const shows = await Promise.all(
      BFD_NODES.map(async (node) => (await lab.exec(lab.nodeCommand(node, ['ovs-appctl', 'bfd/show']))).stdout),
    );
    // node1 has a session to each gateway, each gateway one to node1 and one to the other gateway.
    const sessions = shows.flatMap((show) => show.split(/^---- /m).slice(1));
    const detect = sessions.map((session) => {
      const mult = /^\s*Detect Multiplier: (\d+)/m.exec(session);
      const rx = /^\s*RX Interval: Approx (\d+)ms/m.exec(session);
      const up = /Local Session State: up/.test(session) && /Forwarding: true/.test(session);
      return up && mult && rx ? Number(mult[1]) * Number(rx[1]) : undefined;
    });
    if (sessions.length >= 6 && detect.every((d) => d === detectMs)) return detectMs;
    if (Date.now() > deadline) {
      throw new Error(
        `BFD sessions not all up with a ${detectMs} ms detection time within ${WAIT_MS / 1000} s ` +
          `(seen: ${detect.map((d) => d ?? 'down').join(', ')})`,
      );
    }
    await sleep(200);
  }
}

/** Polls l3-agents until a node other than `killed` is active; ms after `since`. */
async function watchAgentMove(
  cloud: Cloud,
  killed: string,
  since: number,
  abandoned: () => boolean,
): Promise<{ ms: number; host: string } | undefined> {
  const deadline = since + WAIT_MS;
  while (!abandoned() && Date.now() < deadline) {
    const host = await activeGateway(cloud).catch(() => undefined);
    if (host && host !== killed) return { ms: Date.now() - since, host };
    await sleep(50);
  }
  return undefined;
}

export interface FailoverOptions extends Omit<CloudOptions, 'vms' | 'logFile'> {
  setting: BfdSetting;
  /** The BFD detection time the sessions must run with before the kill (mult × interval). */
  bfdDetectMs: number;
  run: number;
  logFile: string;
  keepLab: boolean;
}

export async function measureFailover(options: FailoverOptions): Promise<FailoverRun> {
  const cloud = await startCloud({ ...options, vms: ['left'] });
  try {
    const { lab, api } = cloud;
    await api.call('POST', '/v2.0/floatingips', {
      floatingip: {
        floating_network_id: cloud.externalNetworkId,
        port_id: cloud.vms.left!.portId,
        floating_ip_address: FIP_ADDRESS,
      },
    });
    const prober = new Prober(lab.outsideCommand([]), FIP_ADDRESS);
    try {
      await prober.firstReplyAfter(0, WAIT_MS, 'a first reply through the floating IP');
      const bfdDetectMs = await waitForBfd(lab, options.bfdDetectMs);
      await prober.waitSteady(1000, 50, WAIT_MS);
      const killed = await activeGateway(cloud);
      if (!killed) throw new Error('l3-agents shows no active gateway');
      let abandoned = false;
      const tKill = Date.now();
      const moved = watchAgentMove(cloud, killed, tKill, () => abandoned);
      await lab.killNode(killed);
      try {
        // Back once replies have come without a gap over 100 ms for 2 s.
        await prober.waitSteady(2000, 100, WAIT_MS, tKill);
      } catch (error) {
        abandoned = true;
        throw error;
      }
      const gap = longestGap(prober.replies, tKill);
      if (!gap) throw new Error('no replies after the kill');
      const agent = await moved;
      return {
        setting: options.setting,
        run: options.run,
        killed,
        bfdDetectMs,
        outageMs: gap.gapMs,
        killToResumedMs: gap.after.at - tKill,
        lost: gap.after.seq - gap.before.seq - 1,
        agentMovedMs: agent?.ms,
        newActive: agent?.host,
      };
    } finally {
      await prober.stop();
    }
  } finally {
    await cloud.close(options.keepLab);
  }
}

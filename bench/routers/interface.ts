/**
 * Router interface add → routed traffic. VM `left` (10.1.0.0/24, node1) pings VM `right`
 * (10.2.0.0/24, node2) every 5 ms through the router all along. Each round removes the router's
 * interface on the right subnet (PUT remove_router_interface), waits until replies have stopped
 * (timed), then adds it again (PUT add_router_interface) and times, from the moment that call
 * started, its answer and the first echo reply.
 *
 * The new router port has a new MAC, which the right VM would learn only when its stale neighbour
 * entry for the gateway expires (seconds, Linux's timers, not octonet's or OVN's): its neighbour
 * table is flushed while the interface is away, so its reply ARPs for the gateway afresh. That
 * ARP can come before node2 has the new router port's flows (node1, where the requests enter, may
 * be programmed first); it then goes unanswered and Linux asks again only after 1 s, so a round
 * near 1 s is that race, not a slow API.
 */
import { wasInterrupted } from '../api/teardown.js';
import { must, type Cloud } from './cloud.js';
import { Prober } from './prober.js';

export interface InterfaceRound {
  round: number;
  /** PUT add_router_interface answered, ms after it was sent. */
  apiMs: number;
  /** First routed echo reply, ms after the PUT was sent. */
  firstReplyMs: number;
  /** The last reply after remove_router_interface was sent, ms after it. */
  removeToLastReplyMs?: number;
}

export interface InterfaceResult {
  rounds: InterfaceRound[];
  failures: string[];
}

const WAIT_MS = 30_000;
const QUIET_MS = 500;

export async function measureInterface(
  cloud: Cloud,
  rounds: number,
  say: (line: string) => void,
): Promise<InterfaceResult> {
  const { lab, api, routerId } = cloud;
  const left = cloud.vms.left!;
  const right = cloud.vms.right!;
  const body = { subnet_id: cloud.subnetIds.right };
  const result: InterfaceResult = { rounds: [], failures: [] };
  const prober = new Prober(lab.vmCommand(left.name, []), right.ip);
  let attached = true;
  try {
    await prober.waitSteady(500, 100, WAIT_MS);
    for (let round = 1; round <= rounds && !wasInterrupted(); round++) {
      try {
        let removeToLastReplyMs: number | undefined;
        if (attached) {
          const tRemove = Date.now();
          await api.call('PUT', `/v2.0/routers/${routerId}/remove_router_interface`, body);
          attached = false;
          const last = await prober.waitQuiet(QUIET_MS, WAIT_MS, `round ${round}: routed replies to stop`);
          removeToLastReplyMs = last && last.at >= tRemove ? last.at - tRemove : 0;
        } else {
          await prober.waitQuiet(QUIET_MS, WAIT_MS);
        }
        await must(lab, lab.vmCommand(right.name, ['ip', 'neigh', 'flush', 'dev', 'eth0']));
        const t0 = Date.now();
        await api.call('PUT', `/v2.0/routers/${routerId}/add_router_interface`, body);
        const apiMs = Date.now() - t0;
        attached = true;
        const reply = await prober.firstReplyAfter(t0, WAIT_MS, `round ${round}: a routed reply`);
        const sample: InterfaceRound = { round, apiMs, firstReplyMs: reply.at - t0, removeToLastReplyMs };
        result.rounds.push(sample);
        say(`  interface round ${round}: PUT ${apiMs} ms, first routed reply ${sample.firstReplyMs.toFixed(0)} ms`);
      } catch (error) {
        result.failures.push(`round ${round}: ${(error as Error).message}`);
        say(`  interface round ${round} failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await prober.stop();
  }
  return result;
}

/**
 * Floating IP create+associate → first packet through it. The outside namespace pings the floating
 * IP address every 5 ms all along; each round creates the floating IP on the VM's port in one call
 * (POST /v2.0/floatingips with port_id and a fixed floating_ip_address, so the probe can run
 * before the address exists) and times, from the moment the call started: its answer, the status
 * turning ACTIVE (polled every 10 ms), and the first echo reply. The floating IP is then deleted
 * and the round waits until replies have stopped (timed as well) before the next one.
 *
 * The outside's ARP: its neighbour entry for the address is flushed before each round, as for a
 * new address, and the outside retries ARP every ~16 ms (retrans_time_ms 10, jiffies-rounded)
 * instead of Linux's 1 s, so the kernel's retry timer does not quantize the figure.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { wasInterrupted } from '../api/teardown.js';
import { FIP_ADDRESS, must, type Cloud } from './cloud.js';
import { Prober } from './prober.js';

export interface FipRound {
  round: number;
  /** POST answered, ms after it was sent. */
  apiMs: number;
  /** GET showed status ACTIVE, ms after the POST was sent. */
  activeMs?: number;
  /** First echo reply from the floating IP, ms after the POST was sent. */
  firstReplyMs: number;
  /** The last reply after the DELETE was sent, ms after it (how long the address kept answering). */
  deleteToLastReplyMs?: number;
}

export interface FipResult {
  rounds: FipRound[];
  failures: string[];
}

const WAIT_MS = 30_000;
const QUIET_MS = 500;

async function pollActive(cloud: Cloud, id: string, t0: number): Promise<number | undefined> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const { floatingip } = await cloud.api.call<{ floatingip: { status: string } }>('GET', `/v2.0/floatingips/${id}`);
    if (floatingip.status === 'ACTIVE') return Date.now() - t0;
    await sleep(10);
  }
  return undefined;
}

export async function measureFip(cloud: Cloud, rounds: number, say: (line: string) => void): Promise<FipResult> {
  const { lab, api } = cloud;
  const vm = cloud.vms.left!;
  const result: FipResult = { rounds: [], failures: [] };
  await must(lab, lab.outsideCommand(['sysctl', '-qw', 'net.ipv4.neigh.eth0.retrans_time_ms=10']));
  const prober = new Prober(lab.outsideCommand([]), FIP_ADDRESS);
  try {
    for (let round = 1; round <= rounds && !wasInterrupted(); round++) {
      let fipId: string | undefined;
      try {
        await prober.waitQuiet(QUIET_MS, WAIT_MS);
        await must(lab, lab.outsideCommand(['ip', 'neigh', 'flush', 'to', FIP_ADDRESS, 'dev', 'eth0']));
        const t0 = Date.now();
        const { floatingip } = await api.call<{ floatingip: { id: string } }>('POST', '/v2.0/floatingips', {
          floatingip: {
            floating_network_id: cloud.externalNetworkId,
            port_id: vm.portId,
            floating_ip_address: FIP_ADDRESS,
          },
        });
        const apiMs = Date.now() - t0;
        fipId = floatingip.id;
        const active = pollActive(cloud, fipId, t0).catch(() => undefined);
        const reply = await prober.firstReplyAfter(t0, WAIT_MS, `round ${round}: a reply through the floating IP`);
        const activeMs = await active;
        if (activeMs === undefined)
          result.failures.push(`round ${round}: status not ACTIVE within ${WAIT_MS / 1000} s`);
        const tDelete = Date.now();
        await api.delete('floatingips', fipId);
        fipId = undefined;
        const last = await prober.waitQuiet(QUIET_MS, WAIT_MS, `round ${round}: replies to stop after the delete`);
        const sample: FipRound = {
          round,
          apiMs,
          activeMs,
          firstReplyMs: reply.at - t0,
          deleteToLastReplyMs: last && last.at >= tDelete ? last.at - tDelete : 0,
        };
        result.rounds.push(sample);
        say(
          `  fip round ${round}: POST ${apiMs} ms, ACTIVE ${activeMs ?? '—'} ms, first reply ${sample.firstReplyMs.toFixed(0)} ms`,
        );
      } catch (error) {
        result.failures.push(`round ${round}: ${(error as Error).message}`);
        say(`  fip round ${round} failed: ${(error as Error).message}`);
        if (fipId) await api.delete('floatingips', fipId).catch(() => undefined);
      }
    }
  } finally {
    await prober.stop();
  }
  return result;
}

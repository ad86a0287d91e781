/**
 * Port create → ACTIVE after plugging, against ovn-controller's own claim. Per sample: a port bound
 * to node1 or node2 (in turn), a VM plugged into it, and from the monitors' timestamps, with t0 =
 * the node's OVS database shows the VIF: claim (SB chassis set), claim-done (SB up), NB up (northd),
 * and ACTIVE (the API, polled every millisecond from t0 on). Unplugging then must turn the port
 * DOWN (checked, not timed). The goal: ACTIVE within 2× of claim-done.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Lab } from '../../src/lab/index.js';
import type { PortEvents } from './monitors.js';
import type { NeutronApi } from './neutron-api.js';
import { now } from './stats.js';

export interface ActiveSample {
  port: string;
  node: string;
  /** Milliseconds after t0 (the VIF appeared in the node's OVS database). */
  claimMs: number;
  claimDoneMs: number;
  nbUpMs: number;
  activeMs: number;
  /** ACTIVE / claim-done. */
  ratio: number;
  /** GET requests made until ACTIVE. */
  polls: number;
  /** The port went DOWN after the VM was deleted. */
  downAfterUnplug: boolean;
}

export interface ActiveResult {
  samples: ActiveSample[];
  failures: string[];
}

const EVENT_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 1;

/** Polls the port until `status` is `want`; the time the answer saying so arrived. */
async function pollStatus(
  api: NeutronApi,
  port: string,
  want: string,
  timeoutMs: number,
  intervalMs: number,
): Promise<{ at: number; polls: number }> {
  const deadline = now() + timeoutMs;
  let polls = 0;
  while (now() < deadline) {
    const { status } = await api.getPort(port);
    polls++;
    if (status === want) return { at: now(), polls };
    await sleep(intervalMs);
  }
  throw new Error(`port ${port} not ${want} within ${timeoutMs / 1000} s`);
}

async function oneSample(
  lab: Lab,
  api: NeutronApi,
  events: PortEvents,
  networkId: string,
  node: string,
  index: number,
): Promise<ActiveSample> {
  const port = await api.createPort({
    network_id: networkId,
    name: `active-${index}`,
    'binding:host_id': node,
    device_owner: 'compute:nova',
    device_id: randomUUID(),
  });
  const since = now();
  const plugged = events.wait(port.id, 'plugged', since, EVENT_TIMEOUT_MS);
  // Polling starts when the VIF shows up: the port cannot be ACTIVE before, and polling during
  // the plug would only take CPU from the plug itself.
  const active = plugged.then(() => pollStatus(api, port.id, 'ACTIVE', EVENT_TIMEOUT_MS, POLL_INTERVAL_MS));
  active.catch(() => undefined);
  const vm = await lab.createVm({ node, port: port.id, dhcp: false });
  try {
    const t0 = await plugged;
    const [chassis, pbUp, nbUp, reached] = await Promise.all([
      events.wait(port.id, 'chassis', since, EVENT_TIMEOUT_MS),
      events.wait(port.id, 'pb-up', since, EVENT_TIMEOUT_MS),
      events.wait(port.id, 'nb-up', since, EVENT_TIMEOUT_MS),
      active,
    ]);
    const claimDoneMs = pbUp - t0;
    return {
      port: port.id,
      node,
      claimMs: chassis - t0,
      claimDoneMs,
      nbUpMs: nbUp - t0,
      activeMs: reached.at - t0,
      ratio: (reached.at - t0) / claimDoneMs,
      polls: reached.polls,
      downAfterUnplug: false,
    };
  } finally {
    await lab.deleteVm(vm.name);
  }
}

export async function measureActive(
  lab: Lab,
  api: NeutronApi,
  events: PortEvents,
  networkId: string,
  samples: number,
  progress: (line: string) => void,
): Promise<ActiveResult> {
  const nodes = (await lab.status()).nodes.map((n) => n.name);
  const result: ActiveResult = { samples: [], failures: [] };
  for (let i = 0; i < samples; i++) {
    const node = nodes[i % nodes.length]!;
    try {
      const sample = await oneSample(lab, api, events, networkId, node, i);
      // Sanity only: ovn-controller releases the binding, northd sets up=false, octonet reports DOWN.
      sample.downAfterUnplug = await pollStatus(api, sample.port, 'DOWN', 15_000, 10).then(
        () => true,
        () => false,
      );
      result.samples.push(sample);
      if ((i + 1) % 10 === 0 || i + 1 === samples) progress(`${i + 1}/${samples} samples`);
    } catch (error) {
      result.failures.push(`sample ${i} (${node}): ${(error as Error).message}`);
      if (result.failures.length >= 5) {
        result.failures.push('stopped after 5 failed samples');
        break;
      }
    }
  }
  return result;
}

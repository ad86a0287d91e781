/**
 * One amphora failover, timed from the outside in. The outside namespace probes the floating IP
 * every 5 ms (timestamped echo replies); tcpdump in each amphora records its gratuitous ARPs for the
 * VIP; the API is polled every 10 ms for the VIP port's binding:host_id. Then the master is killed
 * (keepalived SIGKILLed, link down) and, once replies are steady again:
 *   (a) kill → the backup's first gratuitous ARP: VRRP's detection, keepalived alone;
 *   (b) that ARP → the first reply through the floating IP: OVN rebinding the virtual port
 *       (ovn-controller's bind_vport, the SB write, ovn-northd's new ARP-resolve flow, the
 *       gateway chassis installing it);
 *   (c) the outage the client saw (the longest gap between replies);
 *   (d) that ARP → the API showing the VIP port on the backup's node.
 * The dead amphora then comes back as BACKUP and the next round kills the other one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { NeutronApi } from '../ovn/neutron-api.js';
import { longestGap, type Prober } from '../routers/prober.js';
import type { VipFailover } from '../../src/drivers/ovn/mapping.js';
import { AMPHORAE, type AmphoraName, type LoadBalancer, type VrrpSetting } from './load-balancer.js';

export interface FailoverRound {
  /** octonet's `ovn.vip_failover`. */
  mode: VipFailover;
  nb: string;
  setting: VrrpSetting;
  round: number;
  killed: AmphoraName;
  /** (a) kill → backup's gratuitous ARP, ms. */
  killToGarpMs: number;
  /** (b) gratuitous ARP → first reply through the floating IP, ms. */
  garpToReplyMs: number;
  /** (c) longest gap between replies, ms. */
  outageMs: number;
  /** (d) gratuitous ARP → GET port shows binding:host_id on the backup's node, ms. */
  garpToHostMs?: number;
}

const WAIT_MS = 30_000;

async function until<T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

const amphora = (name: AmphoraName) => AMPHORAE.find((a) => a.name === name)!;

/** Polls the VIP port until its host is `node`; the epoch ms it was first seen so. */
async function watchHost(
  api: NeutronApi,
  portId: string,
  node: string,
  abandoned: () => boolean,
): Promise<number | undefined> {
  const deadline = Date.now() + WAIT_MS;
  while (!abandoned() && Date.now() < deadline) {
    const port = await api.getPort(portId).catch(() => undefined);
    if (port?.['binding:host_id'] === node) return Date.now();
    await sleep(10);
  }
  return undefined;
}

/** The current master, and its backup once that hears it (so the backup will not take over early). */
export async function settledPair(lb: LoadBalancer): Promise<{ master: AmphoraName; backup: AmphoraName }> {
  const master = await until(() => lb.master(), 'exactly one amphora holding the VIP');
  const backup = AMPHORAE.find((a) => a.name !== master)!.name;
  await until(() => lb.hears(backup, amphora(master).address), `${backup} hearing the master ${master}`);
  return { master, backup };
}

export async function measureFailoverRound(
  lb: LoadBalancer,
  prober: Prober,
  api: NeutronApi,
  labels: { mode: VipFailover; nb: string; setting: VrrpSetting; round: number },
): Promise<FailoverRound> {
  const { master, backup } = await settledPair(lb);
  await prober.waitSteady(1000, 50, WAIT_MS);
  let abandoned = false;
  const killedAt = Date.now();
  const hostSeen = watchHost(api, lb.vipPortId, amphora(backup).node, () => abandoned);
  try {
    await lb.kill(master);
    await prober.waitSteady(1000, 100, WAIT_MS, killedAt);
  } catch (error) {
    abandoned = true;
    throw error;
  }
  const gap = longestGap(prober.replies, killedAt);
  if (!gap) throw new Error('no replies after the kill');
  const garp = lb.garps[backup].firstAfter(killedAt);
  if (garp === undefined) throw new Error(`${backup} sent no gratuitous ARP for the VIP after the kill`);
  const hostAt = await hostSeen;
  await lb.revive(master, labels.setting);
  return {
    ...labels,
    killed: master,
    killToGarpMs: garp - killedAt,
    garpToReplyMs: gap.after.at - garp,
    outageMs: gap.gapMs,
    garpToHostMs: hostAt === undefined ? undefined : hostAt - garp,
  };
}

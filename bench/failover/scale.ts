/**
 * A big northbound database for the failover to run against: `routers` routers, each with its own
 * network and /24 subnet attached, and `ports` unbound ports spread over those networks, all made
 * through octonet's API (so octonet writes them to the NB as it would in a cloud). ovn-northd then
 * computes flows for all of it, which is the work that sits on the failover path.
 */
import type { Lab } from '../../src/lab/index.js';
import type { NeutronApi } from '../ovn/neutron-api.js';

export interface ScaleResult {
  ports: number;
  routers: number;
  /** Logical_Switch_Port and Logical_Router rows in the NB once northd caught up. */
  nbSwitchPorts: number;
  nbRouters: number;
  /** SB Logical_Flow rows: northd's output for this NB. */
  sbLogicalFlows: number;
  seconds: number;
}

const CONCURRENCY = 4;
const PORTS_PER_REQUEST = 100;

async function inParallel<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** 172.16.0.0/24, 172.16.1.0/24, … 172.17.243.0/24 for 500 routers. */
const cidrOf = (i: number) => `172.${16 + (i >> 8)}.${i & 255}.0/24`;

async function count(lab: Lab, db: 'nb' | 'sb', table: string): Promise<number> {
  const argv = ['--bare', '--columns=_uuid', 'list', table];
  const out = db === 'nb' ? await lab.nbctl(...argv) : await lab.sbctl(...argv);
  return out.split('\n').filter(Boolean).length;
}

export async function populateNb(
  lab: Lab,
  api: NeutronApi,
  wanted: { ports: number; routers: number },
  say: (line: string) => void,
): Promise<ScaleResult> {
  const started = Date.now();
  await api.call('PUT', '/v2.0/quotas/fake_project_id', {
    quota: { port: -1, network: -1, subnet: -1, router: -1 },
  });
  const networks: string[] = [];
  const indexes = Array.from({ length: wanted.routers }, (_, i) => i);
  await inParallel(indexes, async (i) => {
    const network = await api.createNetwork(`scale-${i}`);
    const subnet = await api.createSubnet(network, cidrOf(i));
    const router = (
      await api.call<{ router: { id: string } }>('POST', '/v2.0/routers', { router: { name: `scale-${i}` } })
    ).router.id;
    await api.call('PUT', `/v2.0/routers/${router}/add_router_interface`, { subnet_id: subnet });
    networks.push(network);
    if (networks.length % 100 === 0) say(`  ${networks.length}/${wanted.routers} routers with a network`);
  });
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < wanted.ports; i += PORTS_PER_REQUEST) {
    batches.push(
      Array.from({ length: Math.min(PORTS_PER_REQUEST, wanted.ports - i) }, (_, j) => ({
        network_id: networks[(i + j) % networks.length],
        name: `scale-port-${i + j}`,
        device_owner: 'compute:nova',
      })),
    );
  }
  let made = 0;
  await inParallel(batches, async (batch) => {
    await api.createPorts(batch);
    made += batch.length;
    if (made % 2000 === 0) say(`  ${made}/${wanted.ports} ports`);
  });
  // Until northd has turned all of it into SB flows (nb_cfg round trip). On a loaded machine that
  // takes longer than lab.nbctl's 60 s exec limit, so this one call gets its own.
  const sync = await lab.exec(['ovn-nbctl', `--db=${lab.nb}`, '--timeout=900', '--wait=sb', 'sync'], {
    timeoutMs: 910_000,
  });
  if (sync.code !== 0) throw new Error(`ovn-nbctl --wait=sb sync exited ${sync.code}: ${sync.stderr}`);
  return {
    ...wanted,
    nbSwitchPorts: await count(lab, 'nb', 'Logical_Switch_Port'),
    nbRouters: await count(lab, 'nb', 'Logical_Router'),
    sbLogicalFlows: await count(lab, 'sb', 'Logical_Flow'),
    seconds: (Date.now() - started) / 1000,
  };
}

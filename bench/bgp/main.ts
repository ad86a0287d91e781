/**
 * `npm run bench:bgp`: BGP figures on the cloudgw lab (fabric.ts), with real FRR and packets.
 *
 * 1. floating IP create (with its port) → its /32 in cloudgw1's BGP RIB (median, p99 over
 *    `--rounds`, after one warm-up round); the RIB is read from cloudgw1's bgpd over its vty socket
 *    every 10 ms, so the resolution is about 15 ms (it was one vtysh call plus 50 ms, 170–250 ms);
 * 2. `--scale` floating IPs (default 1,000) created one after the other: the time until all are in
 *    cloudgw1's RIB, the lag after the last create, and FRR's memory (RSS of the announcing node's
 *    bgpd and zebra, and cloudgw1's bgpd) before and after;
 * 3. gateway failover with BFD at 100 ms (OVN's gateway chassis and the BGP sessions): the core pings
 *    the floating IP every 10 ms, the active gateway node is killed, and the outage is the longest
 *    gap between replies (median, max over `--failovers`, each on a fresh lab). With
 *    `--routed-failover` the floating IP comes from a subnet the cloudgws are not on: for the
 *    moment between the old node's session dropping (BFD) and the new node's announcement the
 *    cloudgws have no route and answer "Destination Net Unreachable" (an on-link floating IP falls
 *    back on their connected route instead). The probe counts those; it pings a fixed count, since
 *    iputils ping with a deadline (`-w`) quits at the first ICMP error, which is what made this
 *    figure read "traffic did not resume" before.
 * Prints a table and writes bench/bgp/results/<timestamp>.json.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { optionsOrExit, repoRoot, runBench, startLabRun, writeRunResults } from '../lab-run.js';
import { ribPrefixes, startFabric, until, type Fabric } from './fabric.js';

interface BgpBenchOptions {
  /** The lab's name (its namespaces carry it), so a bench can run beside another lab. */
  labName: string;
  /** Another build to run the agents from (its dist/cli/main.js), to compare with an older agent. */
  agentRoot: string | undefined;
  /** The failover's floating IP from the routed 100.64.0.0/20 (else from the on-link /24). */
  routedFailover: boolean;
  rounds: number;
  scale: number;
  failovers: number;
  resultsDir: string;
}

const HELP =
  'npm run bench:bgp -- [--rounds N (20)] [--scale N (1000)] [--failovers N (3)] [--routed-failover] [--lab-name NAME (octonet-bgp)] [--agent-root DIR] [--results-dir DIR]';

function parse(argv: string[]): BgpBenchOptions | undefined {
  const options: BgpBenchOptions = {
    labName: 'octonet-bgp',
    agentRoot: undefined,
    routedFailover: false,
    rounds: 20,
    scale: 1000,
    failovers: 3,
    resultsDir: 'bench/bgp/results',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--help' || flag === '-h') return undefined;
    if (flag === '--routed-failover') {
      options.routedFailover = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--results-dir') options.resultsDir = value;
    else if (flag === '--lab-name' || flag === '--lab') options.labName = value;
    else if (flag === '--agent-root') options.agentRoot = value;
    else if (flag === '--rounds' || flag === '--scale' || flag === '--failovers') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} wants a whole number`);
      options[flag.slice(2) as 'rounds' | 'scale' | 'failovers'] = n;
    } else throw new Error(`unknown option ${flag}`);
  }
  return options;
}

const say = (line: string) => process.stderr.write(`bench: ${line}\n`);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

function rssKiB(pidfile: string): number {
  const pid = readFileSync(pidfile, 'utf8').trim();
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

async function activeGateway(fabric: Fabric, routerPort: string): Promise<string> {
  const chassis = await fabric.lab.sbctl(
    '--bare',
    '--columns=chassis',
    'find',
    'Port_Binding',
    `logical_port=cr-lrp-${routerPort}`,
  );
  return (await fabric.lab.sbctl('get', 'Chassis', chassis, 'name')).replace(/"/g, '');
}

async function gatewayPortOf(fabric: Fabric): Promise<string> {
  const ports = await fabric.api.call<{ ports: { id: string }[] }>(
    'GET',
    '/v2.0/ports?device_owner=network:router_gateway',
  );
  return ports.ports[0]!.id;
}

async function createFip(
  fabric: Fabric,
  portId: string,
  subnetId = fabric.fipSubnetId,
): Promise<{ id: string; address: string }> {
  const body = await fabric.api.call<{ floatingip: { id: string; floating_ip_address: string } }>(
    'POST',
    '/v2.0/floatingips',
    { floatingip: { floating_network_id: fabric.externalNetworkId, subnet_id: subnetId, port_id: portId } },
  );
  return { id: body.floatingip.id, address: body.floatingip.floating_ip_address };
}

async function measureAnnounce(fabric: Fabric, rounds: number): Promise<number[]> {
  const samples: number[] = [];
  // Round 0 is a warm-up, not counted: the agents' first passes and FRR's first update group for
  // the peers make the first floating IP take seconds (6–10 s seen), which no later one does.
  for (let i = -1; i < rounds; i++) {
    const started = performance.now();
    const fip = await createFip(fabric, fabric.vmPortId);
    await until(
      async () => ((await ribPrefixes(fabric.lab)).has(`${fip.address}/32`) ? true : undefined),
      'the /32',
      60_000,
      10,
    );
    if (i >= 0) samples.push(performance.now() - started);
    await fabric.api.call('DELETE', `/v2.0/floatingips/${fip.id}`);
    await until(
      async () => (!(await ribPrefixes(fabric.lab)).has(`${fip.address}/32`) ? true : undefined),
      'withdrawal',
    );
  }
  return samples;
}

async function measureScale(fabric: Fabric, count: number) {
  const gateway = await activeGateway(fabric, await gatewayPortOf(fabric));
  const frr = (member: string, daemon: string) => join(fabric.lab.frrDir(member), `${daemon}.pid`);
  const memory = () => ({
    nodeBgpdKiB: rssKiB(frr(gateway, 'bgpd')),
    nodeZebraKiB: rssKiB(frr(gateway, 'zebra')),
    cloudgwBgpdKiB: rssKiB(frr('cloudgw1', 'bgpd')),
  });
  const before = memory();
  const ports: string[] = [];
  for (let i = 0; i < count; i++) {
    ports.push((await fabric.api.createPort({ network_id: fabric.tenantNetworkId, name: `p${i}` })).id);
  }
  say(`${count} ports made; creating ${count} floating IPs`);
  const started = performance.now();
  for (const port of ports) await createFip(fabric, port);
  const lastCreate = performance.now();
  await until(
    async () =>
      [...(await ribPrefixes(fabric.lab))].filter((p) => p.startsWith('100.64.')).length >= count ? true : undefined,
    `${count} routes in cloudgw1's RIB`,
    600_000,
  );
  const done = performance.now();
  return {
    count,
    totalMs: done - started,
    createMs: lastCreate - started,
    lagAfterLastCreateMs: done - lastCreate,
    memoryBefore: before,
    memoryAfter: memory(),
  };
}

interface FailoverSample {
  outageMs: number;
  /** ICMP errors the core got during the outage (a routed floating IP: the cloudgws had no route). */
  unreachable: number;
}

const PROBE_INTERVAL_S = 0.01;
const PROBE_SECONDS = 15;

async function measureFailover(fabric: Fabric, routed: boolean): Promise<FailoverSample> {
  const fip = await createFip(fabric, fabric.vmPortId, routed ? fabric.fipSubnetId : fabric.gatewaySubnetId);
  const lab = fabric.lab;
  await until(
    async () =>
      (await lab.exec(lab.coreCommand(['ping', '-c', '1', '-W', '1', fip.address]))).code === 0 ? true : undefined,
    'the core to reach the floating IP',
  );
  const gateway = await activeGateway(fabric, await gatewayPortOf(fabric));
  // A count, not a deadline: with `-w` iputils ping stops at the first ICMP error.
  const count = String(Math.round(PROBE_SECONDS / PROBE_INTERVAL_S));
  const argv = ['ping', '-D', '-n', '-i', String(PROBE_INTERVAL_S), '-c', count, '-W', '1', fip.address];
  const probe = lab.exec(lab.coreCommand(argv), { timeoutMs: 60_000 });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await lab.killNode(gateway);
  const output = (await probe).stdout;
  const times = [...output.matchAll(/^\[(\d+\.\d+)\].*bytes from/gm)].map((m) => Number(m[1]) * 1000);
  const unreachable = [...output.matchAll(/Unreachable/g)].length;
  let gap = 0;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
  if (times.length < 2 || times.at(-1)! < times[0]! + (PROBE_SECONDS - 3) * 1000) {
    const last = times.length ? new Date(times.at(-1)!).toISOString() : 'none';
    throw new Error(
      `traffic did not resume within the probe (killed ${gateway}; last reply ${last}; ${times.length} replies, ${unreachable} unreachable)`,
    );
  }
  return { outageMs: gap, unreachable };
}

async function main(options: BgpBenchOptions, logsDir: string) {
  const results: Record<string, unknown> = { failures: [] as string[] };
  const failures = results.failures as string[];
  const fabricOptions = { repoRoot, agentRoot: options.agentRoot, labName: options.labName, logsDir, say };
  // Only the failover figure wanted (`--rounds 0 --scale 0`): no lab for the others.
  const first = options.rounds > 0 || options.scale > 0 ? await startFabric(fabricOptions) : undefined;
  if (first) {
    try {
      say(`floating IP create → /32 in cloudgw1's RIB, ${options.rounds} rounds`);
      const announce = await measureAnnounce(first, options.rounds);
      results.announce = { samplesMs: announce, medianMs: percentile(announce, 50), p99Ms: percentile(announce, 99) };
      if (options.scale > 0) {
        say(`${options.scale} floating IPs`);
        results.scale = await measureScale(first, options.scale);
      }
    } catch (error) {
      failures.push((error as Error).message);
    } finally {
      await first.close();
    }
  }
  const samples: FailoverSample[] = [];
  for (let i = 1; i <= options.failovers; i++) {
    say(`gateway failover ${i}/${options.failovers} on a fresh lab`);
    const fabric = await startFabric(fabricOptions);
    try {
      samples.push(await measureFailover(fabric, options.routedFailover));
    } catch (error) {
      failures.push(`failover ${i}: ${(error as Error).message}`);
    } finally {
      await fabric.close();
    }
  }
  const outages = samples.map((s) => s.outageMs);
  results.failover = {
    routed: options.routedFailover,
    samplesMs: outages,
    unreachable: samples.map((s) => s.unreachable),
    medianMs: percentile(outages, 50),
    maxMs: Math.max(...outages),
  };
  return results;
}

function table(results: Record<string, unknown>): string {
  const r = results as {
    announce?: { medianMs: number; p99Ms: number; samplesMs: number[] };
    scale?: {
      count: number;
      totalMs: number;
      lagAfterLastCreateMs: number;
      memoryBefore: Record<string, number>;
      memoryAfter: Record<string, number>;
    };
    failover?: { routed: boolean; medianMs: number; maxMs: number; samplesMs: number[]; unreachable: number[] };
    failures: string[];
  };
  const f = (ms: number | undefined) => (ms === undefined || Number.isNaN(ms) ? '-' : `${Math.round(ms)} ms`);
  const lines = ['| figure | value |', '|---|---|'];
  if (r.announce)
    lines.push(
      `| floating IP create → /32 in cloudgw RIB (n=${r.announce.samplesMs.length}) | median ${f(r.announce.medianMs)}, p99 ${f(r.announce.p99Ms)} |`,
    );
  if (r.scale) {
    lines.push(
      `| ${r.scale.count} floating IPs: first create → all in cloudgw RIB | ${(r.scale.totalMs / 1000).toFixed(1)} s (lag after the last create ${f(r.scale.lagAfterLastCreateMs)}) |`,
    );
    const mem = (m: Record<string, number>) =>
      Object.entries(m)
        .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)} MiB`)
        .join(', ');
    lines.push(`| FRR RSS before | ${mem(r.scale.memoryBefore)} |`, `| FRR RSS after | ${mem(r.scale.memoryAfter)} |`);
  }
  if (r.failover)
    lines.push(
      `| gateway failover outage, BFD 100 ms, ${r.failover.routed ? 'routed' : 'on-link'} floating IP (n=${r.failover.samplesMs.length}) | median ${f(r.failover.medianMs)}, max ${f(r.failover.maxMs)}; ICMP unreachable per run ${r.failover.unreachable.join(', ')} |`,
    );
  for (const failure of r.failures) lines.push(`| FAILED | ${failure} |`);
  return lines.join('\n');
}

const parsed = optionsOrExit(parse, HELP);
if ('exit' in parsed) process.exit(parsed.exit);
runBench(async () => {
  const { logsDir, resultsFile } = startLabRun('bench:bgp', parsed.options.resultsDir);
  const loadBefore = loadavg();
  const results = await main(parsed.options, logsDir);
  process.stdout.write(table(results) + '\n');
  writeRunResults(resultsFile, parsed.options, loadBefore, results);
  say(`results: ${resultsFile}`);
  return (results.failures as string[]).length ? 1 : 0;
});

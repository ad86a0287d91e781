/**
 * `npm run bench:nova`: the real Nova booting servers on octonet. Starts a 2-node lab, the tests'
 * Keystone, octonet (in this process, SQLite, the OVN driver, its Nova notifier) and the real Nova
 * (test/fixtures/nova.ts: fake-driver computes, one per node). Then, per boot: POST /servers →
 * ACTIVE → a lab VM plugged into the port (as os-vif would) → OVN reports the port up → Nova logs
 * the accepted `network-vif-plugged`. Figures: boot → ACTIVE, OVN up → event accepted by Nova
 * (median, p99), and the Neutron calls Nova makes per boot (counted from octonet's access log,
 * by Nova's users), first one boot at a time, then for a burst of concurrent boots.
 *
 *   npm run bench:nova -- [--boots 5] [--burst 100] [--plug-concurrency 4]
 *
 * Prints a table and the calls by route, writes bench/nova/results/<timestamp>.json. No real
 * Neutron anchor runs here with Nova (the Zed anchor has no Nova beside it): the comparison with
 * Neutron's share of a boot is left to a run where one does.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { downLab, upLab, type Lab } from '../../src/lab/index.js';
import { startApi } from '../../test/fixtures/api.js';
import { REGION, startKeystone } from '../../test/fixtures/keystone.js';
import { startNova } from '../../test/fixtures/nova.js';
import { repoRoot } from '../lab-run.js';

const LAB = 'novabench';
const say = (line: string) => process.stderr.write(`bench:nova ${line}\n`);

interface Options {
  boots: number;
  burst: number;
  plugConcurrency: number;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { boots: 5, burst: 100, plugConcurrency: 4 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${argv[i]} needs a whole number`);
    if (argv[i] === '--boots') options.boots = value;
    else if (argv[i] === '--burst') options.burst = value;
    else if (argv[i] === '--plug-concurrency') options.plugConcurrency = Math.max(1, value);
    else throw new Error(`unknown option ${argv[i]} (--boots N, --burst N, --plug-concurrency N)`);
  }
  return options;
}

const quantile = (values: readonly number[], q: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};

/** When nova-api logged that it accepted `event` for `port` (oslo.log's local-time stamp, ms). */
function novaAcceptedAt(log: string, event: string, port: string): number | undefined {
  const line = log.split('\n').find((l) => l.includes(`Creating event ${event}:${port} `));
  const stamp = line?.match(/^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/);
  return stamp ? new Date(`${stamp[1]}T${stamp[2]}`).getTime() : undefined;
}

/** Resolves with the time OVN's NB shows the port up (ovn-nbctl wait-until, started before the plug). */
async function watchUp(lab: Lab, port: string): Promise<number> {
  await lab.nbctl('--timeout=60', 'wait-until', 'Logical_Switch_Port', port, 'up=true');
  return Date.now();
}

interface Boot {
  server: string;
  host: string;
  port: string;
  activeMs: number;
  upToEventMs?: number;
  /** OVN up → octonet holding Nova's 200 for the event (its "event delivered" log line). */
  upToAnsweredMs?: number;
  /** Since octonet last had an event answered, at the moment OVN reported the port up. */
  sinceLastBatchMs?: number;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 600_000): Promise<T> {
  const giveUp = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > giveUp) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (process.getuid?.() !== 0) throw new Error('the lab needs root');
  const loadBefore = loadavg();
  const undo: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    for (const step of undo.reverse()) await step().catch((error: Error) => say(`cleanup: ${error.message}`));
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    await downLab({ name: LAB });
    say('lab, Keystone');
    const lab = await upLab({ name: LAB, nodes: 2 });
    undo.push(() => downLab({ name: LAB }));
    const keystone = await startKeystone();
    undo.push(() => keystone.stop());
    const novaUser = await keystone.addServiceUser('nova', ['admin', 'service']);
    const api = await startApi('sqlite', {
      config: {
        ...keystone.octonetConfig(),
        ovn: { nb_connection: lab.nb, sb_connection: lab.sb },
        nova: { auth_url: keystone.url, username: 'nova', password_file: novaUser.passwordFile, region_name: REGION },
      },
    });
    undo.push(() => api.close());
    say('Nova');
    const nova = await startNova({ keystone, neutronUrl: api.url, computeHosts: ['node1', 'node2'], novaUser });
    undo.push(() => nova.stop());

    const member = keystone.users.memberA;
    const memberToken = await keystone.issueToken(member);
    const adminToken = await keystone.issueToken(keystone.users.cloudAdmin);
    const octonet = async (method: string, path: string, body?: unknown, token = adminToken) => {
      const r = await fetch(api.url + path, {
        method,
        headers: { 'x-auth-token': token, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return r.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const network = (await octonet('POST', '/v2.0/networks', { network: { name: 'bench' } }, memberToken)).network;
    await octonet(
      'POST',
      '/v2.0/subnets',
      { subnet: { network_id: network.id, cidr: '10.50.0.0/16', ip_version: 4 } },
      memberToken,
    );
    await nova.call('PUT', `/os-quota-sets/${member.project.id}`, { quota_set: { instances: -1, cores: -1, ram: -1 } });

    const novaCalls = (from: number, to: number) =>
      api
        .logs()
        .filter((l) => l.msg === 'request' && (l.user === novaUser.id || l.user === member.id))
        .filter((l) => Number(l.time) >= from && Number(l.time) <= to)
        .map(
          (l) =>
            `${String(l.method)} ${String(l.url)
              .split('?')[0]!
              .replace(/[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-f]{32}/g, '{id}')}`,
        );

    const boot = async (name: string): Promise<Omit<Boot, 'upToEventMs'>> => {
      const started = Date.now();
      const created = await fetch(`${nova.computeUrl}/servers`, {
        method: 'POST',
        headers: { 'x-auth-token': memberToken, 'content-type': 'application/json' },
        body: JSON.stringify({
          server: { name, imageRef: nova.imageId, flavorRef: nova.flavorId, networks: [{ uuid: network.id }] },
        }),
      });
      if (created.status !== 202) throw new Error(`POST /servers: ${created.status} ${await created.text()}`);
      const server = ((await created.json()) as { server: { id: string } }).server.id;
      const host = await until(`server ${name} ACTIVE`, async () => {
        const s = (await nova.call('GET', `/servers/${server}`)).body.server;
        if (s.status === 'ERROR') throw new Error(`server ${name} went to ERROR: ${JSON.stringify(s.fault)}`);
        return s.status === 'ACTIVE' ? (s['OS-EXT-SRV-ATTR:host'] as string) : undefined;
      });
      const activeMs = Date.now() - started;
      const port = (await octonet('GET', `/v2.0/ports?device_id=${server}`)).ports[0].id as string;
      return { server, host, port, activeMs };
    };
    const plug = async (b: Omit<Boot, 'upToEventMs'>): Promise<Boot> => {
      const up = watchUp(lab, b.port);
      await lab.createVm({ node: b.host, port: b.port, dhcp: false, name: `b-${b.port.slice(0, 8)}` });
      const upAt = await up;
      const acceptedAt = await until(`Nova accepting network-vif-plugged for ${b.port}`, async () =>
        novaAcceptedAt(nova.apiLog(), 'network-vif-plugged', b.port),
      );
      const answered = await until(`octonet logging Nova's answer for ${b.port}`, async () => {
        const line = api
          .logs()
          .find((l) => l.msg === 'nova: event delivered' && l.port === b.port && l.event === 'network-vif-plugged');
        return line ? Number(line.time) : undefined;
      });
      // Neutron's batching, which octonet's notifier follows: an event within send_events_interval
      // of the last batch waits for the next one. How long before `up` the last batch was answered:
      const earlier = api
        .logs()
        .filter((l) => l.msg === 'nova: event delivered' && Number(l.time) <= upAt)
        .map((l) => Number(l.time));
      const sinceLastBatchMs = earlier.length ? upAt - Math.max(...earlier) : undefined;
      return { ...b, upToEventMs: acceptedAt - upAt, upToAnsweredMs: answered - upAt, sinceLastBatchMs };
    };
    const inBatches = async <T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> => {
      const out: R[] = [];
      for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
      return out;
    };

    const phases: Record<string, unknown> = {};
    const summarize = (label: string, boots: readonly Boot[], calls: readonly string[]) => {
      const active = boots.map((b) => b.activeMs);
      const events = boots.map((b) => b.upToEventMs!).filter((v) => Number.isFinite(v));
      const answered = boots.map((b) => b.upToAnsweredMs!).filter((v) => Number.isFinite(v));
      const sinceLast = boots.map((b) => b.sinceLastBatchMs!).filter((v) => Number.isFinite(v));
      const byRoute = new Map<string, number>();
      for (const call of calls) byRoute.set(call, (byRoute.get(call) ?? 0) + 1);
      const summary = {
        boots: boots.length,
        bootToActiveMs: { median: quantile(active, 0.5), p99: quantile(active, 0.99) },
        ovnUpToEventAcceptedMs: { median: quantile(events, 0.5), p99: quantile(events, 0.99) },
        ovnUpToNovaAnswerAtOctonetMs: { median: quantile(answered, 0.5), p99: quantile(answered, 0.99) },
        upSinceLastBatchMs: { median: quantile(sinceLast, 0.5), p99: quantile(sinceLast, 0.99) },
        perBoot: boots.map((b) => ({ upToEventMs: b.upToEventMs, sinceLastBatchMs: b.sinceLastBatchMs })),
        neutronCallsPerBoot: boots.length ? calls.length / boots.length : null,
        callsByRoute: Object.fromEntries([...byRoute].sort((a, b) => b[1] - a[1])),
      };
      phases[label] = summary;
      say(`${label}: ${JSON.stringify(summary, null, 1)}`);
    };

    say(`${options.boots} boots one at a time`);
    const sequential: Boot[] = [];
    const seqFrom = Date.now();
    for (let i = 0; i < options.boots; i++) sequential.push(await plug(await boot(`seq-${i}`)));
    summarize('sequential', sequential, novaCalls(seqFrom, Date.now()));

    if (options.burst > 0) {
      say(`a burst of ${options.burst} boots`);
      const burstFrom = Date.now();
      const booted = await Promise.all(Array.from({ length: options.burst }, (_, i) => boot(`burst-${i}`)));
      const plugged = await inBatches(booted, options.plugConcurrency, plug);
      summarize('burst', plugged, novaCalls(burstFrom, Date.now()));
    }

    const resultsDir = join(repoRoot, 'bench/nova/results');
    mkdirSync(resultsDir, { recursive: true });
    const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const machine = { cpus: cpus().length, loadavgBefore: loadBefore, loadavgAfter: loadavg() };
    writeFileSync(file, JSON.stringify({ time: new Date().toISOString(), machine, options, phases }, null, 1) + '\n');
    say(`results: ${file}`);
  } finally {
    await cleanup();
  }
}

await main().catch((error: Error) => {
  say(`failed: ${error.stack ?? error.message}`);
  process.exitCode = 1;
});

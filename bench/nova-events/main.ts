/**
 * `npm run bench:nova-events -- [--single N] [--burst N] [--interval S]`: how long Nova's port events take
 * from the data plane's report (the `reportPortUp` call the OVN status watcher makes when
 * `Logical_Switch_Port.up` turns true) to their arrival at a STAND-IN Nova (test/notifiers), through
 * a real `serve` in-process on SQLite with the `nova:` section set (stand-in Keystone too).
 *
 *   single: ports go ACTIVE one at a time, each after a quiet spell longer than the interval (the
 *           first event of a spell is sent at once: Neutron's BatchNotifier)
 *   burst:  N ports go ACTIVE together (100 boots at once); later events wait for the next batch
 *
 * Prints n, median, p99, max per case, and the goals of issue 15 (median ≤ 100 ms, burst p99 ≤ 2.5 s).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MechanismDriver } from '../../src/drivers/contract.js';
import { startApi } from '../../test/fixtures/api.js';
import { StandInKeystone, StandInNova } from '../../test/notifiers/stand-in-nova.js';
import { intOption } from '../goals-report.js';
import { now, summarize, type Summary } from '../ovn/stats.js';

const { values } = parseArgs({
  options: { single: { type: 'string' }, burst: { type: 'string' }, interval: { type: 'string' } },
});
const singles = intOption('single', values.single, 20);
const burst = intOption('burst', values.burst, 100);
const interval = Number(values.interval ?? 2);

/** Binds every host, as the OVN driver binds one with a live chassis. */
const binder: MechanismDriver = { name: 'bench-binder', bindPort: () => ({ vifType: 'ovs', vifDetails: {} }) };

const nova = new StandInNova();
const keystone = new StandInKeystone(() => nova.url);
await nova.start();
await keystone.start();
const dir = mkdtempSync(join(tmpdir(), 'octonet-bench-nova-'));
writeFileSync(join(dir, 'password'), 'bench\n');
const api = await startApi('sqlite', {
  config: {
    nova: {
      auth_url: keystone.url,
      password_file: join(dir, 'password'),
      region_name: 'RegionOne',
      send_events_interval: interval,
    },
  },
  drivers: [binder],
});
try {
  const network = (await api.admin.post('/v2.0/networks', { network: { name: 'bench' } })).body.network.id as string;
  const newPort = async (): Promise<string> =>
    (
      await api.admin.post('/v2.0/ports', {
        port: { network_id: network, device_id: randomUUID(), device_owner: 'compute:nova', 'binding:host_id': 'n1' },
      })
    ).body.port.id as string;
  const arrival = (id: string): number | undefined =>
    nova.posts.find((p) => p.events.some((e) => e.tag === id && e.name === 'network-vif-plugged'))?.at;

  async function measure(ids: readonly string[]): Promise<number[]> {
    const started = now();
    await Promise.all(ids.map((id) => api.server.services.ports.reportUp(id, true)));
    await nova.until(() => ids.every((id) => arrival(id) !== undefined));
    return ids.map((id) => arrival(id)! - started);
  }

  // The first token and catalog lookup are not what an event costs afterwards.
  await measure([await newPort()]);
  const single: number[] = [];
  for (let i = 0; i < singles; i++) {
    const id = await newPort();
    await new Promise((resolve) => setTimeout(resolve, interval * 1000 + 100));
    single.push(...(await measure([id])));
  }
  await new Promise((resolve) => setTimeout(resolve, interval * 1000 + 100));
  const ids: string[] = [];
  for (let i = 0; i < burst; i++) ids.push(await newPort());
  const bursts = await measure(ids);

  const row = (name: string, s: Summary | undefined) =>
    `${name.padEnd(28)} ${String(s?.n ?? 0).padStart(4)} ${fmt(s?.min)} ${fmt(s?.median)} ${fmt(s?.p99)} ${fmt(s?.max)}`;
  const fmt = (ms: number | undefined) => (ms === undefined ? '—' : ms.toFixed(1)).padStart(9);
  const s1 = summarize(single);
  const sb = summarize(bursts);
  console.log(`send_events_interval ${interval} s; ms from the port-up report to the event at the stand-in Nova`);
  console.log(
    `${'case'.padEnd(28)} ${'n'.padStart(4)} ${'min'.padStart(9)} ${'median'.padStart(9)} ${'p99'.padStart(9)} ${'max'.padStart(9)}`,
  );
  console.log(row('single (after a quiet spell)', s1));
  console.log(row(`burst of ${burst}`, sb));
  console.log(`batches seen: ${nova.posts.length}`);
  console.log(
    `goals: median ≤ 100 ms: ${s1 && s1.median <= 100 ? 'met' : 'NOT met'}; burst p99 ≤ 2500 ms: ${sb && sb.p99 <= 2500 ? 'met' : 'NOT met'}`,
  );
} finally {
  await api.close();
  await nova.stop();
  await keystone.stop();
  rmSync(dir, { recursive: true, force: true });
}

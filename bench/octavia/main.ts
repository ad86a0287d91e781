/**
 * Load balancer create → ACTIVE with the real Octavia and the OVN provider on octonet: end-to-end
 * time per load balancer (`openstack loadbalancer create --wait`, so the CLI's own start-up is in
 * it) and the Neutron calls Octavia made to octonet for it, with their summed latency (octonet's
 * share). Prints figures only (nothing is asserted). Needs root (see test/fixtures/octavia.ts).
 *
 *   node --import tsx bench/octavia/main.ts [--count N]
 *
 * Not here yet: the amphora provider and the same run against the Neutron anchor.
 */
import { parseArgs } from 'node:util';
import { startApi } from '../../test/fixtures/api.js';
import type { Json } from '../../test/fixtures/json.js';
import { startKeystone } from '../../test/fixtures/keystone.js';
import { startOctavia } from '../../test/fixtures/octavia.js';
import { startOvnCentral } from '../../test/fixtures/ovn-central.js';

const { values } = parseArgs({ options: { count: { type: 'string', default: '5' } } });
const count = Number(values.count);

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const ovn = startOvnCentral();
const keystone = await startKeystone();
const api = await startApi('postgres', {
  config: { ...keystone.octonetConfig(), ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } },
});
const octavia = await startOctavia({ keystone, ovn: { nb: ovn.nb, sb: ovn.sb } });
try {
  await keystone.setEndpoint('network', api.url);
  const net = await octavia.cli.json<Json>(['network', 'create', 'bench-net']);
  const subnet = await octavia.cli.json<Json>([
    'subnet',
    'create',
    '--network',
    net.id,
    '--subnet-range',
    '10.9.0.0/24',
    'bench-sub',
  ]);
  const rows: { seconds: number; calls: number; octonetMs: number }[] = [];
  let lastCalls: string[] = [];
  for (let i = 0; i < count; i++) {
    const seen = api.logs().length;
    const started = performance.now();
    await octavia.cli.json<Json>([
      'loadbalancer',
      'create',
      '--provider',
      'ovn',
      '--vip-subnet-id',
      subnet.id,
      '--name',
      `lb${i}`,
      '--wait',
    ]);
    const seconds = (performance.now() - started) / 1000;
    const requests = api
      .logs()
      .slice(seen)
      .filter((line) => line.msg === 'request');
    lastCalls = requests.map((r) => `${String(r.method)} ${String(r.url).replace(/[0-9a-f-]{36}/g, '{id}')}`);
    rows.push({ seconds, calls: requests.length, octonetMs: requests.reduce((sum, r) => sum + Number(r.ms), 0) });
  }
  console.log('OVN provider, load balancer create → ACTIVE (openstack loadbalancer create --wait)');
  console.log('  #  end-to-end s  octonet calls  octonet ms (summed)');
  rows.forEach((r, i) =>
    console.log(
      `${String(i).padStart(3)}  ${r.seconds.toFixed(2).padStart(12)}  ${String(r.calls).padStart(13)}  ${r.octonetMs.toFixed(1).padStart(19)}`,
    ),
  );
  console.log(
    `median: ${median(rows.map((r) => r.seconds)).toFixed(2)} s end to end, ${median(rows.map((r) => r.calls))} calls, ` +
      `${median(rows.map((r) => r.octonetMs)).toFixed(1)} ms in octonet`,
  );
  console.log('the calls of the last one:');
  const tally = new Map<string, number>();
  for (const call of lastCalls) tally.set(call, (tally.get(call) ?? 0) + 1);
  for (const [call, n] of tally) console.log(`  ${n} × ${call}`);
} finally {
  await octavia.stop();
  await api.close();
  await keystone.stop();
  ovn.stop();
}

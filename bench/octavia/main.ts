/**
 * Load balancer create → ACTIVE with the real Octavia on octonet, for both providers: the OVN
 * provider, and the amphora provider (no-op amphora driver, real Nova compute driver against the
 * real Nova on its fake virt driver, real allowed-address-pairs network driver; see
 * test/fixtures/octavia-amphora.ts). Per load balancer: the end-to-end time
 * (`openstack loadbalancer create --wait`, so the CLI's own start-up is in it) and the Neutron calls
 * octonet served meanwhile, with their summed latency (octonet's share). For the amphora provider
 * those are Octavia's and Nova's calls together (Nova's periodic tasks too, if one falls in the
 * window). Prints figures only (nothing is asserted). Needs root (see test/fixtures/octavia.ts).
 *
 *   node --import tsx bench/octavia/main.ts [--count N] [--providers ovn,amphora]
 *
 * Not here yet: the same run against the Neutron anchor (no neutron-server runs here).
 */
import { parseArgs } from 'node:util';
import { startApi, type TestApi } from '../../test/fixtures/api.js';
import type { Json } from '../../test/fixtures/json.js';
import { startKeystone, withToken } from '../../test/fixtures/keystone.js';
import { octonetNovaConfig, startNova } from '../../test/fixtures/nova.js';
import { startOctavia, type OctaviaFixture } from '../../test/fixtures/octavia.js';
import { activeStandbyFlavor, lbMgmtNet } from '../../test/fixtures/octavia-amphora.js';
import { startOvnCentral } from '../../test/fixtures/ovn-central.js';

const { values } = parseArgs({
  options: { count: { type: 'string', default: '5' }, providers: { type: 'string', default: 'ovn,amphora' } },
});
const count = Number(values.count);
const providers = values.providers.split(',');
const HOSTS = ['node1', 'node2'];

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

interface Row {
  seconds: number;
  calls: number;
  octonetMs: number;
}

/** Creates `count` load balancers one after the other; prints one row each, the median and the last one's calls. */
async function series(api: TestApi, octavia: OctaviaFixture, label: string, args: readonly string[]): Promise<void> {
  const rows: Row[] = [];
  let lastCalls: string[] = [];
  for (let i = 0; i < count; i++) {
    const seen = api.logs().length;
    const started = performance.now();
    await octavia.cli.json<Json>(['loadbalancer', 'create', ...args, '--name', `${label}-${i}`, '--wait']);
    const seconds = (performance.now() - started) / 1000;
    const requests = api
      .logs()
      .slice(seen)
      .filter((line) => line.msg === 'request');
    lastCalls = requests.map((r) => `${String(r.method)} ${String(r.url).replace(/[0-9a-f-]{36}/g, '{id}')}`);
    rows.push({ seconds, calls: requests.length, octonetMs: requests.reduce((sum, r) => sum + Number(r.ms), 0) });
  }
  console.log(`\n${label}, load balancer create → ACTIVE (openstack loadbalancer create --wait)`);
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
}

const ovn = startOvnCentral();
HOSTS.forEach((host, i) => ovn.addChassis(host, `192.0.2.${11 + i}`));
const keystone = await startKeystone();
const novaUser = await keystone.addServiceUser('nova', ['admin', 'service']);
const api = await startApi('postgres', {
  config: {
    ...keystone.octonetConfig(),
    ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb },
    nova: octonetNovaConfig(keystone.url, novaUser),
  },
});
const amphora = providers.includes('amphora');
const nova = amphora ? await startNova({ keystone, neutronUrl: api.url, computeHosts: HOSTS, novaUser }) : undefined;
let octavia: OctaviaFixture | undefined;
try {
  await keystone.setEndpoint('network', api.url);
  const admin = withToken(api.admin, await keystone.issueToken(keystone.users.cloudAdmin));
  const post = async (path: string, body: Json): Promise<Json> => (await admin.post(`/v2.0/${path}`, body)).body;
  const mgmt = nova ? await lbMgmtNet(post, keystone.projects.service.id) : undefined;
  octavia = await startOctavia({
    keystone,
    ovn: { nb: ovn.nb, sb: ovn.sb },
    amphora:
      nova && mgmt
        ? {
            transportUrl: nova.transportUrl,
            flavorId: nova.flavorId,
            bootNetworkId: mgmt.networkId,
            secGroupIds: [mgmt.secGroupId],
          }
        : undefined,
  });
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
  const vip = ['--vip-subnet-id', subnet.id];
  if (providers.includes('ovn')) await series(api, octavia, 'OVN provider', ['--provider', 'ovn', ...vip]);
  if (amphora) {
    await series(api, octavia, 'amphora provider, SINGLE', ['--provider', 'amphora', ...vip]);
    await activeStandbyFlavor(octavia.cli, 'ha');
    await series(api, octavia, 'amphora provider, ACTIVE_STANDBY', ['--provider', 'amphora', '--flavor', 'ha', ...vip]);
  }
} finally {
  await octavia?.stop();
  await nova?.stop();
  await api.close();
  await keystone.stop();
  ovn.stop();
}

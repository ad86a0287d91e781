/**
 * Load balancer create → ACTIVE with the real Octavia, on octonet and on the real Neutron Zed + ML2/OVN
 * of the shared anchor (neutron-sides.ts), for both providers: the OVN provider, and the amphora
 * provider (no-op amphora driver, real Nova compute driver against the real Nova on its fake virt
 * driver, real allowed-address-pairs network driver; see test/fixtures/octavia-amphora.ts). Each side
 * gets a fresh Keystone, Nova and Octavia, which find their Neutron through the catalog: the catalog
 * names a measurement proxy (measurement-proxy.ts) in front of that side's server, so both sides'
 * Neutron calls are counted and timed the same way. Per load balancer: the end-to-end time
 * (`openstack loadbalancer create --wait`, so the CLI's own start-up is in it), the Neutron calls
 * meanwhile and their summed latency (the Neutron's share of the creation); for the amphora provider
 * those are Octavia's and Nova's calls together (Nova's periodic tasks too, if one falls in the
 * window). Each load balancer is deleted (cascade) after its measurement, outside the window, so
 * nothing piles up on the shared anchor. Prints figures only (nothing is asserted). Needs root.
 *
 *   node --import tsx bench/octavia/main.ts [--count N] [--providers ovn,amphora] [--neutron octonet,anchor]
 *                                           [--save FILE] [--from FILE,FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Json } from '../../test/fixtures/json.js';
import { startKeystone, type KeystoneFixture } from '../../test/fixtures/keystone.js';
import { startNova, type NovaFixture } from '../../test/fixtures/nova.js';
import { startOctavia, type OctaviaFixture } from '../../test/fixtures/octavia.js';
import { activeStandbyFlavor, lbMgmtNet, type LbMgmtNet } from '../../test/fixtures/octavia-amphora.js';
import { startMeasurementProxy, type MeasurementProxy } from './measurement-proxy.js';
import {
  attachAnchor,
  removeDefaultSecurityGroups,
  removeNetworks,
  startOctonetSide,
  type NeutronSide,
  type SideName,
} from './neutron-sides.js';
import { printComparison, printSeries, type Series } from './report.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '5' },
    providers: { type: 'string', default: 'ovn,amphora' },
    neutron: { type: 'string', default: 'octonet,anchor' },
    /** Writes every series as JSON, for `--from` (sides run as separate processes, side by side). */
    save: { type: 'string' },
    /** Runs nothing: prints the comparison of series saved earlier (comma-separated files). */
    from: { type: 'string' },
  },
});
const count = Number(values.count);
const providers = values.providers.split(',');
const sides = values.neutron.split(',') as SideName[];
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The last distinct ERROR messages (no traceback frames) of Octavia's worker and API: why a create failed. */
function octaviaErrors(octavia: OctaviaFixture): string {
  const messages = (['octavia-worker', 'octavia-api'] as const).flatMap((service) =>
    octavia
      .log(service)
      .split('\n')
      .map((line) =>
        /^\S+ \S+ \d+ ERROR \S+ (?!\s*File ")(?!\s*\^)(?!Traceback)(.*\w+(?:Exception|Error|Failure)\b.*)$/.exec(line),
      )
      .filter((match) => match !== null)
      .map((match) => `${service}: ${match[1]!.trim().slice(0, 400)}`),
  );
  return [...new Set(messages)].slice(-3).join('\n');
}

interface SideRun {
  readonly side: NeutronSide;
  readonly proxy: MeasurementProxy;
  readonly octavia: OctaviaFixture;
}

/** Creates `count` load balancers one after the other, each deleted after its measurement. */
async function series(run: SideRun, provider: string, args: readonly string[]): Promise<Series> {
  const { side, proxy, octavia } = run;
  const result: Series = { provider, side: side.name, sideLabel: side.label, rows: [], lastCalls: [] };
  for (let i = 0; i < count && !result.failure; i++) {
    const name = `bench-${provider.replace(/\W+/g, '-')}-${i}`;
    const seen = proxy.calls().length;
    const ownFrom = side.ownLog?.mark();
    const started = performance.now();
    const created = await octavia.cli.run(['loadbalancer', 'create', ...args, '--name', name, '--wait', '-f', 'json']);
    const seconds = (performance.now() - started) / 1000;
    const calls = proxy.calls().slice(seen);
    result.lastCalls = calls;
    if (created.code === 0) {
      result.rows.push({
        seconds,
        calls: calls.length,
        ms: calls.reduce((sum, c) => sum + c.ms, 0),
        own: ownFrom === undefined ? undefined : side.ownLog?.since(ownFrom),
      });
    } else {
      result.failure = `create ${name}: ${created.stderr.trim().slice(-600)}\n${octaviaErrors(octavia)}`;
    }
    const deleted = await octavia.cli.run(['loadbalancer', 'delete', '--cascade', '--wait', name]);
    if (deleted.code !== 0 && !result.failure) result.failure = `delete ${name}: ${deleted.stderr.trim().slice(-600)}`;
  }
  return result;
}

async function measure(run: SideRun): Promise<Series[]> {
  const net = await run.octavia.cli.json<Json>(['network', 'create', `octavia-bench-net-${process.pid}`]);
  const made: string[] = [net.id as string];
  const results: Series[] = [];
  try {
    const subnet = await run.octavia.cli.json<Json>([
      'subnet',
      'create',
      '--network',
      net.id,
      '--subnet-range',
      '10.9.0.0/24',
      `octavia-bench-sub-${process.pid}`,
    ]);
    const vip = ['--vip-subnet-id', subnet.id as string];
    if (providers.includes('ovn')) results.push(await series(run, 'OVN', ['--provider', 'ovn', ...vip]));
    if (providers.includes('amphora')) {
      results.push(await series(run, 'amphora, SINGLE', ['--provider', 'amphora', ...vip]));
      await activeStandbyFlavor(run.octavia.cli, 'ha');
      results.push(await series(run, 'amphora, ACTIVE_STANDBY', ['--provider', 'amphora', '--flavor', 'ha', ...vip]));
    }
  } finally {
    const left = await removeNetworks(run.side.admin, made);
    if (left.length) console.error(`not deleted from ${run.side.label}: ${left.join(', ')}`);
  }
  return results;
}

/** lb-mgmt-net and its security group, made on the side's server before Octavia starts. */
async function mgmtNetOn(side: NeutronSide, keystone: KeystoneFixture): Promise<LbMgmtNet> {
  return lbMgmtNet((path, body) => side.admin.post(path, body), keystone.projects.service.id);
}

/** One side: a fresh Keystone, the side's server behind the proxy, Nova (amphora) and Octavia. */
async function runSide(name: SideName): Promise<Series[]> {
  const keystone = await startKeystone();
  let side: NeutronSide | undefined;
  let proxy: MeasurementProxy | undefined;
  let nova: NovaFixture | undefined;
  let octavia: OctaviaFixture | undefined;
  let mgmt: LbMgmtNet | undefined;
  try {
    const novaUser = await keystone.addServiceUser('nova', ['admin', 'service']);
    side = name === 'octonet' ? await startOctonetSide(keystone, novaUser) : await attachAnchor(repoRoot, keystone);
    proxy = await startMeasurementProxy(side.url, side.prepare);
    await keystone.setEndpoint('network', proxy.url);
    if (providers.includes('amphora')) {
      nova = await startNova({ keystone, neutronUrl: proxy.url, computeHosts: [side.computeHost], novaUser });
      mgmt = await mgmtNetOn(side, keystone);
    }
    octavia = await startOctavia({
      keystone,
      ovn: side.ovn,
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
    return await measure({ side, proxy, octavia });
  } finally {
    await octavia?.stop();
    if (side && mgmt) {
      const left = await removeNetworks(side.admin, [mgmt.networkId]);
      const sg = await side.admin.delete(`security-groups/${mgmt.secGroupId}`);
      if (sg !== 204) left.push(`security group ${mgmt.secGroupId} (${sg})`);
      if (left.length) console.error(`not deleted from ${side.label}: ${left.join(', ')}`);
    }
    if (side) {
      const projects = [keystone.projects.service.id, keystone.users.cloudAdmin.project.id];
      await removeDefaultSecurityGroups(side.admin, projects).catch((error: Error) =>
        console.error(`default security groups left on ${side?.label}: ${error.message}`),
      );
    }
    await nova?.stop();
    await proxy?.close();
    await side?.stop();
    await keystone.stop();
  }
}

const all: Series[] = values.from
  ? values.from.split(',').flatMap((file) => JSON.parse(readFileSync(file, 'utf8')) as Series[])
  : [];
for (const name of values.from ? [] : sides) {
  try {
    for (const s of await runSide(name)) {
      printSeries(s);
      all.push(s);
    }
  } catch (error) {
    console.error(`\n${name}: could not run: ${(error as Error).stack ?? String(error)}`);
  }
}
if (values.save) writeFileSync(values.save, JSON.stringify(all, null, 1));
printComparison(all);

/**
 * `npm run bench:web`: the topology page in Debian's Chromium at cloud size. For each size (1,000
 * and 10,000 ports by default; routers 50 and 500): time from navigation to the first full draw
 * (every network card in the DOM), the page's JS heap after it (after a GC), the snapshot's size,
 * and the latency from an API write (a network renamed) to the new name on screen, measured in
 * this process around the write and the DOM wait. Prints median and p99 (nearest rank: with fewer
 * than 100 samples, the maximum) against the goals.
 *
 * Options: --sizes 1000,10000 --draws 5 --updates 20
 */
import { parseArgs } from 'node:util';
import { startApi } from '../../test/fixtures/api.js';
import { launchChromium } from '../../test/web/browser.js';
import { now, summarize, type Summary } from '../ovn/stats.js';
import { buildBenchCloud } from './cloud.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    draws: { type: 'string', default: '5' },
    updates: { type: 'string', default: '20' },
  },
});
const sizes = values.sizes.split(',').map(Number);
const draws = Number(values.draws);
const updates = Number(values.updates);
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);
const fmt = (s: Summary | undefined) => (s ? `${s.median.toFixed(0)} / ${s.p99.toFixed(0)}` : '-');

interface SizeResult {
  ports: number;
  routers: number;
  cold?: Summary;
  warm?: Summary;
  render?: Summary;
  heapMb?: number;
  snapshotKb?: number;
  update?: Summary;
}

async function measure(ports: number): Promise<SizeResult> {
  const routers = ports >= 10_000 ? 500 : Math.ceil(ports / 20);
  const unlimited = { network: -1, subnet: -1, port: -1, router: -1 };
  const api = await startApi('sqlite', { config: { quotas: unlimited } });
  const browser = await launchChromium();
  try {
    say(`${ports} ports, ${routers} routers: building the cloud`);
    const cloud = await buildBenchCloud(api.admin, ports, routers);
    const snapshot = await fetch(`${api.url}/ui/topology`);
    const snapshotKb = (await snapshot.arrayBuffer()).byteLength / 1024;
    const networks = cloud.networkIds.length;
    // The last network card: every card is in the DOM (one render builds them all).
    const lastCard = `#band-networks [data-kind="network"] >> nth=${networks - 1}`;

    // Cold: a write just dropped the kept snapshot, so the server builds it for this page.
    // Warm: nothing changed since the last page, which the server answers from its kept snapshot.
    const times: Record<'cold' | 'warm', number[]> = { cold: [], warm: [] };
    const renderMs: number[] = [];
    let heapMb = 0;
    const target = cloud.networkIds[0]!;
    let renamed = 0;
    const rename = async () => {
      const name = `renamed-${renamed++}`;
      const r = await api.admin.put(`/v2.0/networks/${target}`, { network: { name } });
      if (r.status !== 200) throw new Error(`rename: ${r.status}`);
      return name;
    };
    for (let i = 0; i < 2 * draws; i++) {
      const kind = i % 2 === 0 ? 'cold' : 'warm';
      if (kind === 'cold') await rename();
      const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
      const start = now();
      await page.goto(`${api.url}/ui/`);
      await page.locator(lastCard).waitFor({ state: 'attached', timeout: 60_000 });
      times[kind].push(now() - start);
      renderMs.push(Number(await page.locator('html').getAttribute('data-render-ms')));
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('HeapProfiler.collectGarbage');
      heapMb = (await cdp.send('Runtime.getHeapUsage')).usedSize / 2 ** 20;
      if (i < 2 * draws - 1) {
        await page.close();
        continue;
      }
      say(`${ports} ports: update latency, ${updates} writes`);
      const latencies: number[] = [];
      for (let u = 0; u < updates; u++) {
        const t0 = now();
        const name = await rename();
        await page.waitForSelector(`[data-id="${target}"] .label:text-is("${name}")`, { timeout: 30_000 });
        latencies.push(now() - t0);
      }
      await page.close();
      return {
        ports,
        routers,
        cold: summarize(times.cold),
        warm: summarize(times.warm),
        render: summarize(renderMs),
        heapMb,
        snapshotKb,
        update: summarize(latencies),
      };
    }
    throw new Error('no draws');
  } finally {
    await browser.close();
    await api.close();
  }
}

const GOALS: Record<number, number> = { 1000: 1000, 10000: 3000 };
const results: SizeResult[] = [];
for (const size of sizes) results.push(await measure(size));
console.log(
  '\n| ports | routers | snapshot KB | first draw ms, cold | first draw ms, warm | goal | of which page render ms | JS heap MB | update ms | goal |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const cells = [r.ports, r.routers, r.snapshotKb?.toFixed(0), fmt(r.cold), fmt(r.warm), `< ${GOALS[r.ports] ?? '-'}`];
  cells.push(fmt(r.render), r.heapMb?.toFixed(1), fmt(r.update), '< 1000');
  console.log(`| ${cells.join(' | ')} |`);
}
console.log('(median / p99 in ms; p99 is the nearest rank, so with fewer than 100 samples the maximum)');

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
  firstDraw?: Summary;
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

    const drawTimes: number[] = [];
    let heapMb = 0;
    for (let i = 0; i < draws; i++) {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
      const start = now();
      await page.goto(`${api.url}/ui/`);
      await page.locator(lastCard).waitFor({ state: 'attached', timeout: 60_000 });
      drawTimes.push(now() - start);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('HeapProfiler.collectGarbage');
      const { usedSize } = await cdp.send('Runtime.getHeapUsage');
      heapMb = usedSize / 2 ** 20;
      if (i < draws - 1) await page.close();
      else {
        say(`${ports} ports: update latency, ${updates} writes`);
        const latencies: number[] = [];
        const target = cloud.networkIds[0]!;
        for (let u = 0; u < updates; u++) {
          const name = `renamed-${u}`;
          const t0 = now();
          const r = await api.admin.put(`/v2.0/networks/${target}`, { network: { name } });
          if (r.status !== 200) throw new Error(`rename: ${r.status}`);
          await page.waitForSelector(`[data-id="${target}"] .label:text-is("${name}")`, { timeout: 30_000 });
          latencies.push(now() - t0);
        }
        await page.close();
        return { ports, routers, firstDraw: summarize(drawTimes), heapMb, snapshotKb, update: summarize(latencies) };
      }
    }
    return { ports, routers, firstDraw: summarize(drawTimes), heapMb, snapshotKb };
  } finally {
    await browser.close();
    await api.close();
  }
}

const GOALS: Record<number, number> = { 1000: 1000, 10000: 3000 };
const results: SizeResult[] = [];
for (const size of sizes) results.push(await measure(size));
console.log(
  '\n| ports | routers | snapshot KB | first draw ms median / p99 | goal | JS heap MB | update ms median / p99 | goal |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.ports} | ${r.routers} | ${r.snapshotKb?.toFixed(0)} | ${fmt(r.firstDraw)} | < ${GOALS[r.ports] ?? '-'} | ${r.heapMb?.toFixed(1)} | ${fmt(r.update)} | < 1000 |`,
  );
}

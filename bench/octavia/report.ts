/**
 * What the Octavia bench prints: one block per series (every load balancer's row, the median, the
 * calls of the last one), and the comparison table, provider × {octonet, Neutron Zed}, with the
 * ratio of octonet's summed Neutron-call latency to the real Neutron's (issue 16's goal: under 0.01).
 */
import type { ProxiedCall } from './measurement-proxy.js';
import type { SideName } from './neutron-sides.js';

/** One load balancer create → ACTIVE. */
export interface Row {
  readonly seconds: number;
  /** The Neutron calls the proxy forwarded meanwhile, and their summed latency. */
  readonly calls: number;
  readonly ms: number;
  /** octonet only: its own request log's count and summed handling time over the same window. */
  readonly own?: { readonly calls: number; readonly ms: number };
}

export interface Series {
  readonly provider: string;
  readonly side: SideName;
  readonly sideLabel: string;
  readonly rows: Row[];
  /** The calls of the last load balancer, for the tally. */
  lastCalls: readonly ProxiedCall[];
  /** Why the series stopped early, if it did. */
  failure?: string;
}

export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** A call's shape for the tally: ids and query values folded. */
const shape = (call: ProxiedCall) =>
  `${call.method} ${call.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-f]{32}/g, '{id}')} → ${call.status}`;

export function printSeries(series: Series): void {
  console.log(`\n${series.provider} on ${series.sideLabel}, load balancer create → ACTIVE`);
  console.log('  #  end-to-end s  Neutron calls  summed ms (proxy)  octonet log: calls / ms');
  series.rows.forEach((r, i) =>
    console.log(
      `${String(i).padStart(3)}  ${r.seconds.toFixed(2).padStart(12)}  ${String(r.calls).padStart(13)}  ` +
        `${r.ms.toFixed(1).padStart(17)}  ${r.own ? `${r.own.calls} / ${r.own.ms.toFixed(1)}` : ''}`,
    ),
  );
  if (series.failure) console.log(`  stopped: ${series.failure}`);
  if (series.rows.length === 0) return;
  console.log(
    `median: ${fixed(median(series.rows.map((r) => r.seconds)), 2)} s end to end, ` +
      `${median(series.rows.map((r) => r.calls))} calls, ${fixed(median(series.rows.map((r) => r.ms)), 1)} ms summed`,
  );
  console.log('the calls of the last one (and their summed ms):');
  const tally = new Map<string, { n: number; ms: number }>();
  for (const call of series.lastCalls) {
    const seen = tally.get(shape(call)) ?? { n: 0, ms: 0 };
    tally.set(shape(call), { n: seen.n + 1, ms: seen.ms + call.ms });
  }
  for (const [call, { n, ms }] of tally) console.log(`  ${String(n).padStart(3)} × ${call}  (${ms.toFixed(1)} ms)`);
}

/** The comparison table (markdown, as bench/octavia/README.md carries it). */
export function printComparison(all: readonly Series[]): void {
  const providers = [...new Set(all.map((s) => s.provider))];
  console.log(
    '\n| provider | Neutron | end to end (median) | Neutron calls (median) | summed latency (median) | octonet ÷ Neutron Zed |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  for (const provider of providers) {
    const octonet = all.find((s) => s.provider === provider && s.side === 'octonet');
    const anchor = all.find((s) => s.provider === provider && s.side === 'anchor');
    const summed = (s: Series | undefined) => (s?.rows.length ? median(s.rows.map((r) => r.ms)) : NaN);
    const ratio = summed(octonet) / summed(anchor);
    for (const s of [octonet, anchor]) {
      if (!s) continue;
      const cells = s.rows.length
        ? [
            `${fixed(median(s.rows.map((r) => r.seconds)), 2)} s`,
            String(median(s.rows.map((r) => r.calls))),
            `${fixed(summed(s), 0)} ms`,
          ]
        : ['failed', '', ''];
      const last = s.side === 'octonet' ? (Number.isFinite(ratio) ? ratio.toFixed(4) : '–') : '';
      console.log(`| ${provider} | ${s.sideLabel} | ${cells.join(' | ')} | ${last} |`);
    }
  }
  const failures = all.filter((s) => s.failure);
  for (const s of failures) console.log(`\n${s.provider} on ${s.sideLabel} failed: ${s.failure}`);
}

/**
 * Port churn with OVN writes on: N sequential port creates, then N updates (`name`), then N
 * deletes, each request timed, and per phase the NB transactions committed (counted in the NB
 * database file, so northd's own NB writes count too) and, for octonet, its own
 * `octonet_ovn_nb_transactions_total`. The same workload runs against the real Neutron.
 */
import type { NeutronApi } from './neutron-api.js';
import { settledCount, transactionsBetween } from './ovsdb-file.js';
import { now, summarize, type Summary } from './stats.js';

export type ChurnPhaseName = 'port-create' | 'port-update' | 'port-delete';

export interface ChurnPhase {
  phase: ChurnPhaseName;
  /** Per-request latency in ms. */
  latency: Summary | undefined;
  opsPerSecond: number;
  errors: number;
  errorSamples: string[];
  /** Transactions committed in the NB file during the phase (until it went quiet); undefined across a compaction. */
  nbFileTransactions: number | undefined;
  /** octonet's counter over the phase (octonet only). */
  clientTransactions: number | undefined;
}

export interface ChurnOptions {
  api: NeutronApi;
  networkId: string;
  ports: number;
  /** The NB database file of the ovsdb-server the target writes. */
  nbFile: string;
  /** Reads the target's own NB transaction counter, if it has one. */
  readCounter?: () => Promise<number | undefined>;
  /** Called after each phase with its figures (e.g. to meter CPU per phase). */
  onPhase?: (phase: ChurnPhaseName, stage: 'start' | 'end') => void;
}

async function timedPhase(
  phase: ChurnPhaseName,
  options: ChurnOptions,
  requests: number,
  request: (i: number) => Promise<void>,
): Promise<ChurnPhase> {
  const before = await settledCount(options.nbFile);
  const counterBefore = await options.readCounter?.();
  options.onPhase?.(phase, 'start');
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  const started = now();
  for (let i = 0; i < requests; i++) {
    const t = now();
    try {
      await request(i);
      latencies.push(now() - t);
    } catch (error) {
      errors++;
      if (errorSamples.length < 3) errorSamples.push((error as Error).message);
    }
  }
  const wallMs = now() - started;
  options.onPhase?.(phase, 'end');
  const after = await settledCount(options.nbFile);
  const counterAfter = await options.readCounter?.();
  return {
    phase,
    latency: summarize(latencies),
    opsPerSecond: latencies.length / (wallMs / 1000),
    errors,
    errorSamples,
    nbFileTransactions: transactionsBetween(before, after),
    clientTransactions:
      counterBefore !== undefined && counterAfter !== undefined ? counterAfter - counterBefore : undefined,
  };
}

export async function measureChurn(options: ChurnOptions): Promise<ChurnPhase[]> {
  const { api, networkId, ports } = options;
  const ids: (string | undefined)[] = [];
  const phases: ChurnPhase[] = [];
  phases.push(
    await timedPhase('port-create', options, ports, async (i) => {
      ids[i] = (await api.createPort({ network_id: networkId, name: `churn-${i}` })).id;
    }),
  );
  const created = ids.filter((id): id is string => !!id);
  phases.push(
    await timedPhase('port-update', options, created.length, async (i) => {
      await api.call('PUT', `/v2.0/ports/${created[i]}`, { port: { name: `churn-${i}-renamed` } });
    }),
  );
  phases.push(
    await timedPhase('port-delete', options, created.length, async (i) => {
      await api.delete('ports', created[i]!);
    }),
  );
  return phases;
}

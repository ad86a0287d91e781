/**
 * The OVN driver's Prometheus metrics: NB writes, repairs (what drifted and was put back), full
 * passes, port status changes reported back, and the OVSDB connections' own counters.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { OvsdbClient } from './ovsdb/index.js';

export interface OvnMetrics {
  /** NB transactions sent, by outcome. */
  readonly nbTransactions: Counter<'result'>;
  /** NB operations sent (one transaction carries many). */
  readonly nbOperations: Counter;
  /** Resources whose NB rows differed from the database and were rewritten, by resource and action. */
  readonly repairs: Counter<'resource' | 'action'>;
  /** Full comparisons of the database with the NB, by trigger. */
  readonly fullSyncs: Counter<'trigger'>;
  /** Duration of the last full comparison, in seconds. */
  readonly lastFullSyncSeconds: Gauge;
  /** Port status changes reported from OVN to the database. */
  readonly portStatusChanges: Counter<'status'>;
}

/** What the connection gauges read of a client, whatever its tables. */
type ConnectionState = Pick<OvsdbClient, 'connected' | 'reconnects'>;

export function createOvnMetrics(
  registry: Registry,
  clients: { nb: ConnectionState; sb: ConnectionState },
): OvnMetrics {
  const registers = [registry];
  for (const [name, client] of Object.entries(clients)) {
    new Gauge({
      name: `octonet_ovn_${name}_connected`,
      help: `1 while the OVN ${name.toUpperCase()} connection is up and synced`,
      registers,
      collect() {
        this.set(client.connected ? 1 : 0);
      },
    });
    new Gauge({
      name: `octonet_ovn_${name}_reconnects`,
      help: `Reconnects of the OVN ${name.toUpperCase()} connection since start`,
      registers,
      collect() {
        this.set(client.reconnects);
      },
    });
  }
  return {
    nbTransactions: new Counter({
      name: 'octonet_ovn_nb_transactions_total',
      help: 'NB transactions sent by the OVN driver, by result',
      labelNames: ['result'],
      registers,
    }),
    nbOperations: new Counter({
      name: 'octonet_ovn_nb_operations_total',
      help: 'NB operations sent by the OVN driver',
      registers,
    }),
    repairs: new Counter({
      name: 'octonet_ovn_repairs_total',
      help: 'Resources whose NB rows had drifted from the database and were rewritten',
      labelNames: ['resource', 'action'],
      registers,
    }),
    fullSyncs: new Counter({
      name: 'octonet_ovn_full_syncs_total',
      help: 'Full comparisons of the database with the NB, by trigger',
      labelNames: ['trigger'],
      registers,
    }),
    lastFullSyncSeconds: new Gauge({
      name: 'octonet_ovn_last_full_sync_seconds',
      help: 'Duration of the last full comparison of the database with the NB',
      registers,
    }),
    portStatusChanges: new Counter({
      name: 'octonet_ovn_port_status_reports_total',
      help: 'Port up/down changes reported from OVN to the database',
      labelNames: ['status'],
      registers,
    }),
  };
}

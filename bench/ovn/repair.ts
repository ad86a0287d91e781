/**
 * Time to repair a deleted Logical_Switch_Port: the port's LSP is removed behind octonet's back
 * (a `mutate` of its Logical_Switch's `ports`, so OVSDB garbage-collects the row, as `ovn-nbctl
 * lsp-del` does), and timed from the NB monitor seeing the delete to the NB monitor seeing an LSP
 * of that name inserted again. octonet repairs from its own NB monitor; Neutron's maintenance
 * task would take up to 300 s. The goal: under 1 s.
 */
import type { LogicalSwitchPortRow, LogicalSwitchRow } from '../../src/drivers/ovn/ovsdb/index.js';
import type { Monitors } from './monitors.js';
import type { NeutronApi } from './neutron-api.js';
import { now } from './stats.js';

export interface RepairResult {
  /** Milliseconds from the delete to the re-insert, as the NB monitor saw them. */
  samples: number[];
  /**
   * Milliseconds from sending the delete to seeing the re-insert: an upper bound. On 2 busy cores
   * this process may read the delete late (after octonet, northd), which shortens `samples`.
   */
  fromSentSamples: number[];
  failures: string[];
}

const REPAIR_TIMEOUT_MS = 30_000;

export async function measureRepair(
  api: NeutronApi,
  monitors: Monitors,
  networkId: string,
  count: number,
): Promise<RepairResult> {
  const { nb, events } = monitors;
  const switchName = `neutron-${networkId}`;
  const result: RepairResult = { samples: [], fromSentSamples: [], failures: [] };
  const since = now();
  const ports = await api.createPorts(
    Array.from({ length: count }, (_, i) => ({ network_id: networkId, name: `repair-${i}` })),
  );
  await Promise.all(ports.map((p) => events.wait(p.id, 'lsp-insert', since, REPAIR_TIMEOUT_MS)));
  for (const port of ports) {
    try {
      const lsp = nb.replica.findOne<LogicalSwitchPortRow>('Logical_Switch_Port', 'name', port.id);
      const owner = nb.replica.findOne<LogicalSwitchRow>('Logical_Switch', 'name', switchName);
      if (!lsp || !owner) throw new Error(`no LSP ${port.id} on ${switchName} in the NB`);
      const before = now();
      await nb.transact([
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['_uuid', '==', owner._uuid]],
          mutations: [['ports', 'delete', [lsp._uuid]]],
        },
      ]);
      const deleted = await events.wait(port.id, 'lsp-delete', before, REPAIR_TIMEOUT_MS);
      const inserted = await events.wait(port.id, 'lsp-insert', deleted, REPAIR_TIMEOUT_MS);
      result.samples.push(inserted - deleted);
      result.fromSentSamples.push(inserted - before);
    } catch (error) {
      result.failures.push(`${port.id}: ${(error as Error).message}`);
    }
  }
  return result;
}

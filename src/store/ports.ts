/**
 * Ports and what hangs off them: fixed IPs (`ip_allocations`), allowed address pairs, extra DHCP
 * options, security group bindings, tags.
 */
import type { Tx } from './database.js';

/** Ports that keep a network from being deleted: all but those owned by `autoDeleteOwners`. */
export async function portsBlockingNetworkDelete(tx: Tx, networkId: string, autoDeleteOwners: string[]): Promise<string[]> {
  const rows = await tx
    .selectFrom('ports')
    .select('id')
    .where('network_id', '=', networkId)
    .where('device_owner', 'not in', autoDeleteOwners)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Deletes what a network takes with it: its remaining (service) ports, then its subnets. */
export async function deleteNetworkContents(tx: Tx, networkId: string): Promise<void> {
  const ports = await tx.selectFrom('ports').select('id').where('network_id', '=', networkId).execute();
  const subnets = await tx.selectFrom('subnets').select('id').where('network_id', '=', networkId).execute();
  const ids = [...ports.map((p) => p.id), ...subnets.map((s) => s.id)];
  if (ids.length) await tx.deleteFrom('tags').where('resource_id', 'in', ids).execute();
  await tx.deleteFrom('ports').where('network_id', '=', networkId).execute();
  await tx.deleteFrom('subnets').where('network_id', '=', networkId).execute();
}

export async function hasRouterGatewayPorts(tx: Tx, networkId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('ports')
    .select('id')
    .where('network_id', '=', networkId)
    .where('device_owner', '=', 'network:router_gateway')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A floating IP's status from OVN: ACTIVE once its router holds its NAT row (the data plane
 * carries it), DOWN otherwise. Read from the NB replica right after the router is written.
 */
import type { NbTables, ReplicaView } from '../ovsdb/index.js';

export function floatingIpStatus(nb: ReplicaView<NbTables>, floatingIpId: string): 'ACTIVE' | 'DOWN' {
  const nat = [...nb.table('NAT').values()].some((row) => row.external_ids['neutron:fip_id'] === floatingIpId);
  return nat ? 'ACTIVE' : 'DOWN';
}

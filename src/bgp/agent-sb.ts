/**
 * The BGP agent's view of the OVN southbound database: where a logical port is bound now (a
 * gateway's `cr-lrp-*`, a VM's or a VIP's port), and the agent's registration as a DR agent in its
 * chassis' `Chassis_Private.external_ids` (the keys the API's agent list reads, `bgp-agents.ts` on
 * the API side): `octonet:bgp-agent-id`, a UUID derived from the chassis name so it survives
 * restarts, and `octonet:bgp-agent-heartbeat`, the `SB_Global.nb_cfg` last seen (as the ML2/OVN
 * metadata agent reports, so the API's ping before an agent list reaches it).
 */
import { createHash } from 'node:crypto';
import type {
  ChassisPrivateRow,
  ChassisRow,
  OvsdbClient,
  PortBindingRow,
  SbGlobalRow,
  SbTables,
} from '../drivers/ovn/ovsdb/index.js';
import type { OvnLocation } from './placement.js';

export const AGENT_ID_KEY = 'octonet:bgp-agent-id';
export const HEARTBEAT_KEY = 'octonet:bgp-agent-heartbeat';

/** A name-based UUID (version 5 layout over SHA-1): the same chassis always gets the same agent id. */
export function agentIdFor(chassis: string): string {
  const bytes = createHash('sha1').update(`octonet-bgp-agent:${chassis}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export class SouthboundView implements OvnLocation {
  constructor(private readonly sb: OvsdbClient<SbTables>) {}

  chassisOf(logicalPort: string): string | undefined {
    const binding = this.sb.replica.findOne<PortBindingRow>('Port_Binding', 'logical_port', logicalPort);
    if (!binding?.chassis) return undefined;
    return this.sb.replica.get<ChassisRow>('Chassis', binding.chassis)?.name;
  }

  nbCfg(): number {
    return [...this.sb.replica.table<SbGlobalRow>('SB_Global').values()][0]?.nb_cfg ?? 0;
  }

  /**
   * Writes the agent's id and heartbeat into its chassis' Chassis_Private row when they differ from
   * what is there. Returns what it did; `missing` while ovn-controller has not registered the chassis.
   */
  async register(chassis: string, agentId: string): Promise<'updated' | 'unchanged' | 'missing'> {
    const row = this.sb.replica.findOne<ChassisPrivateRow>('Chassis_Private', 'name', chassis);
    if (!row || !this.sb.connected) return 'missing';
    const heartbeat = String(this.nbCfg());
    if (row.external_ids[AGENT_ID_KEY] === agentId && row.external_ids[HEARTBEAT_KEY] === heartbeat) return 'unchanged';
    const external_ids = { ...row.external_ids, [AGENT_ID_KEY]: agentId, [HEARTBEAT_KEY]: heartbeat };
    await this.sb.transact([
      { op: 'update', table: 'Chassis_Private', where: [['_uuid', '==', row._uuid]], row: { external_ids } },
    ]);
    return 'updated';
  }
}

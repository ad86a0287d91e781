/**
 * The SB chassis as Neutron sees them: agents (`GET /v2.0/agents`, with Neutron's `nb_cfg` ping
 * before a list), port binding to a live chassis, the gateway candidates of the router scheduler,
 * and which chassis hosts a router's gateway now (`l3-agents`). Reads the SB replica; writes only
 * what the agents API changes (descriptions, deleted chassis) and the NB ping.
 */
import type { AgentProvider, PortBinding } from '../../contract.js';
import type { PortState } from '../../host.js';
import {
  agentView,
  bridgeMappings,
  chassisAvailabilityZones,
  isGatewayChassis,
  METADATA_DESCRIPTION_KEY,
  METADATA_ID_KEY,
  metadataAgentView,
  type Liveness,
} from './agents.js';
import type { GatewayCandidate } from '../gateway-scheduler.js';
import {
  BGP_AGENT_DESCRIPTION_KEY,
  BGP_AGENT_HEARTBEAT_KEY,
  BGP_AGENT_ID_KEY,
  bgpAgentIds,
  bgpAgentView,
} from './bgp-agents.js';
import type {
  ChassisPrivateRow,
  ChassisRow,
  NbGlobalRow,
  NbTables,
  OvsdbClient,
  PortBindingRow,
  SbTables,
} from '../ovsdb/index.js';

export interface ChassisPair {
  readonly chassis: ChassisRow;
  readonly private: ChassisPrivateRow;
}

/**
 * `vif_details` of an `ovs` binding: what os-vif reads to plug the VIF. `datapath_type` is the
 * chassis' integration bridge datapath (ovn-controller copies it into `other_config`; empty is
 * the kernel's, `system`), so os-vif plugs a `netdev` (userspace) node as such.
 */
function ovsVifDetails(chassis: ChassisRow): Record<string, unknown> {
  return {
    port_filter: true,
    connectivity: 'l2',
    bridge_name: 'br-int',
    datapath_type: chassis.other_config['datapath-type'] || 'system',
  };
}

export class ChassisAgents {
  private lastPing = 0;

  constructor(
    private readonly nb: OvsdbClient<NbTables>,
    private readonly sb: OvsdbClient<SbTables>,
    private readonly agentDownTimeMs: number,
    /** Whether this deployment owns the NB (`nb-owner.ts`): the ping writes `NB_Global`. */
    private readonly mayWriteNb: () => boolean = () => true,
  ) {}

  liveness(): Liveness {
    const global = [...this.nb.replica.table<NbGlobalRow>('NB_Global').values()][0];
    return { nbCfg: global?.nb_cfg ?? 0, nowMs: Date.now(), agentDownTimeMs: this.agentDownTimeMs };
  }

  pairs(): ChassisPair[] {
    const chassisByName = new Map([...this.sb.replica.table<ChassisRow>('Chassis').values()].map((c) => [c.name, c]));
    const pairs: ChassisPair[] = [];
    for (const row of this.sb.replica.table<ChassisPrivateRow>('Chassis_Private').values()) {
      const chassis = chassisByName.get(row.name);
      if (chassis) pairs.push({ chassis, private: row });
    }
    return pairs;
  }

  /**
   * `bind_port`: a normal VNIC on a host that runs a live ovn-controller (the chassis' hostname or
   * name) binds as `ovs`; anything else is not ours (ML2 then reports `binding_failed`).
   */
  bindPort(port: PortState): PortBinding | undefined {
    const host = port['binding:host_id'];
    if (port['binding:vnic_type'] !== 'normal') return undefined;
    const found = this.pairs().find((p) => p.chassis.hostname === host || p.chassis.name === host);
    if (!found || !agentView(found.chassis, found.private, this.liveness()).alive) return undefined;
    return { vifType: 'ovs', vifDetails: ovsVifDetails(found.chassis) };
  }

  /** Every chassis as a router gateway candidate. */
  gatewayCandidates(): GatewayCandidate[] {
    return [...this.sb.replica.table<ChassisRow>('Chassis').values()].map((chassis) => ({
      name: chassis.name,
      gateway: isGatewayChassis(chassis),
      physnets: new Set(bridgeMappings(chassis).keys()),
      availabilityZones: chassisAvailabilityZones(chassis),
    }));
  }

  /** The chassis that holds a gateway port now (the SB binding of its `cr-lrp-<port>`), if any. */
  activeChassisOfGateway(gatewayPortId: string): string | undefined {
    const binding = this.sb.replica.findOne<PortBindingRow>('Port_Binding', 'logical_port', `cr-lrp-${gatewayPortId}`);
    if (!binding?.chassis) return undefined;
    return this.sb.replica.get<ChassisRow>('Chassis', binding.chassis)?.name;
  }

  readonly provider: AgentProvider = {
    listAgents: async () => {
      await this.ping();
      const liveness = this.liveness();
      return this.pairs().flatMap((p) => {
        const metadata = metadataAgentView(p.chassis, p.private, liveness);
        const bgp = bgpAgentView(p.chassis, p.private, liveness);
        return [
          { ...agentView(p.chassis, p.private, liveness) },
          ...(metadata ? [{ ...metadata }] : []),
          ...(bgp ? [{ ...bgp }] : []),
        ];
      });
    },
    describeAgent: async (id, description) => {
      if (await this.changeBgpAgent(id, (ids) => ({ ...ids, [BGP_AGENT_DESCRIPTION_KEY]: description }))) return true;
      const found = this.findAgent(id);
      if (!found) return false;
      const key = found.private.name === id ? 'neutron:description' : METADATA_DESCRIPTION_KEY;
      const external_ids = { ...found.private.external_ids, [key]: description };
      await this.sb.transact([
        {
          op: 'update',
          table: 'Chassis_Private',
          where: [['_uuid', '==', found.private._uuid]],
          row: { external_ids },
        },
      ]);
      return true;
    },
    deleteAgent: async (id) => {
      // A DR agent is its registration: deleting it leaves the chassis alone.
      const unregister = (ids: Record<string, string>) => {
        const kept = { ...ids };
        for (const key of [BGP_AGENT_ID_KEY, BGP_AGENT_HEARTBEAT_KEY, BGP_AGENT_DESCRIPTION_KEY]) delete kept[key];
        return kept;
      };
      if (await this.changeBgpAgent(id, unregister)) return true;
      // The controller or metadata agent of a chassis goes with the chassis, as ML2/OVN's delete_agent does.
      const found = this.findAgent(id);
      if (!found) return false;
      await this.sb.transact([
        { op: 'delete', table: 'Chassis_Private', where: [['_uuid', '==', found.private._uuid]] },
        { op: 'delete', table: 'Chassis', where: [['_uuid', '==', found.chassis._uuid]] },
      ]);
      return true;
    },
  };

  /** Rewrites the `external_ids` a DR agent registered in; false when no chassis carries that agent. */
  private async changeBgpAgent(
    id: string,
    change: (ids: Record<string, string>) => Record<string, string>,
  ): Promise<boolean> {
    for (const p of this.pairs()) {
      const ids = bgpAgentIds(p.chassis, p.private);
      if (ids?.[BGP_AGENT_ID_KEY] !== id) continue;
      const onPrivate = ids === p.private.external_ids;
      const row = onPrivate ? p.private : p.chassis;
      await this.sb.transact([
        {
          op: 'update',
          table: onPrivate ? 'Chassis_Private' : 'Chassis',
          where: [['_uuid', '==', row._uuid]],
          row: { external_ids: change(ids) },
        },
      ]);
      return true;
    }
    return false;
  }

  /** The chassis whose controller agent (the chassis name) or metadata agent has this id. */
  private findAgent(id: string): ChassisPair | undefined {
    return this.pairs().find((p) => p.private.name === id || p.private.external_ids[METADATA_ID_KEY] === id);
  }

  /**
   * Asks every ovn-controller to report in (`NB_Global.nb_cfg` + 1), at most every half agent
   * down time, as Neutron's `ping_all_chassis` does before listing agents.
   */
  private async ping(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPing < this.agentDownTimeMs / 2) return;
    const global = [...this.nb.replica.table<NbGlobalRow>('NB_Global').values()][0];
    if (!global || !this.nb.connected || !this.mayWriteNb()) return;
    this.lastPing = now;
    await this.nb.transact([
      { op: 'mutate', table: 'NB_Global', where: [['_uuid', '==', global._uuid]], mutations: [['nb_cfg', '+=', 1]] },
      {
        op: 'update',
        table: 'NB_Global',
        where: [['_uuid', '==', global._uuid]],
        row: { external_ids: { ...global.external_ids, 'neutron:liveness_check_at': new Date(now).toISOString() } },
      },
    ]);
  }
}

/**
 * OVN chassis as Neutron agents (`neutron/plugins/ml2/drivers/ovn/agent/neutron_agent.py`): every
 * SB `Chassis_Private` is an `OVN Controller agent`, or an `OVN Controller Gateway agent` when its
 * chassis carries `enable-chassis-as-gw` in `ovn-cms-options`; a chassis where
 * `neutron-ovn-metadata-agent` registered (its id in `Chassis_Private.external_ids`) also has an
 * `OVN Metadata agent`. Nothing is stored: agents are read from the SB replica each time. Pure
 * functions.
 */
import type { ChassisPrivateRow, ChassisRow } from '../ovsdb/index.js';

export const CONTROLLER_AGENT = 'OVN Controller agent';
export const GATEWAY_AGENT = 'OVN Controller Gateway agent';
export const METADATA_AGENT = 'OVN Metadata agent';
/** What the metadata agent writes into its `Chassis_Private.external_ids` (ML2/OVN's constants). */
export const METADATA_ID_KEY = 'neutron:ovn-metadata-id';
const METADATA_SB_CFG_KEY = 'neutron:ovn-metadata-sb-cfg';
export const METADATA_DESCRIPTION_KEY = 'neutron:description-metadata';

export interface AgentView {
  readonly binary: string;
  readonly host: string;
  readonly heartbeat_timestamp: string;
  readonly availability_zone: string;
  readonly topic: string;
  readonly description: string;
  readonly configurations: Record<string, string>;
  readonly agent_type: string;
  readonly id: string;
  readonly alive: boolean;
  readonly admin_state_up: boolean;
}

/** `ovn-cms-options`, from `other_config` (OVN ≥ 22.09) or `external_ids` (older). */
export function cmsOptions(chassis: ChassisRow): string[] {
  const raw = chassis.other_config['ovn-cms-options'] ?? chassis.external_ids['ovn-cms-options'] ?? '';
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function isGatewayChassis(chassis: ChassisRow): boolean {
  return cmsOptions(chassis).includes('enable-chassis-as-gw');
}

/** `availability-zones=az1:az2` in the CMS options. */
export function chassisAvailabilityZones(chassis: ChassisRow): string[] {
  const option = cmsOptions(chassis).find((o) => o.startsWith('availability-zones='));
  return option ? option.slice('availability-zones='.length).split(':').filter(Boolean) : [];
}

/** `ovn-bridge-mappings` (`physnet1:br-ex,physnet2:br-vlan`) as physnet → bridge. */
export function bridgeMappings(chassis: ChassisRow): Map<string, string> {
  const raw = chassis.other_config['ovn-bridge-mappings'] ?? chassis.external_ids['ovn-bridge-mappings'] ?? '';
  const result = new Map<string, string>();
  for (const pair of raw.split(',')) {
    const [physnet, bridge] = pair.split(':');
    if (physnet && bridge) result.set(physnet.trim(), bridge.trim());
  }
  return result;
}

/** Python's `str(datetime)` of an aware UTC time, as Neutron renders `heartbeat_timestamp`. */
export function pythonUtcTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-21T23:38:10.271Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${iso.slice(20, 23)}000+00:00`;
}

export interface Liveness {
  /** `NB_Global.nb_cfg`: what every live ovn-controller catches up to. */
  readonly nbCfg: number;
  readonly nowMs: number;
  readonly agentDownTimeMs: number;
}

/** Alive when at most one `nb_cfg` behind, or heard from within the agent down time. */
export function isAlive(chassisPrivate: ChassisPrivateRow, liveness: Liveness): boolean {
  if (liveness.nbCfg - chassisPrivate.nb_cfg <= 1) return true;
  return liveness.nowMs - chassisPrivate.nb_cfg_timestamp < liveness.agentDownTimeMs;
}

export function agentView(chassis: ChassisRow, chassisPrivate: ChassisPrivateRow, liveness: Liveness): AgentView {
  return {
    binary: 'ovn-controller',
    host: chassis.hostname,
    heartbeat_timestamp: pythonUtcTimestamp(chassisPrivate.nb_cfg_timestamp),
    availability_zone: chassisAvailabilityZones(chassis).join(', '),
    topic: 'n/a',
    description: chassisPrivate.external_ids['neutron:description'] ?? '',
    configurations: {
      chassis_name: chassis.name,
      'bridge-mappings':
        chassis.other_config['ovn-bridge-mappings'] ?? chassis.external_ids['ovn-bridge-mappings'] ?? '',
    },
    agent_type: isGatewayChassis(chassis) ? GATEWAY_AGENT : CONTROLLER_AGENT,
    id: chassisPrivate.name,
    alive: isAlive(chassisPrivate, liveness),
    admin_state_up: true,
  };
}

/**
 * The chassis' metadata agent (`neutron_agent.py:MetadataAgent`), if one registered: its id and
 * description from `external_ids`, its heartbeat the `nb_cfg` it last saw (`…-sb-cfg`, rewritten
 * on every `SB_Global` update), and alive only while its chassis' ovn-controller is.
 */
export function metadataAgentView(
  chassis: ChassisRow,
  chassisPrivate: ChassisPrivateRow,
  liveness: Liveness,
): AgentView | undefined {
  const id = chassisPrivate.external_ids[METADATA_ID_KEY];
  if (!id) return undefined;
  const controller = agentView(chassis, chassisPrivate, liveness);
  const sbCfg = Number(chassisPrivate.external_ids[METADATA_SB_CFG_KEY] ?? 0);
  const seen = { ...chassisPrivate, nb_cfg: Number.isFinite(sbCfg) ? sbCfg : 0 };
  return {
    ...controller,
    binary: 'neutron-ovn-metadata-agent',
    agent_type: METADATA_AGENT,
    id,
    description: chassisPrivate.external_ids[METADATA_DESCRIPTION_KEY] ?? '',
    alive: controller.alive && isAlive(seen, liveness),
  };
}

/**
 * octonet's BGP agents as Neutron's DR agents (`BGP dynamic routing agent`, n-d-r's
 * `neutron-bgp-dragent` on topic `bgp_dragent`). Nothing is stored: the agent on a node registers
 * in its chassis' SB `Chassis_Private.external_ids` (`Chassis` as a fallback), as the ML2/OVN
 * metadata agent does with `neutron:ovn-metadata-id` / `neutron:ovn-metadata-sb-cfg`:
 *
 * - `octonet:bgp-agent-id`: the agent's id, a UUID that stays the same across restarts;
 * - `octonet:bgp-agent-heartbeat`: either the `SB_Global.nb_cfg` the agent last saw (a decimal
 *   integer; the agent copies it whenever it changes, so Neutron's ping before an agent list
 *   reaches it), or the time of its last report (an ISO 8601 timestamp or epoch milliseconds);
 * - `octonet:bgp-agent-description`: what `PUT /v2.0/agents/<id>` set as its description.
 *
 * Alive like the metadata agent: at most one `nb_cfg` behind, or heard from (by its timestamp, or
 * its chassis' `nb_cfg_timestamp` when the heartbeat is an nb_cfg) within the agent down time.
 * Pure functions.
 */
import type { ChassisPrivateRow, ChassisRow } from '../ovsdb/index.js';
import { chassisAvailabilityZones, pythonUtcTimestamp, type AgentView, type Liveness } from './agents.js';

export const BGP_AGENT_TYPE = 'BGP dynamic routing agent';
export const BGP_AGENT_ID_KEY = 'octonet:bgp-agent-id';
export const BGP_AGENT_HEARTBEAT_KEY = 'octonet:bgp-agent-heartbeat';
export const BGP_AGENT_DESCRIPTION_KEY = 'octonet:bgp-agent-description';

/** Where the agent registered: the `external_ids` of Chassis_Private, else of Chassis. */
export function bgpAgentIds(
  chassis: ChassisRow,
  chassisPrivate: ChassisPrivateRow,
): Record<string, string> | undefined {
  if (chassisPrivate.external_ids[BGP_AGENT_ID_KEY]) return chassisPrivate.external_ids;
  if (chassis.external_ids[BGP_AGENT_ID_KEY]) return chassis.external_ids;
  return undefined;
}

/** The heartbeat as (nb_cfg seen, last report in ms). */
function readHeartbeat(raw: string | undefined, chassisPrivate: ChassisPrivateRow): { nbCfg?: number; atMs: number } {
  if (raw && /^\d{1,15}$/.test(raw) && Number(raw) < 1e12) {
    return { nbCfg: Number(raw), atMs: chassisPrivate.nb_cfg_timestamp };
  }
  const ms = raw ? (/^\d+$/.test(raw) ? Number(raw) : Date.parse(raw)) : NaN;
  return { atMs: Number.isFinite(ms) ? ms : 0 };
}

export function bgpAgentView(
  chassis: ChassisRow,
  chassisPrivate: ChassisPrivateRow,
  liveness: Liveness,
): AgentView | undefined {
  const ids = bgpAgentIds(chassis, chassisPrivate);
  if (!ids) return undefined;
  const beat = readHeartbeat(ids[BGP_AGENT_HEARTBEAT_KEY], chassisPrivate);
  const caughtUp = beat.nbCfg !== undefined && liveness.nbCfg - beat.nbCfg <= 1;
  return {
    binary: 'neutron-bgp-dragent',
    host: chassis.hostname,
    heartbeat_timestamp: pythonUtcTimestamp(beat.atMs),
    availability_zone: chassisAvailabilityZones(chassis).join(', '),
    topic: 'bgp_dragent',
    description: ids[BGP_AGENT_DESCRIPTION_KEY] ?? '',
    configurations: { chassis_name: chassis.name },
    agent_type: BGP_AGENT_TYPE,
    id: ids[BGP_AGENT_ID_KEY]!,
    alive: caughtUp || liveness.nowMs - beat.atMs < liveness.agentDownTimeMs,
    admin_state_up: true,
  };
}

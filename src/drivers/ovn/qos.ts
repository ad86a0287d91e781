/**
 * QoS on ports as ML2/OVN writes it (`mech_driver/ovsdb/extensions/qos.py`, Zed): for a port with
 * an effective policy (its own, else its network's; none for Neutron's own `network:` ports), one
 * NB `QoS` row per direction on the port's switch, priority 2002, `external_ids:neutron:port_id`:
 * egress (`from-lport`, `inport == "<port>"`) carries the egress bandwidth limit and the DSCP mark,
 * ingress (`to-lport`, `outport == "<port>"`) the ingress limit. Rates are kbps as OVN takes them.
 *
 * Mapping and planning only (pure, no I/O); the port's plan in `repair/desired-state.ts` includes
 * this one, so the repair owns and repairs these rows like the port's own. Not written: minimum
 * bandwidth (ML2/OVN's LSP `options:qos_min_rate`, only effective on localnet ports), floating IP
 * and router gateway QoS (`qos-fip`, `qos-gateway-ip` are not served).
 */
import type { PortState, QosRuleState } from '../host.js';
import type { NbView } from './nb-view.js';
import { namedUuid, valuesEqual, type Operation, type RowValue } from './ovsdb/index.js';
import type { Outcome, Plan } from './planner.js';

/** `OVN_QOS_DEFAULT_RULE_PRIORITY`. */
export const QOS_PRIORITY = 2002;
const PORT_KEY = 'neutron:port_id';

export interface QosRowSpec {
  readonly priority: number;
  readonly direction: 'from-lport' | 'to-lport';
  readonly match: string;
  readonly action: Record<string, number>;
  readonly bandwidth: Record<string, number>;
  readonly external_ids: Record<string, string>;
}

/** `port_effective_qos_policy_id`: the port's policy, else its network's; none for network devices. */
export function effectiveQosPolicyId(port: PortState): string | null {
  if (port.device_owner.startsWith('network:') || port.device_owner.startsWith('neutron:')) return null;
  return port.qos_policy_id ?? port.qos_network_policy_id;
}

/** The QoS rows a port should have, given the rules of its effective policy (none: no rows). */
export function portQosRows(port: PortState, rules: readonly QosRuleState[]): QosRowSpec[] {
  const rows: QosRowSpec[] = [];
  for (const direction of ['egress', 'ingress'] as const) {
    const bandwidth: Record<string, number> = {};
    const action: Record<string, number> = {};
    for (const rule of rules) {
      // OVN's rate is at least 1: a 0 kbps limit (Neutron accepts it) is no limit here.
      if (rule.type === 'bandwidth_limit' && rule.direction === direction && rule.max_kbps) {
        bandwidth.rate = rule.max_kbps;
        if (rule.max_burst_kbps) bandwidth.burst = rule.max_burst_kbps;
      }
      if (rule.type === 'dscp_marking' && direction === 'egress' && rule.dscp_mark !== null) {
        action.dscp = rule.dscp_mark;
      }
    }
    if (Object.keys(bandwidth).length === 0 && Object.keys(action).length === 0) continue;
    rows.push({
      priority: QOS_PRIORITY,
      direction: direction === 'egress' ? 'from-lport' : 'to-lport',
      match: `${direction === 'egress' ? 'inport' : 'outport'} == "${port.id}"`,
      action,
      bandwidth,
      external_ids: { [PORT_KEY]: port.id },
    });
  }
  return rows;
}

const byUuid = (uuid: string) => [['_uuid', '==', uuid]] as const;

/**
 * The operations that make the port's QoS rows on `switchName` exactly `desired` (empty removes
 * them): rows are matched by direction, changed in place, added to the switch's `qos_rules`, and
 * removed from the switch that holds them (OVN drops an unreferenced QoS row).
 */
export function planPortQos(nb: NbView, portId: string, switchName: string, desired: readonly QosRowSpec[]): Plan {
  const actual = nb.portQos(portId);
  const ops: Operation[] = [];
  const kept = new Set<string>();
  for (const row of desired) {
    const have = actual.find((a) => a.direction === row.direction && !kept.has(a._uuid));
    if (have) {
      kept.add(have._uuid);
      const changed = Object.fromEntries(
        Object.entries(row).filter(
          ([column, value]) => !valuesEqual(value as RowValue, have[column as keyof typeof have] as RowValue),
        ),
      );
      if (Object.keys(changed).length > 0)
        ops.push({ op: 'update', table: 'QoS', where: [...byUuid(have._uuid)], row: changed });
      continue;
    }
    const name = `qos_${portId.replace(/[^A-Za-z0-9_]/g, '_')}_${row.direction === 'from-lport' ? 'egress' : 'ingress'}`;
    ops.push(
      { op: 'insert', table: 'QoS', row, uuidName: name },
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['name', '==', switchName]],
        mutations: [['qos_rules', 'insert', [namedUuid(name)]]],
      },
    );
  }
  for (const row of actual) {
    if (kept.has(row._uuid)) continue;
    const container = nb.switchOfQos(row._uuid);
    if (container)
      ops.push({
        op: 'mutate',
        table: 'Logical_Switch',
        where: [...byUuid(container._uuid)],
        mutations: [['qos_rules', 'delete', [row._uuid]]],
      });
  }
  const outcome: Outcome =
    ops.length === 0 ? 'unchanged' : desired.length === 0 ? 'deleted' : actual.length === 0 ? 'created' : 'updated';
  return { ops, outcome };
}

/** A port's plan with its QoS rows' plan after it: the port's outcome, unless only QoS changed. */
export function withQos(port: Plan, qos: Plan): Plan {
  if (port.superseded) return port;
  const outcome: Outcome = port.outcome !== 'unchanged' ? port.outcome : qos.ops.length > 0 ? 'updated' : 'unchanged';
  return { ops: [...port.ops, ...qos.ops], outcome };
}

/**
 * One security group rule → one OVN ACL on its group's Port_Group, as `neutron/common/ovn/acl.py`
 * builds it: direction, ethertype, remote prefix, remote group (the address sets northd keeps per
 * Port_Group), then protocol and ports, in that order, so the match strings equal Neutron's.
 */
import type { SecurityGroupRuleState } from '../host.js';

type StringMap = Record<string, string>;

export interface AclSpec {
  readonly direction: 'from-lport' | 'to-lport';
  readonly priority: number;
  readonly match: string;
  readonly action: string;
  readonly log: boolean;
  readonly name: string | null;
  readonly severity: string | null;
  readonly meter: string | null;
  readonly external_ids: StringMap;
}

/** `ACL_PRIORITY_ALLOW`. */
export const ALLOW_PRIORITY = 1002;

const TRANSPORT_NAMES: Readonly<Record<number, string>> = { 6: 'tcp', 17: 'udp', 132: 'sctp' };
const ICMP_NUMBERS = new Set([1, 58]);

/** Address set northd makes for each Port_Group's member addresses (`ovn_pg_addrset_name`). */
export const portGroupAddressSet = (securityGroupId: string, ipVersion: 'ip4' | 'ip6'): string =>
  `pg_${securityGroupId.replace(/-/g, '_')}_${ipVersion}`;

function protocolMatch(rule: SecurityGroupRuleState, icmp: 'icmp4' | 'icmp6'): string {
  const number = rule.protocol_number;
  if (number === null) return '';
  const min = rule.port_range_min;
  const max = rule.port_range_max;
  const transport = TRANSPORT_NAMES[number];
  if (transport) {
    if (min !== null && min === max) return ` && ${transport} && ${transport}.dst == ${min}`;
    let match = ` && ${transport}`;
    if (min !== null) match += ` && ${transport}.dst >= ${min}`;
    if (max !== null) match += ` && ${transport}.dst <= ${max}`;
    return match;
  }
  if (ICMP_NUMBERS.has(number)) {
    let match = ` && ${icmp}`;
    if (min !== null) match += ` && ${icmp}.type == ${min}`;
    if (max !== null) match += ` && ${icmp}.code == ${max}`;
    return match;
  }
  return ` && ip.proto == ${number}`;
}

/** `_add_sg_rule_acl_for_port_group`. */
export function acl(portGroup: string, stateful: boolean, rule: SecurityGroupRuleState): AclSpec {
  const ingress = rule.direction === 'ingress';
  const ip = rule.ethertype === 'IPv4' ? 'ip4' : 'ip6';
  const icmp = rule.ethertype === 'IPv4' ? 'icmp4' : 'icmp6';
  const side = ingress ? 'src' : 'dst';
  let match = `${ingress ? 'outport' : 'inport'} == @${portGroup} && ${ip}`;
  if (rule.normalized_cidr) match += ` && ${ip}.${side} == ${rule.normalized_cidr}`;
  if (rule.remote_group_id) match += ` && ${ip}.${side} == $${portGroupAddressSet(rule.remote_group_id, ip)}`;
  match += protocolMatch(rule, icmp);
  return {
    direction: ingress ? 'to-lport' : 'from-lport',
    priority: ALLOW_PRIORITY,
    match,
    action: stateful ? 'allow-related' : 'allow-stateless',
    log: false,
    name: null,
    severity: null,
    meter: null,
    external_ids: { 'neutron:security_group_rule_id': rule.id },
  };
}

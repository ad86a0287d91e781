/**
 * What a security group rule may say, as Neutron's `securitygroup` extension and
 * `SecurityGroupDbMixin` decide it: the converters of the rule attributes (protocol, ethertype,
 * ports, remote prefix), the canonicalisation and checks that follow them (ICMPv6 names, the full
 * port range, ports per protocol, prefix against ethertype, one remote only), and the key that
 * makes two rules duplicates.
 *
 * Pure functions on prepared rule bodies. Existence and visibility checks need the database and
 * belong to the rule service.
 */
import type { Converter } from '../converters.js';
import {
  InvalidCIDR,
  SecurityGroupEthertypeConflictWithProtocol,
  SecurityGroupInvalidIcmpValue,
  SecurityGroupInvalidPortRange,
  SecurityGroupInvalidPortValue,
  SecurityGroupInvalidProtocolForPort,
  SecurityGroupMissingIcmpType,
  SecurityGroupMultipleRemoteEntites,
  SecurityGroupProtocolRequiredWithPorts,
  SecurityGroupRuleInvalidEtherType,
  SecurityGroupRuleInvalidProtocol,
  SecurityGroupRuleParameterConflict,
  pythonRepr,
} from '../errors.js';
import { bitsOf, canonicalNetwork, formatNetwork, parseIp, parseIpv4, type IpNetwork } from '../ip.js';
import type { Body } from '../resource.js';
import { isTruthy, pythonInt } from '../validators.js';

/** neutron-lib's IP_PROTOCOL_MAP, in its order (the error message lists the names in this order). */
const PROTOCOL_NUMBERS: Readonly<Record<string, number>> = {
  ah: 51,
  dccp: 33,
  egp: 8,
  esp: 50,
  gre: 47,
  hopopt: 0,
  icmp: 1,
  igmp: 2,
  ip: 0,
  ipip: 4,
  'ipv6-encap': 41,
  'ipv6-frag': 44,
  'ipv6-icmp': 58,
  icmpv6: 58,
  'ipv6-nonxt': 59,
  'ipv6-opts': 60,
  'ipv6-route': 43,
  ospf: 89,
  pgm: 113,
  rsvp: 46,
  sctp: 132,
  tcp: 6,
  udp: 17,
  udplite: 136,
  vrrp: 112,
};

/** IP_PROTOCOL_NUM_TO_NAME_MAP: the last name of a number wins (`0` is `ip`), `icmpv6` excluded. */
const PROTOCOL_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries(PROTOCOL_NUMBERS)
    .filter(([name]) => name !== 'icmpv6')
    .map(([name, n]) => [String(n), name]),
);

const SUPPORTED_PROTOCOLS = `(None, 'any', ${Object.keys(PROTOCOL_NUMBERS)
  .map((name) => pythonRepr(name))
  .join(', ')})`;

export const ETHERTYPES = ['IPv4', 'IPv6'] as const;

/** Protocols whose ports are real ports; the message names them in this order. */
const PORT_PROTOCOL_NUMBERS = [33, 132, 6, 17, 136];
const PORT_PROTOCOLS_TEXT = 'DCCP, SCTP, TCP, UDP, UDPLITE';
const ICMP_NUMBERS = [1, 58];

/** Protocols that only exist over IPv6, as stored (names and numbers). */
const IPV6_ONLY_PROTOCOLS = new Set([
  'ipv6-encap',
  'ipv6-frag',
  'ipv6-icmp',
  'icmpv6',
  'ipv6-nonxt',
  'ipv6-opts',
  'ipv6-route',
  '41',
  '44',
  '58',
  '59',
  '60',
  '43',
]);

/** Protocols that are IPv6 ICMP when the rule is IPv6 (`IPV6_ICMP_LEGACY_PROTO_LIST`). */
const LEGACY_IPV6_ICMP_NAMES = ['icmp', 'icmpv6'];

/**
 * `convert_protocol`: null or `any` mean every protocol; a number 0..255 is kept as its decimal
 * text; a name is lower-cased. Neutron answers 500 to spellings like `"006"`, `" 6"`, `true` or
 * `1.5` (they reach the database unconverted); octonet refuses them like any unknown protocol.
 */
export const convertProtocol: Converter = (value) => {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 255) return String(value);
  if (typeof value === 'string') {
    if (/^(0|[1-9]\d{0,2})$/.test(value) && Number(value) <= 255) return value;
    const name = value.toLowerCase();
    if (name === 'any') return null;
    if (name in PROTOCOL_NUMBERS) return name;
  }
  throw SecurityGroupRuleInvalidProtocol({ protocol: value, values: SUPPORTED_PROTOCOLS });
};

/** `convert_ethertype_to_case_insensitive`: `ipv4` → `IPv4`. */
export const convertEthertype: Converter = (value) => {
  const match = typeof value === 'string' ? ETHERTYPES.find((e) => e.toLowerCase() === value.toLowerCase()) : undefined;
  if (!match) throw SecurityGroupRuleInvalidEtherType({ ethertype: value, values: pythonRepr([...ETHERTYPES]) });
  return match;
};

/** `convert_validate_port_value`: Python's `int()` of the value, which must be 0..65535. */
export const convertPortValue: Converter = (value) => {
  if (value === null) return null;
  const port = pythonInt(value);
  if (port === undefined || port < 0 || port > 65535) throw SecurityGroupInvalidPortValue({ port: value });
  return port;
};

/** The prefix length of a dotted IPv4 netmask (`255.255.0.0` → 16), or undefined when it is not one. */
function netmaskLength(text: string): number | undefined {
  const mask = parseIpv4(text);
  if (mask === null) return undefined;
  const length = mask.toString(2).replace(/0+$/, '').length;
  const contiguous = (((1n << BigInt(length)) - 1n) << BigInt(32 - length)) & 0xffffffffn;
  return mask === contiguous ? length : undefined;
}

/** netaddr's `IPNetwork` on an address, `address/length` or IPv4 `address/netmask`. */
function parseIpPrefix(text: string): IpNetwork | null {
  const [address, suffix, extra] = text.split('/');
  const ip = parseIp(address);
  if (!ip || extra !== undefined) return null;
  let prefixLength: number | undefined = bitsOf(ip.version);
  if (suffix !== undefined) {
    if (/^\d{1,3}$/.test(suffix)) prefixLength = Number(suffix);
    else prefixLength = ip.version === 4 ? netmaskLength(suffix) : undefined;
  }
  if (prefixLength === undefined || prefixLength > bitsOf(ip.version)) return null;
  return { version: ip.version, ip: ip.value, prefixLength };
}

/** `convert_ip_prefix_to_cidr`: empty means none; a bare address gets a host prefix; host bits stay. */
export const convertIpPrefixToCidr: Converter = (value) => {
  if (!isTruthy(value)) return null;
  const net = typeof value === 'string' ? parseIpPrefix(value) : null;
  if (!net) throw InvalidCIDR({ input: value });
  return formatNetwork(net);
};

/** `normalized_cidr`: the network of the prefix (`10.0.0.5/24` → `10.0.0.0/24`). */
export function normalizedCidr(prefix: string | null): string | null {
  const net = prefix ? parseIpPrefix(prefix) : null;
  return net ? formatNetwork(canonicalNetwork(net)) : null;
}

/** `_get_ip_proto_number`: the protocol number of a stored protocol (name or number). */
export function protocolNumber(protocol: string): number {
  return PROTOCOL_NUMBERS[protocol] ?? Number(protocol);
}

function validatePortRange(rule: Body): void {
  const min = rule.port_range_min as number | null;
  const max = rule.port_range_max as number | null;
  if (min === null && max === null) return;
  if (!rule.protocol) throw SecurityGroupProtocolRequiredWithPorts({});
  const protocol = protocolNumber(String(rule.protocol));
  if (PORT_PROTOCOL_NUMBERS.includes(protocol)) {
    if (min === 0 || max === 0) throw SecurityGroupInvalidPortValue({ port: 0 });
    if (min === null || max === null || min > max) throw SecurityGroupInvalidPortRange({});
  } else if (ICMP_NUMBERS.includes(protocol)) {
    for (const [value, attr, field] of [
      [min, 'port_range_min', 'type'],
      [max, 'port_range_max', 'code'],
    ] as const) {
      if (value !== null && (value < 0 || value > 255)) throw SecurityGroupInvalidIcmpValue({ field, attr, value });
    }
    if (min === null) throw SecurityGroupMissingIcmpType({ value: max });
  } else {
    throw SecurityGroupInvalidProtocolForPort({ protocol, valid_port_protocols: PORT_PROTOCOLS_TEXT });
  }
}

/**
 * `_validate_base_security_group_rule_attributes`, in Neutron's order, on a prepared rule body,
 * which it canonicalises in place: IPv6 ICMP becomes `ipv6-icmp`/`58`, the full port range
 * 1-65535 becomes no range.
 */
export function canonicaliseRule(rule: Body): void {
  if (rule.ethertype === 'IPv6') {
    if (typeof rule.protocol === 'string' && LEGACY_IPV6_ICMP_NAMES.includes(rule.protocol))
      rule.protocol = 'ipv6-icmp';
    else if (rule.protocol === '1') rule.protocol = '58';
  }
  if (rule.port_range_min === 1 && rule.port_range_max === 65535) {
    rule.port_range_min = null;
    rule.port_range_max = null;
  }
  validatePortRange(rule);
  const prefix = rule.remote_ip_prefix;
  if (typeof prefix === 'string' && prefix && rule.ethertype !== `IPv${parseIpPrefix(prefix)!.version}`) {
    throw SecurityGroupRuleParameterConflict({ ethertype: rule.ethertype, cidr: prefix });
  }
  if (rule.ethertype === 'IPv4' && typeof rule.protocol === 'string' && IPV6_ONLY_PROTOCOLS.has(rule.protocol)) {
    throw SecurityGroupEthertypeConflictWithProtocol({ ethertype: rule.ethertype, protocol: rule.protocol });
  }
  const remotes = [rule.remote_ip_prefix, rule.remote_group_id, rule.remote_address_group_id];
  if (remotes.filter(isTruthy).length > 1) throw SecurityGroupMultipleRemoteEntites({});
}

/** `_get_ip_proto_name_and_num`: `tcp` and `6` are the same protocol; so are `ip` and `0`. */
function protocolIdentity(protocol: string, ethertype: string): string {
  let p = protocol;
  if (ethertype === 'IPv6') {
    if (LEGACY_IPV6_ICMP_NAMES.includes(p)) p = 'ipv6-icmp';
    else if (p === '1') p = '58';
  }
  if (p in PROTOCOL_NUMBERS) return `${p}/${PROTOCOL_NUMBERS[p]}`;
  const name = PROTOCOL_NAMES.get(p);
  return name ? `${name}/${p}` : `${p}/${p}`;
}

/** The fields `_rule_to_key` compares, in its order; `description` is not one of them. */
const RULE_KEY_FIELDS = [
  'direction',
  'ethertype',
  'port_range_max',
  'port_range_min',
  'protocol',
  'remote_group_id',
  'remote_ip_prefix',
  'security_group_id',
] as const;

/** A rule body or a stored rule. */
export type RuleKeyFields = { readonly [K in (typeof RULE_KEY_FIELDS)[number]]?: unknown };

const ANY_PREFIXES = new Set(['0.0.0.0/0', '::/0']);

/**
 * `_rule_to_key`: equal keys mean duplicate rules. No prefix equals `0.0.0.0/0` and `::/0`;
 * protocols compare by name and number; everything else as text.
 */
export function ruleKey(rule: RuleKeyFields): string {
  // Only `IPv6` matters to protocolIdentity; an absent ethertype compares as no match.
  const ethertype = typeof rule.ethertype === 'string' ? rule.ethertype : '';
  const part = (key: keyof RuleKeyFields): string => {
    const value = rule[key];
    if (value === null || value === undefined) return '+';
    if (key === 'remote_ip_prefix' && typeof value === 'string' && ANY_PREFIXES.has(value)) return '+';
    if (key === 'protocol') return protocolIdentity(String(value), ethertype);
    return String(value);
  };
  return JSON.stringify(RULE_KEY_FIELDS.map(part));
}

/**
 * Neutron `extra_dhcp_opts` names (and option numbers) → OVN DHCP option names, and how OVN wants
 * each value written: `SUPPORTED_DHCP_OPTS_MAPPING`, `OVN_STR_TYPE_DHCP_OPTS` and
 * `OVN_MAP_TYPE_DHCP_OPTS` of `neutron/common/ovn/constants.py`.
 */

const V4: Readonly<Record<string, string>> = {
  'arp-timeout': 'arp_cache_timeout',
  'tcp-keepalive': 'tcp_keepalive_interval',
  netmask: 'netmask',
  router: 'router',
  'dns-server': 'dns_server',
  'log-server': 'log_server',
  'lpr-server': 'lpr_server',
  'domain-name': 'domain_name',
  'domain-search': 'domain_search_list',
  'swap-server': 'swap_server',
  'policy-filter': 'policy_filter',
  'router-solicitation': 'router_solicitation',
  'nis-server': 'nis_server',
  'ntp-server': 'ntp_server',
  'server-id': 'server_id',
  'tftp-server': 'tftp_server',
  'classless-static-route': 'classless_static_route',
  'ms-classless-static-route': 'ms_classless_static_route',
  'ip-forward-enable': 'ip_forward_enable',
  'router-discovery': 'router_discovery',
  'ethernet-encap': 'ethernet_encap',
  'default-ttl': 'default_ttl',
  'tcp-ttl': 'tcp_ttl',
  mtu: 'mtu',
  'lease-time': 'lease_time',
  T1: 'T1',
  T2: 'T2',
  'bootfile-name': 'bootfile_name',
  'bootfile-name-alt': 'bootfile_name_alt',
  wpad: 'wpad',
  'path-prefix': 'path_prefix',
  'tftp-server-address': 'tftp_server_address',
  'server-ip-address': 'next_server',
  '1': 'netmask',
  '3': 'router',
  '6': 'dns_server',
  '7': 'log_server',
  '9': 'lpr_server',
  '15': 'domain_name',
  '16': 'swap_server',
  '21': 'policy_filter',
  '32': 'router_solicitation',
  '35': 'arp_cache_timeout',
  '38': 'tcp_keepalive_interval',
  '41': 'nis_server',
  '42': 'ntp_server',
  '54': 'server_id',
  '66': 'tftp_server',
  '121': 'classless_static_route',
  '249': 'ms_classless_static_route',
  '19': 'ip_forward_enable',
  '31': 'router_discovery',
  '36': 'ethernet_encap',
  '23': 'default_ttl',
  '37': 'tcp_ttl',
  '26': 'mtu',
  '51': 'lease_time',
  '58': 'T1',
  '59': 'T2',
  '67': 'bootfile_name',
  '119': 'domain_search_list',
  '252': 'wpad',
  '210': 'path_prefix',
  '150': 'tftp_server_address',
  '255': 'next_server',
};

const V6: Readonly<Record<string, string>> = {
  'bootfile-name': 'bootfile_name',
  'server-id': 'server_id',
  'dns-server': 'dns_server',
  'domain-search': 'domain_search',
  'ia-addr': 'ia_addr',
  '2': 'server_id',
  '5': 'ia_addr',
  '24': 'domain_search',
  '23': 'dns_server',
  '59': 'bootfile_name',
};

const STRING_OPTIONS = new Set([
  'domain_name',
  'domain_search_list',
  'bootfile_name',
  'bootfile_name_alt',
  'path_prefix',
  'wpad',
  'tftp_server',
]);

/** The OVN name of a Neutron DHCP option, or undefined when OVN does not support it. */
export function dhcpOptionName(version: 4 | 6, neutronName: string): string | undefined {
  const table = version === 4 ? V4 : V6;
  return Object.hasOwn(table, neutronName) ? table[neutronName] : undefined;
}

/** String-typed options are written in double quotes (else OVN reads them as a symbol). */
export const isStringOption = (name: string): boolean => STRING_OPTIONS.has(name);

/** Map-typed options are written in braces. */
export const isMapOption = (name: string): boolean => name === 'classless_static_route';

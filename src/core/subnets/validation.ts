/**
 * Neutron's subnet checks (`_validate_subnet` and friends in db_base_plugin_v2): IP versions of
 * every address, DHCP-compatible prefixes, gateway validity, DNS servers and host routes limits,
 * and the IPv6 address-mode rules. Pure functions over a merged subnet request.
 */
import type { NetworkConfig } from '../../config/config.js';
import {
  DNSNameServersExhausted,
  HostRoutesExhausted,
  InvalidInput,
  NetworkMTUSubnetConflict,
  pythonRepr,
} from '../errors.js';
import { gatewayInvalidInSubnet, isAutoAddressSubnet } from '../ipam.js';
import {
  networkAddress,
  parseIp,
  parseNetwork,
  formatNetwork,
  isLoopback,
  isMulticast,
  type IpNetwork,
} from '../ip.js';

export const IPV4_MIN_MTU = 68;
export const IPV6_MIN_MTU = 1280;

/**
 * What is validated: on create the whole request, on update the request's attributes with the
 * stored subnet's id, cidr and ip_version (Neutron checks only what an update sends).
 */
export interface SubnetRequest {
  id?: string;
  ip_version: number;
  cidr: string;
  gateway_ip?: string | null;
  enable_dhcp?: boolean;
  dns_nameservers?: string[];
  host_routes?: { destination: string; nexthop: string }[];
  ipv6_ra_mode?: string | null;
  ipv6_address_mode?: string | null;
}

const invalid = (message: string) => InvalidInput({ error_message: message });

function versionOf(text: string): number | undefined {
  return (parseNetwork(text, true) ?? undefined)?.version;
}

/** `_validate_ip_version`: `cidr '10.0.0.0/24' does not match the ip_version '6'`. */
export function checkIpVersion(ipVersion: number, address: string, name: string): void {
  if (versionOf(address) !== ipVersion) {
    throw invalid(`${name} '${address}' does not match the ip_version '${ipVersion}'`);
  }
}

/**
 * `_validate_subnet`. `current` is the stored subnet on update (DHCP and IPv6 rules differ then);
 * on create it is undefined. Only attributes present in `s` are checked.
 */
export function validateSubnet(
  s: SubnetRequest,
  limits: Pick<NetworkConfig, 'max_dns_nameservers' | 'max_subnet_host_routes'>,
  current?: { enable_dhcp: boolean; ipv6_ra_mode: string | null; ipv6_address_mode: string | null },
): void {
  const ipVersion = s.ip_version;
  checkIpVersion(ipVersion, s.cidr, 'cidr');
  const net = parseNetwork(s.cidr)!;
  const dhcpWasEnabled = current?.enable_dhcp ?? false;
  if (ipVersion === 6 && networkAddress(net) === 0n) throw invalid("IPv6 subnet '::' is not supported");
  if (s.enable_dhcp && !dhcpWasEnabled) checkDhcpCompatible(net);

  if (s.gateway_ip) {
    checkIpVersion(ipVersion, s.gateway_ip, 'gateway_ip');
    if (gatewayInvalidInSubnet(net, parseIp(s.gateway_ip)!.value)) throw invalid('Gateway is not valid on subnet');
  }
  if (s.dns_nameservers) {
    if (s.dns_nameservers.length > limits.max_dns_nameservers) {
      throw DNSNameServersExhausted({ subnet_id: s.id ?? 'new subnet', quota: limits.max_dns_nameservers });
    }
    for (const dns of s.dns_nameservers) checkIpVersion(ipVersion, dns, 'dns_nameserver');
  }
  if (s.host_routes) {
    if (s.host_routes.length > limits.max_subnet_host_routes) {
      throw HostRoutesExhausted({ subnet_id: s.id ?? 'new subnet', quota: limits.max_subnet_host_routes });
    }
    for (const route of s.host_routes) {
      if (!parseNetwork(route.destination, true) || !parseIp(route.nexthop)) {
        throw invalid(`Invalid route: ${pythonRepr(route)}`);
      }
      checkIpVersion(ipVersion, route.nexthop, 'nexthop');
      checkIpVersion(ipVersion, route.destination, 'destination');
    }
  }
  const raSet = s.ipv6_ra_mode !== undefined && s.ipv6_ra_mode !== null;
  const addressSet = s.ipv6_address_mode !== undefined && s.ipv6_address_mode !== null;
  if (ipVersion === 4) {
    if (raSet) throw invalid('ipv6_ra_mode is not valid when ip_version is 4');
    if (addressSet) throw invalid('ipv6_address_mode is not valid when ip_version is 4');
    return;
  }
  if (current) {
    // On update only one rule applies: DHCP cannot be turned off under IPv6 modes.
    if (s.enable_dhcp === false && (raSet || addressSet || current.ipv6_ra_mode || current.ipv6_address_mode)) {
      throw invalid('Cannot disable enable_dhcp with ipv6 attributes set');
    }
    return;
  }
  if ((raSet || addressSet) && !s.enable_dhcp) {
    throw invalid('ipv6_ra_mode or ipv6_address_mode cannot be set when enable_dhcp is set to False');
  }
  if (raSet && addressSet && s.ipv6_ra_mode !== s.ipv6_address_mode) {
    throw invalid(
      `ipv6_ra_mode set to '${s.ipv6_ra_mode}' with ipv6_address_mode set to '${s.ipv6_address_mode}' is not valid. If both attributes are set, they must be the same value`,
    );
  }
  const auto = isAutoAddressSubnet({
    version: 6,
    ipv6AddressMode: s.ipv6_address_mode ?? null,
    ipv6RaMode: s.ipv6_ra_mode ?? null,
  });
  if (auto && net.prefixLength !== 64) {
    throw invalid(
      `Invalid CIDR ${s.cidr} for IPv6 address mode. OpenStack uses the EUI-64 address format, which requires the prefix to be /64`,
    );
  }
}

function checkDhcpCompatible(net: IpNetwork): void {
  if ((net.version === 4 && net.prefixLength > 30) || (net.version === 6 && net.prefixLength > 126)) {
    throw invalid('Subnet has a prefix length that is incompatible with DHCP service enabled');
  }
  if (isMulticast(net.version, networkAddress(net)))
    throw invalid('Multicast IP subnet is not supported if enable_dhcp is True');
  if (isLoopback(net.version, networkAddress(net)))
    throw invalid('Loopback IP subnet is not supported if enable_dhcp is True');
  if (net.version === 4 && networkAddress(net) === 0n) {
    throw invalid("First IP '0.0.0.0' of network is not supported if enable_dhcp is True.");
  }
}

/** `_validate_subnet_network_mtu`: an IPv6 subnet needs 1280 bytes, any subnet 68. */
export function checkNetworkMtuForSubnet(networkId: string, mtu: number, ipVersion: number): void {
  if (!mtu || mtu >= IPV6_MIN_MTU) return;
  if (mtu < IPV4_MIN_MTU) throw NetworkMTUSubnetConflict({ net_id: networkId, mtu: IPV4_MIN_MTU });
  if (ipVersion === 6) throw NetworkMTUSubnetConflict({ net_id: networkId, mtu: IPV6_MIN_MTU });
}

export function canonicalCidr(cidr: string): string {
  const net = parseNetwork(cidr, true)!;
  return formatNetwork({ ...net, ip: networkAddress(net) });
}

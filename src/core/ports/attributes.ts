/**
 * The port attribute map: neutron-lib's `port` definition merged with allowed-address-pairs,
 * extra_dhcp_opt, ip_allocation, binding, port-security, port-mac-address-regenerate,
 * dns-integration, dns-domain-ports, security-group and the standard attributes, in Neutron's
 * order. Two validators depend on configuration (the address-pair limit, the DNS domain), so the
 * spec is built from it.
 */
import type { NetworkConfig } from '../../config/config.js';
import { NOT_SPECIFIED, type ResourceSpec } from '../attributes.js';
import {
  convertNoneToEmptyList,
  convertToBoolean,
  convertToInt,
  convertToLowercase,
  convertToSanitizedMacAddress,
  convertKvpListToDict,
} from '../converters.js';
import { validateDnsDomainName, validateDnsHostName } from '../dns.js';
import {
  AllowedAddressPairExhausted,
  AllowedAddressPairsMissingIP,
  DuplicateAddressPairInRequest,
  HTTPBadRequest,
} from '../errors.js';
import { formatNetwork, isMulticast, networksOverlap, parseIp, parseNetwork } from '../ip.js';
import { DESCRIPTION, ID, NAME, PROJECT, STANDARD_TAIL } from '../standard-attributes.js';
import { QOS_NETWORK_POLICY_ID, QOS_POLICY_ID } from '../qos/attributes.js';
import {
  isPlainObject,
  orNone,
  parseMac,
  validateAnyKeySpecsOrNone,
  validateDict,
  validateFixedIps,
  validateIpAddress,
  validateListOfUniqueStrings,
  validateMacAddress,
  validateOnelineNotEmptyString,
  validateString,
  validateSubnet,
  validateUuid,
  validateUuidList,
  validateValues,
  type Validator,
} from '../validators.js';

export const VNIC_TYPES = [
  'normal',
  'direct',
  'macvtap',
  'baremetal',
  'direct-physical',
  'virtio-forwarder',
  'smart-nic',
  'vdpa',
  'accelerator-direct',
  'accelerator-direct-physical',
  'remote-managed',
] as const;

/** `type:allowed_address_pairs` (neutron-lib validators/allowedaddresspairs.py), raising as it does. */
export const validateAllowedAddressPairs =
  (maxPairs: number): Validator =>
  (data) => {
    if (!Array.isArray(data)) throw HTTPBadRequest('Allowed address pairs must be a list.');
    if (data.length > maxPairs) throw AllowedAddressPairExhausted({ quota: maxPairs });
    const seen = new Set<string>();
    for (const pair of data) {
      const msg = validateDict()(pair);
      if (msg) return msg;
      const p = pair as Record<string, unknown>;
      if ('mac_address' in p) {
        const macMsg = validateMacAddress(p.mac_address);
        if (macMsg) throw HTTPBadRequest(macMsg);
      }
      if (!('ip_address' in p)) throw AllowedAddressPairsMissingIP({});
      const key = JSON.stringify([p.mac_address ?? null, p.ip_address]);
      if (seen.has(key))
        throw DuplicateAddressPairInRequest({ mac_address: p.mac_address ?? null, ip_address: p.ip_address });
      seen.add(key);
      const extra = Object.keys(p).filter((k) => k !== 'mac_address' && k !== 'ip_address');
      if (extra.length) throw HTTPBadRequest(`Unrecognized attribute(s) '${extra.join(', ')}'`);
      const ip = p.ip_address;
      const isCidr = typeof ip === 'string' && ip.includes('/');
      const ipMsg = isCidr ? validateSubnet(ip) : validateIpAddress(ip);
      if (ipMsg) throw HTTPBadRequest(ipMsg);
      if (isCidr) {
        const net = parseNetwork(ip)!;
        const isAll = net.prefixLength === 0 && net.version === 4;
        // Any overlap counts, so a broad prefix such as 128.0.0.0/1 or ::/0 is refused too.
        const multicast = parseNetwork(net.version === 4 ? '224.0.0.0/4' : 'ff00::/8')!;
        if (!isAll && networksOverlap(net, multicast)) {
          throw HTTPBadRequest(
            `Subnet ${formatNetwork(net)} overlaps with multicast range ${formatNetwork(multicast)}, which is not supported.`,
          );
        }
      } else if (typeof ip === 'string' && isMulticast(parseIp(ip)!.version, parseIp(ip)!.value)) {
        // `ip` passed validateIpAddress above, so it is a string; the check only narrows the type.
        throw HTTPBadRequest(`IP ${ip} is a multicast address, which is not supported.`);
      }
      // A present MAC passed validateMacAddress above, which refuses anything but a string.
      const rawMac = p.mac_address;
      if (typeof rawMac === 'string') {
        const mac = parseMac(rawMac)!;
        if (parseInt(mac.slice(0, 2), 16) & 1) {
          throw HTTPBadRequest(`MAC address ${rawMac} is a multicast address, which is not supported.`);
        }
      }
    }
    return undefined;
  };

const ipVersionSpec = { convert: convertToInt, validate: validateValues([4, 6]) };

/** Two shapes, as neutron-lib has them: `router`/`classless-static-route` may carry an empty value. */
const validateExtraDhcpOpts = validateAnyKeySpecsOrNone([
  {
    opt_name: { required: true, validate: validateValues(['router', 'classless-static-route']) },
    opt_value: { required: true, validate: orNone(validateString(255)) },
    ip_version: ipVersionSpec,
  },
  {
    opt_name: { required: true, validate: validateOnelineNotEmptyString(64) },
    opt_value: { required: true, validate: orNone(validateOnelineNotEmptyString(255)) },
    ip_version: ipVersionSpec,
  },
]);

const validateBindingProfile: Validator = (data) =>
  data === null || isPlainObject(data) ? undefined : `'${String(data)}' is not a dictionary`;

export function createPortSpec(config: NetworkConfig): ResourceSpec {
  return {
    name: 'port',
    collection: 'ports',
    path: 'ports',
    allowBulk: true,
    attributes: {
      id: ID,
      name: NAME,
      network_id: { post: true, put: false, validate: validateUuid, visible: true, filter: true, sort: true },
      admin_state_up: {
        post: true,
        put: true,
        default: true,
        convert: convertToBoolean,
        visible: true,
        filter: true,
        sort: true,
      },
      mac_address: {
        post: true,
        put: true,
        default: NOT_SPECIFIED,
        convert: convertToSanitizedMacAddress,
        validate: orNone(validateMacAddress),
        visible: true,
        filter: true,
        sort: true,
        enforcePolicy: true,
      },
      fixed_ips: {
        post: true,
        put: true,
        default: NOT_SPECIFIED,
        convertList: convertKvpListToDict,
        validate: validateFixedIps,
        visible: true,
        filter: true,
        enforcePolicy: true,
        policySubKeys: true,
      },
      device_id: {
        post: true,
        put: true,
        default: '',
        validate: validateString(255),
        visible: true,
        filter: true,
        sort: true,
        enforcePolicy: true,
      },
      device_owner: {
        post: true,
        put: true,
        default: '',
        validate: validateString(255),
        visible: true,
        filter: true,
        sort: true,
        enforcePolicy: true,
      },
      tenant_id: PROJECT,
      status: { post: false, put: false, visible: true, filter: true, sort: true },
      allowed_address_pairs: {
        post: true,
        put: true,
        default: NOT_SPECIFIED,
        convert: convertNoneToEmptyList,
        validate: validateAllowedAddressPairs(config.max_allowed_address_pair),
        visible: true,
        enforcePolicy: true,
        policySubKeys: true,
      },
      extra_dhcp_opts: { post: true, put: true, default: null, validate: validateExtraDhcpOpts, visible: true },
      ip_allocation: { post: false, put: false, visible: true, filter: true, sort: true },
      'binding:vif_type': { post: false, put: false, default: NOT_SPECIFIED, visible: true, enforcePolicy: true },
      'binding:vif_details': { post: false, put: false, default: NOT_SPECIFIED, visible: true, enforcePolicy: true },
      'binding:vnic_type': {
        post: true,
        put: true,
        default: 'normal',
        validate: validateValues(VNIC_TYPES),
        visible: true,
        enforcePolicy: true,
      },
      'binding:host_id': {
        post: true,
        put: true,
        default: NOT_SPECIFIED,
        validate: orNone(validateString(255)),
        visible: true,
        filter: true,
        enforcePolicy: true,
      },
      'binding:profile': {
        post: true,
        put: true,
        default: NOT_SPECIFIED,
        validate: validateBindingProfile,
        visible: true,
        enforcePolicy: true,
      },
      port_security_enabled: {
        post: true,
        put: true,
        default: NOT_SPECIFIED,
        convert: convertToBoolean,
        visible: true,
        enforcePolicy: true,
      },
      qos_policy_id: QOS_POLICY_ID,
      qos_network_policy_id: QOS_NETWORK_POLICY_ID,
      ...STANDARD_TAIL,
      tags: {
        post: true,
        put: false,
        default: [],
        validate: validateListOfUniqueStrings(255),
        visible: true,
        filter: true,
      },
      dns_name: {
        post: true,
        put: true,
        default: '',
        convert: convertToLowercase,
        validate: validateDnsHostName(config.dns_domain),
        visible: true,
      },
      dns_assignment: { post: false, put: false, visible: true },
      dns_domain: {
        post: true,
        put: true,
        default: '',
        convert: convertToLowercase,
        validate: validateDnsDomainName(),
        visible: true,
      },
      description: DESCRIPTION,
      security_groups: {
        post: true,
        put: true,
        default: NOT_SPECIFIED,
        convert: convertNoneToEmptyList,
        validate: validateUuidList,
        visible: true,
        filter: true,
      },
      project_id: PROJECT,
    },
  };
}

/**
 * The floating IP attribute map: neutron-lib's `l3` floatingips merged with fip-port-details,
 * dns-integration and the standard attributes, in Neutron's merge order. `subnet_id` is input
 * only: it picks the external subnet the address comes from.
 */
import type { ResourceSpec } from '../attributes.js';
import { convertToLowercase } from '../converters.js';
import { validateDnsDomainName, validateDnsHostName } from '../dns.js';
import { DESCRIPTION, ID, PROJECT, STANDARD_TAIL } from '../standard-attributes.js';
import { validateIpAddressOrNone, validateUuid, validateUuidOrNone } from '../validators.js';

export function createFloatingIpSpec(dnsDomain: string): ResourceSpec {
  return {
    name: 'floatingip',
    collection: 'floatingips',
    path: 'floatingips',
    allowBulk: true,
    attributes: {
      id: ID,
      floating_ip_address: {
        post: true,
        put: false,
        default: null,
        validate: validateIpAddressOrNone,
        visible: true,
        filter: true,
        sort: true,
        enforcePolicy: true,
      },
      subnet_id: { post: true, put: false, default: null, validate: validateUuidOrNone, visible: false },
      floating_network_id: { post: true, put: false, validate: validateUuid, visible: true, filter: true, sort: true },
      router_id: { post: false, put: false, visible: true, filter: true, sort: true },
      port_id: { post: true, put: true, default: null, validate: validateUuidOrNone, visible: true, filter: true },
      fixed_ip_address: {
        post: true,
        put: true,
        default: null,
        validate: validateIpAddressOrNone,
        visible: true,
        filter: true,
        sort: true,
      },
      tenant_id: PROJECT,
      status: { post: false, put: false, visible: true, filter: true, sort: true },
      port_details: { post: false, put: false, visible: true },
      dns_name: {
        post: true,
        put: false,
        default: '',
        convert: convertToLowercase,
        validate: validateDnsHostName(dnsDomain),
        visible: true,
        filter: true,
      },
      dns_domain: {
        post: true,
        put: false,
        default: '',
        convert: convertToLowercase,
        validate: validateDnsDomainName(),
        visible: true,
        filter: true,
      },
      description: DESCRIPTION,
      project_id: PROJECT,
      ...STANDARD_TAIL,
    },
  };
}

/**
 * The subnet attribute map: neutron-lib's `subnet` definition with subnet-service-types,
 * subnet-dns-publish-fixed-ip, master's `router:external` (shown, not advertised: octonet keeps Zed's
 * visibility of external subnets) and the standard attributes, in Neutron's order.
 */
import { HTTPBadRequest, InvalidInputSubnetServiceType, InvalidSubnetServiceType } from '../errors.js';
import { NOT_SPECIFIED, type ResourceSpec } from '../attributes.js';
import {
  convertAllocationPoolsToCanonicalFormat,
  convertCidrToCanonicalFormat,
  convertIpToCanonicalFormat,
  convertNoneToEmptyList,
  type Converter,
  convertToBoolean,
  convertToInt,
} from '../converters.js';
import { DESCRIPTION, ID, NAME, PROJECT, STANDARD_TAIL } from '../standard-attributes.js';
import {
  orNone,
  validateHostroutes,
  validateIpAddressOrNone,
  validateIpPools,
  validateNameservers,
  validateNonNegative,
  validateSubnetOrNone,
  validateUuid,
  validateValues,
  type Validator,
} from '../validators.js';

export const IPV6_MODES = ['dhcpv6-stateful', 'dhcpv6-stateless', 'slaac'] as const;

/**
 * The prefixes a subnet service type must start with, exactly as neutron-lib's
 * `validate_subnet_service_types` builds them: `list(DEVICE_OWNER_PREFIXES)` (`network:`,
 * `neutron:`) `+= DEVICE_OWNER_COMPUTE_PREFIX`, and `+=` of a string onto a list appends its
 * characters, so any type starting with one of `compute:`'s letters passes too (`test:type_1`,
 * which neutron-tempest-plugin's own tests use). Clients depend on that, so it is kept.
 */
const SERVICE_TYPE_PREFIXES = ['network:', 'neutron:', ...'compute:'];

/** `type:list_of_subnet_service_types`; raises like neutron-lib does. */
const validateServiceTypes: Validator = (data) => {
  if (!data || (Array.isArray(data) && data.length === 0)) return undefined;
  if (!Array.isArray(data)) throw HTTPBadRequest('Subnet service types must be a list.');
  for (const serviceType of data) {
    if (typeof serviceType !== 'string') throw InvalidInputSubnetServiceType({ service_type: serviceType });
    if (!SERVICE_TYPE_PREFIXES.some((p) => serviceType.startsWith(p))) {
      throw InvalidSubnetServiceType({ service_type: serviceType });
    }
  }
  return undefined;
};

const validateSubnetpoolId: Validator = orNone(validateUuid);

/**
 * neutron-lib lets any falsy `service_types` through its validator, and Neutron then iterates it:
 * `0` or `false` is a 500 there, `""` no service type. What it means is "none": `[]`.
 */
const convertFalsyToEmptyList: Converter = (data) => (data ? data : []);

/**
 * `dns_nameservers` as Neutron stores them: it iterates what its validator accepts, so a string
 * is its characters (`""` none; any other fails validation) and a dict its keys. The validator
 * then always sees a list, and the column always holds one.
 */
const convertNameservers: Converter = (data) => {
  if (data === null) return [];
  if (typeof data === 'string') return [...data];
  if (isPlainObject(data)) return Object.keys(data);
  return data;
};

function isPlainObject(data: unknown): data is Record<string, unknown> {
  return typeof data === 'object' && data !== null && !Array.isArray(data);
}

export const SUBNET_SPEC: ResourceSpec = {
  name: 'subnet',
  collection: 'subnets',
  path: 'subnets',
  allowBulk: true,
  attributes: {
    id: ID,
    name: NAME,
    ip_version: {
      post: true,
      put: false,
      convert: convertToInt,
      validate: validateValues([4, 6]),
      visible: true,
      filter: true,
      sort: true,
    },
    network_id: { post: true, put: false, validate: validateUuid, visible: true, filter: true, sort: true },
    subnetpool_id: {
      post: true,
      put: false,
      default: NOT_SPECIFIED,
      validate: validateSubnetpoolId,
      visible: true,
      filter: true,
      sort: true,
    },
    prefixlen: {
      post: true,
      put: false,
      default: NOT_SPECIFIED,
      convert: convertToInt,
      validate: validateNonNegative,
      visible: false,
    },
    cidr: {
      post: true,
      put: false,
      default: NOT_SPECIFIED,
      convert: convertCidrToCanonicalFormat,
      validate: validateSubnetOrNone,
      visible: true,
      filter: true,
      sort: true,
    },
    gateway_ip: {
      post: true,
      put: true,
      default: NOT_SPECIFIED,
      convert: convertIpToCanonicalFormat,
      validate: validateIpAddressOrNone,
      visible: true,
      filter: true,
      sort: true,
    },
    allocation_pools: {
      post: true,
      put: true,
      default: NOT_SPECIFIED,
      convert: convertAllocationPoolsToCanonicalFormat,
      validate: validateIpPools,
      visible: true,
    },
    dns_nameservers: {
      post: true,
      put: true,
      default: NOT_SPECIFIED,
      convert: convertNameservers,
      validate: validateNameservers,
      visible: true,
    },
    host_routes: {
      post: true,
      put: true,
      default: NOT_SPECIFIED,
      convert: convertNoneToEmptyList,
      validate: validateHostroutes,
      visible: true,
    },
    tenant_id: PROJECT,
    enable_dhcp: {
      post: true,
      put: true,
      default: true,
      convert: convertToBoolean,
      visible: true,
      filter: true,
      sort: true,
    },
    ipv6_ra_mode: {
      post: true,
      put: false,
      default: NOT_SPECIFIED,
      validate: validateValues(IPV6_MODES),
      visible: true,
      filter: true,
      sort: true,
    },
    ipv6_address_mode: {
      post: true,
      put: false,
      default: NOT_SPECIFIED,
      validate: validateValues(IPV6_MODES),
      visible: true,
      filter: true,
      sort: true,
    },
    shared: { post: false, put: false, default: false, convert: convertToBoolean, visible: false, filter: true },
    service_types: {
      post: true,
      put: true,
      default: NOT_SPECIFIED,
      convert: convertFalsyToEmptyList,
      validate: validateServiceTypes,
      visible: true,
    },
    ...STANDARD_TAIL,
    dns_publish_fixed_ip: { post: true, put: true, default: false, convert: convertToBoolean, visible: true },
    // As master's subnet-external-network: read-only, the network's flag.
    'router:external': {
      post: false,
      put: false,
      default: false,
      convert: convertToBoolean,
      visible: true,
      filter: true,
      enforcePolicy: true,
    },
    description: DESCRIPTION,
    project_id: PROJECT,
  },
};

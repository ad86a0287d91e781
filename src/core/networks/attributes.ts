/**
 * The network attribute map: neutron-lib's `network` definition merged with the extensions
 * octonet serves (external-net, net-mtu-writable, availability zones, port-security, provider,
 * standard attributes, dns-integration), in Neutron's merge order.
 */
import { NOT_SPECIFIED, type AttributeSpec, type ResourceSpec } from '../attributes.js';
import { convertToBoolean, convertToInt, convertToLowercase } from '../converters.js';
import { validateDnsDomainName } from '../dns.js';
import { InvalidInput } from '../errors.js';
import { DESCRIPTION, ID, NAME, PROJECT, STANDARD_TAIL } from '../standard-attributes.js';
import { QOS_POLICY_ID } from '../qos/attributes.js';
import { validateListOfUniqueStrings, validateNonNegative, validateString, type Validator } from '../validators.js';

/** Neutron stores the hints as JSON in a 255-character column and refuses longer lists. */
export const validateAvailabilityZoneHints: Validator = (data) => {
  const msg = validateListOfUniqueStrings()(data);
  if (msg) return msg;
  if (JSON.stringify(data).length > 255)
    throw InvalidInput({ error_message: 'Too many availability_zone_hints specified' });
  return undefined;
};

const bool = (defaultValue: boolean, extra: Partial<AttributeSpec> = {}): AttributeSpec => ({
  post: true,
  put: true,
  default: defaultValue,
  convert: convertToBoolean,
  visible: true,
  ...extra,
});

const provider = (extra: Partial<AttributeSpec>): AttributeSpec => ({
  post: true,
  put: true,
  default: NOT_SPECIFIED,
  visible: true,
  filter: true,
  enforcePolicy: true,
  ...extra,
});

export const NETWORK_SPEC: ResourceSpec = {
  name: 'network',
  collection: 'networks',
  path: 'networks',
  allowBulk: true,
  attributes: {
    id: ID,
    name: NAME,
    subnets: { post: false, put: false, default: [], visible: true },
    admin_state_up: bool(true, { filter: true, sort: true }),
    status: { post: false, put: false, visible: true, filter: true, sort: true },
    tenant_id: PROJECT,
    shared: bool(false, { filter: true, enforcePolicy: true }),
    'router:external': bool(false, { filter: true, enforcePolicy: true }),
    // auto-allocated-topology's attribute (without its API): the default external network.
    is_default: bool(false, { enforcePolicy: true }),
    mtu: {
      post: true,
      put: true,
      default: 0,
      convert: convertToInt,
      validate: validateNonNegative,
      visible: true,
      filter: true,
      sort: true,
      enforcePolicy: true,
    },
    availability_zones: { post: false, put: false, visible: true },
    ipv4_address_scope: { post: false, put: false, visible: true },
    ipv6_address_scope: { post: false, put: false, visible: true },
    availability_zone_hints: {
      post: true,
      put: false,
      default: [],
      validate: validateAvailabilityZoneHints,
      visible: true,
      sort: true,
    },
    port_security_enabled: bool(true, { enforcePolicy: true }),
    qos_policy_id: QOS_POLICY_ID,
    'provider:network_type': provider({ validate: validateString(32) }),
    'provider:physical_network': provider({ validate: validateString(64) }),
    'provider:segmentation_id': provider({ convert: convertToInt }),
    ...STANDARD_TAIL,
    dns_domain: {
      post: true,
      put: true,
      default: '',
      convert: convertToLowercase,
      validate: validateDnsDomainName(),
      visible: true,
    },
    description: DESCRIPTION,
    project_id: PROJECT,
  },
};

/**
 * The attribute maps of security groups and their rules: Neutron master's `security-group`
 * definition merged with what octonet serves of it (stateful-security-group,
 * security-groups-normalized-cidr, security-groups-rules-belongs-to-default-sg, the standard
 * attributes), in Neutron's merge order, which decides which invalid attribute an error names.
 *
 * Left out: `shared` (no RBAC for groups). `remote_address_group_id` is kept, always null, because
 * master's ML2/OVN shows it on every rule; a rule naming an address group is refused with
 * AddressGroupNotFound, since there are none.
 *
 * Rules cannot be updated: every rule attribute, `description` included, is read-only on PUT.
 */
import type { AttributeSpec, ResourceSpec } from '../attributes.js';
import { convertToBoolean, convertToBooleanIfNotNone } from '../converters.js';
import { SecurityGroupDefaultAlreadyExists } from '../errors.js';
import { DESCRIPTION, ID, PROJECT, STANDARD_TAIL } from '../standard-attributes.js';
import { validateString, validateSubnetOrNone, validateValues, type Validator } from '../validators.js';
import { DEFAULT_SECURITY_GROUP_NAME } from './default-group.js';
import { convertEthertype, convertIpPrefixToCidr, convertPortValue, convertProtocol } from './rule-validation.js';

/** `type:name_not_default`: `default` in any case is the default group's name, taken already. */
const validateNameNotDefault =
  (maxLen: number): Validator =>
  (data) => {
    const msg = validateString(maxLen)(data);
    if (msg || typeof data !== 'string') return msg;
    if (data.toLowerCase() === DEFAULT_SECURITY_GROUP_NAME) throw SecurityGroupDefaultAlreadyExists({});
    return undefined;
  };

export const SECURITY_GROUP_SPEC: ResourceSpec = {
  name: 'security_group',
  collection: 'security_groups',
  path: 'security-groups',
  allowBulk: true,
  attributes: {
    ...STANDARD_TAIL,
    description: DESCRIPTION,
    id: ID,
    name: {
      post: true,
      put: true,
      default: '',
      validate: validateNameNotDefault(255),
      visible: true,
      filter: true,
      sort: true,
    },
    tenant_id: PROJECT,
    security_group_rules: { post: false, put: false, visible: true },
    stateful: { post: true, put: true, default: true, convert: convertToBoolean, visible: true, filter: true },
    project_id: PROJECT,
  },
};

/** A rule attribute given at creation only. */
const createOnly = (extra: Partial<AttributeSpec>): AttributeSpec => ({
  post: true,
  put: false,
  visible: true,
  filter: true,
  sort: true,
  ...extra,
});

export const SECURITY_GROUP_RULE_SPEC: ResourceSpec = {
  name: 'security_group_rule',
  collection: 'security_group_rules',
  path: 'security-group-rules',
  allowBulk: true,
  attributes: {
    revision_number: STANDARD_TAIL.revision_number!,
    created_at: STANDARD_TAIL.created_at!,
    updated_at: STANDARD_TAIL.updated_at!,
    description: { ...DESCRIPTION, put: false },
    id: ID,
    security_group_id: createOnly({ validate: validateString(36) }),
    remote_group_id: createOnly({ default: null }),
    direction: createOnly({ validate: validateValues(['ingress', 'egress'], 'valid_values') }),
    protocol: createOnly({ default: null, convert: convertProtocol }),
    port_range_min: createOnly({ default: null, convert: convertPortValue }),
    port_range_max: createOnly({ default: null, convert: convertPortValue }),
    ethertype: createOnly({ default: 'IPv4', convert: convertEthertype }),
    remote_ip_prefix: createOnly({ default: null, convert: convertIpPrefixToCidr }),
    tenant_id: PROJECT,
    // Accepted as filter and sort key by the API, as in Neutron; the rule service answers for them.
    normalized_cidr: {
      post: false,
      put: false,
      validate: validateSubnetOrNone,
      visible: true,
      filter: true,
      sort: true,
    },
    remote_address_group_id: createOnly({ default: null }),
    belongs_to_default_sg: { post: false, put: false, convert: convertToBooleanIfNotNone, visible: true, filter: true },
    project_id: PROJECT,
  },
};

/**
 * The subnet pool attribute map (neutron-lib `subnetpool`, a core resource, with the standard
 * attributes) with `address-scope`'s `address_scope_id`.
 */
import { NOT_SPECIFIED, type AttributeSpec, type ResourceSpec } from '../attributes.js';
import { convertToBoolean, convertToInt } from '../converters.js';
import { DESCRIPTION, ID, PROJECT, STANDARD_TAIL } from '../standard-attributes.js';
import { validateNonNegative, validateNotEmptyString, validateSubnetList, validateUuidOrNone } from '../validators.js';

const shown = { visible: true, filter: true, sort: true } as const;
const prefixBound: AttributeSpec = {
  post: true,
  put: true,
  default: NOT_SPECIFIED,
  convert: convertToInt,
  validate: validateNonNegative,
  ...shown,
};

export const SUBNETPOOL_SPEC: ResourceSpec = {
  name: 'subnetpool',
  collection: 'subnetpools',
  path: 'subnetpools',
  allowBulk: true,
  attributes: {
    id: ID,
    name: { post: true, put: true, validate: validateNotEmptyString(255), ...shown },
    tenant_id: PROJECT,
    prefixes: { post: true, put: true, validate: validateSubnetList, visible: true },
    default_quota: prefixBound,
    ip_version: { post: false, put: false, ...shown },
    default_prefixlen: prefixBound,
    min_prefixlen: prefixBound,
    max_prefixlen: prefixBound,
    is_default: { post: true, put: true, default: false, convert: convertToBoolean, enforcePolicy: true, ...shown },
    shared: { post: true, put: false, default: false, convert: convertToBoolean, enforcePolicy: true, ...shown },
    address_scope_id: {
      post: true,
      put: true,
      default: NOT_SPECIFIED,
      validate: validateUuidOrNone,
      ...shown,
    },
    description: DESCRIPTION,
    project_id: PROJECT,
    ...STANDARD_TAIL,
  },
};

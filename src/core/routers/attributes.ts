/**
 * The router attribute map: neutron-lib's `l3` routers merged with the extensions octonet serves
 * for them (ext-gw-mode's `enable_snat`, extraroute's `routes`, router_availability_zone, standard
 * attributes), in Neutron's merge order. `ha` and `distributed` are not here: with OVN the gateway
 * is always highly available (prioritised gateway chassis) and ML2/OVN serves neither extension.
 */
import { NOT_SPECIFIED, type ResourceSpec } from '../attributes.js';
import { convertNoneToEmptyList, convertToBoolean } from '../converters.js';
import { validateAvailabilityZoneHints } from '../networks/attributes.js';
import { DESCRIPTION, ID, NAME, PROJECT, STANDARD_TAIL } from '../standard-attributes.js';
import {
  validateBoolean,
  validateDictOrNodata,
  validateFixedIps,
  validateHostroutes,
  validateUuid,
} from '../validators.js';

/** `external_gateway_info`'s keys, in the validator's order (the order of its policy sub-rules). */
export const GATEWAY_INFO_KEYS = ['network_id', 'external_fixed_ips', 'enable_snat'] as const;

export const ROUTER_SPEC: ResourceSpec = {
  name: 'router',
  collection: 'routers',
  path: 'routers',
  allowBulk: true,
  attributes: {
    id: ID,
    name: NAME,
    admin_state_up: {
      post: true,
      put: true,
      default: true,
      convert: convertToBoolean,
      visible: true,
      filter: true,
      sort: true,
    },
    status: { post: false, put: false, visible: true, sort: true, filter: true },
    tenant_id: PROJECT,
    external_gateway_info: {
      post: true,
      put: true,
      default: null,
      visible: true,
      enforcePolicy: true,
      policySubKeys: GATEWAY_INFO_KEYS,
      validate: validateDictOrNodata({
        network_id: { required: true, validate: validateUuid },
        external_fixed_ips: { validate: validateFixedIps },
        enable_snat: { convert: convertToBoolean, validate: validateBoolean },
      }),
    },
    routes: {
      post: false,
      put: true,
      default: NOT_SPECIFIED,
      convert: convertNoneToEmptyList,
      validate: validateHostroutes,
      visible: true,
    },
    availability_zone_hints: {
      post: true,
      put: false,
      default: [],
      validate: validateAvailabilityZoneHints,
      visible: true,
    },
    availability_zones: { post: false, put: false, visible: true },
    description: DESCRIPTION,
    project_id: PROJECT,
    ...STANDARD_TAIL,
  },
};

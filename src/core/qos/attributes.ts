/**
 * The QoS attribute maps (neutron-lib `qos`, `qos_default`, `qos_bw_limit_direction`,
 * `qos_bw_minimum_ingress`, `qos_rule_type_details`, `qos_rules_alias`), in Neutron's order, and
 * the `qos_policy_id` attribute the `qos` extension adds to ports and networks.
 */
import type { AttributeSpec, ResourceSpec } from '../attributes.js';
import { convertToBoolean, convertToInt } from '../converters.js';
import { DESCRIPTION, ID, PROJECT, STANDARD_TAIL } from '../standard-attributes.js';
import { validateRange, validateString, validateUuidOrNone, validateValues } from '../validators.js';

const shown = { visible: true, filter: true, sort: true } as const;
/** `db_const.DB_INTEGER_MAX_VALUE`. */
const DB_INTEGER_MAX = 2 ** 31 - 1;
export const DIRECTIONS = ['egress', 'ingress'] as const;
/** `neutron_lib.constants.VALID_DSCP_MARKS`. */
export const VALID_DSCP_MARKS = [0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 46, 48, 56];

/** `qos_policy_id` on ports and networks (`enforce_policy`, a uuid or null). */
export const QOS_POLICY_ID: AttributeSpec = {
  post: true,
  put: true,
  default: null,
  validate: validateUuidOrNone,
  visible: true,
  enforcePolicy: true,
};

/** `qos_network_policy_id` on ports (`qos-port-network-policy`): the network's policy, read-only. */
export const QOS_NETWORK_POLICY_ID: AttributeSpec = { post: false, put: false, visible: true };

export const QOS_POLICY_SPEC: ResourceSpec = {
  name: 'policy',
  collection: 'policies',
  path: 'qos/policies',
  allowBulk: true,
  attributes: {
    id: ID,
    name: { post: true, put: true, default: '', validate: validateString(255), ...shown },
    shared: { post: true, put: true, default: false, convert: convertToBoolean, visible: true, filter: true },
    tenant_id: PROJECT,
    rules: { post: false, put: false, visible: true },
    is_default: { post: true, put: true, default: false, convert: convertToBoolean, visible: true, filter: true },
    description: DESCRIPTION,
    project_id: PROJECT,
    ...STANDARD_TAIL,
  },
};

const kbps: AttributeSpec = {
  post: true,
  put: true,
  convert: convertToInt,
  validate: validateRange(0, DB_INTEGER_MAX),
  ...shown,
};

/** `_QOS_RULE_COMMON_FIELDS` (with the `project_id` neutron-lib adds beside every `tenant_id`). */
const ruleCommon = { id: ID, tenant_id: { post: true, put: false, visible: true } } as const;
const ruleProject: AttributeSpec = { post: true, put: false, visible: true };

const direction = (values: readonly string[]): AttributeSpec => ({
  post: true,
  put: true,
  default: 'egress',
  validate: validateValues([...values]),
  ...shown,
});

export const BANDWIDTH_LIMIT_RULE_SPEC: ResourceSpec = {
  name: 'bandwidth_limit_rule',
  collection: 'bandwidth_limit_rules',
  path: 'bandwidth_limit_rules',
  allowBulk: false,
  attributes: {
    ...ruleCommon,
    max_kbps: kbps,
    max_burst_kbps: { ...kbps, default: 0 },
    direction: direction(DIRECTIONS),
    project_id: ruleProject,
  },
};

export const DSCP_MARKING_RULE_SPEC: ResourceSpec = {
  name: 'dscp_marking_rule',
  collection: 'dscp_marking_rules',
  path: 'dscp_marking_rules',
  allowBulk: false,
  attributes: {
    ...ruleCommon,
    dscp_mark: { post: true, put: true, convert: convertToInt, validate: validateValues(VALID_DSCP_MARKS), ...shown },
    project_id: ruleProject,
  },
};

export const MINIMUM_BANDWIDTH_RULE_SPEC: ResourceSpec = {
  name: 'minimum_bandwidth_rule',
  collection: 'minimum_bandwidth_rules',
  path: 'minimum_bandwidth_rules',
  allowBulk: false,
  attributes: {
    ...ruleCommon,
    min_kbps: kbps,
    direction: direction(DIRECTIONS),
    project_id: ruleProject,
  },
};

/** `/qos/rule-types`: a name, the drivers' details, and the `qos-rule-type-filter` flags. */
export const RULE_TYPE_SPEC: ResourceSpec = {
  name: 'rule_type',
  collection: 'rule_types',
  path: 'qos/rule-types',
  allowBulk: false,
  attributes: {
    type: { post: false, put: false, visible: true },
    drivers: { post: false, put: false, visible: true },
    all_rules: { post: true, put: true, convert: convertToBoolean, visible: false, filter: true },
    all_supported: { post: true, put: true, convert: convertToBoolean, visible: false, filter: true },
  },
};

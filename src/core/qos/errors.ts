/** QoS errors (`neutron_lib/exceptions/qos.py`), kept beside the resource that raises them. */
import { define } from '../errors.js';

export const QosPolicyNotFound = define<{ policy_id: unknown }>(
  'QosPolicyNotFound',
  'NotFound',
  'QoS policy %(policy_id)s could not be found.',
);
export const QosRuleNotFound = define<{ rule_id: unknown; policy_id: unknown }>(
  'QosRuleNotFound',
  'NotFound',
  'QoS rule %(rule_id)s for policy %(policy_id)s could not be found.',
);
export const QosPolicyInUse = define<{ policy_id: unknown; object_type: unknown; object_id: unknown }>(
  'QosPolicyInUse',
  'InUse',
  'QoS Policy %(policy_id)s is used by %(object_type)s %(object_id)s.',
);
export const QoSPolicyDefaultAlreadyExists = define<{ project_id: unknown }>(
  'QoSPolicyDefaultAlreadyExists',
  'Conflict',
  'A default QoS policy exists for project %(project_id)s.',
);
export const QoSRulesConflict = define<{ new_rule_type: unknown; rule_id: unknown; policy_id: unknown }>(
  'QoSRulesConflict',
  'Conflict',
  'Rule %(new_rule_type)s conflicts with rule %(rule_id)s which already exists in QoS Policy %(policy_id)s.',
);
export const QoSRuleParameterConflict = define<{
  rule_value: unknown;
  policy_id: unknown;
  existing_rule: unknown;
  existing_value: unknown;
}>(
  'QoSRuleParameterConflict',
  'Conflict',
  'Unable to add the rule with value %(rule_value)s to the policy %(policy_id)s as the existing rule of type %(existing_rule)s has value %(existing_value)s.',
);
export const PolicyRemoveAuthorizationError = define<{ policy_id: unknown }>(
  'PolicyRemoveAuthorizationError',
  'NotAuthorized',
  'Failed to remove provided policy %(policy_id)s because you are not authorized.',
);
/** neutron-lib's bare `NotAuthorized` (`get_rule_type` for a non-admin). */
export const NotAuthorized = define('NotAuthorized', 'NotAuthorized', 'Not authorized.');

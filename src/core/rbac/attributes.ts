/**
 * The RBAC policy attribute map (`neutron/extensions/rbac.py`): who (`target_tenant`, a project or
 * `*`) may do what (`action`) with which object (`object_type`, `object_id`). octonet serves RBAC
 * on networks and QoS policies.
 */
import type { ResourceSpec } from '../attributes.js';
import { InvalidInput } from '../errors.js';
import { ID, PROJECT } from '../standard-attributes.js';
import { isUuidLike, validateString, validateUuid } from '../validators.js';

export const RBAC_OBJECT_TYPES = ['network', 'qos_policy'] as const;

/** `convert_valid_object_type`. */
function convertObjectType(value: unknown): unknown {
  const normalized = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (typeof normalized === 'string' && (RBAC_OBJECT_TYPES as readonly string[]).includes(normalized))
    return normalized;
  throw InvalidInput({ error_message: `'${value === null ? 'None' : String(value)}' is not a valid RBAC object type` });
}

/** `type:valid_target_project`: a project id (UUID-like, dashes optional) or `*`. */
function validateTargetProject(value: unknown): undefined {
  if (value === '*' || (typeof value === 'string' && isUuidLike(value))) return undefined;
  throw InvalidInput({ error_message: `'${String(value)}' is not a valid target project ID; expected a UUID or '*'` });
}

const shown = { visible: true, filter: true, enforcePolicy: true } as const;

export const RBAC_POLICY_SPEC: ResourceSpec = {
  name: 'rbac_policy',
  collection: 'rbac_policies',
  path: 'rbac-policies',
  allowBulk: false,
  attributes: {
    id: ID,
    object_type: { post: true, put: false, default: null, convert: convertObjectType, ...shown },
    object_id: { post: true, put: false, validate: validateUuid, ...shown },
    target_tenant: { post: true, put: true, validate: validateTargetProject, ...shown },
    tenant_id: PROJECT,
    action: { post: true, put: false, validate: validateString(1024), ...shown },
    project_id: PROJECT,
  },
};

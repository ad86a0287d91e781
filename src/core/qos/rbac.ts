/**
 * What RBAC entries on a QoS policy may not be withdrawn (`objects/rbac_db.py`
 * `_validate_rbac_policy_delete`, with `QosPolicy.get_bound_project_ids`): the projects whose
 * networks or ports use the policy keep the access they depend on.
 */
import type { Db } from '../../store/database.js';
import { projectsUsingQosPolicy } from '../../store/qos.js';
import { qosRbacEntries } from '../../store/rbac.js';
import { RbacPolicyInUse } from '../errors.js';

/**
 * Refuses to withdraw the share with `target`: a project's share while no wildcard covers it and
 * the project uses the policy; the wildcard while a project using it (its owner too) has no share
 * of its own.
 */
export async function validateQosRbacDelete(db: Db, policyId: string, target: string): Promise<void> {
  const bound = await projectsUsingQosPolicy(db, policyId);
  const shares = (await qosRbacEntries(db, policyId)).filter((e) => e.action === 'access_as_shared');
  const inUse =
    target !== '*'
      ? !shares.some((e) => e.target_project === '*') && bound.has(target)
      : [...bound].some((p) => !shares.some((e) => e.target_project === p));
  if (inUse) throw RbacPolicyInUse({ object_id: policyId, details: `project_id=${target}` });
}

/**
 * RBAC policies on QoS policies (`object_type: qos_policy`, `objects/rbac_db.py` with
 * `QosPolicyRBAC`): `access_as_shared` with one project or all. Only the policy's owner (or an
 * admin) writes them; withdrawing a share a project's network or port depends on is refused
 * (`core/qos/rbac.ts`). The policy's `shared` column follows its wildcard entry.
 */
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../context.js';
import type { CoreDeps } from '../deps.js';
import { DuplicateRbacPolicy, InvalidInput, NeutronError } from '../errors.js';
import { QosPolicyNotFound } from '../qos/errors.js';
import { validateQosRbacDelete } from '../qos/rbac.js';
import type { Tx } from '../../store/database.js';
import { getQosPolicyRecord } from '../../store/qos.js';
import {
  deleteRbacRow,
  insertQosRbac,
  qosRbacEntries,
  retargetRbac,
  syncQosShared,
  type RbacRow,
} from '../../store/rbac.js';
import type { NetworkRbacTable } from '../../store/schema.js';

const ACCESS_AS_SHARED = 'access_as_shared';

interface CreateBody {
  readonly project_id: string;
  readonly object_id: string;
  readonly target_tenant: string;
  readonly action: string;
}

export class QosRbac {
  constructor(private readonly deps: CoreDeps) {}

  /** `validate_rbac_policy_change`: the policy (looked up as an admin) must be the caller's, or the caller an admin. */
  private async requireOwnedPolicy(tx: Tx, ctx: RequestContext, policyId: string): Promise<void> {
    const record = await getQosPolicyRecord(tx, policyId);
    if (!record) throw QosPolicyNotFound({ policy_id: policyId });
    if (!ctx.isAdmin && record.row.project_id !== ctx.projectId) {
      throw InvalidInput({ error_message: 'Only admins can manipulate policies on objects they do not own' });
    }
  }

  async create(tx: Tx, ctx: RequestContext, body: CreateBody): Promise<NetworkRbacTable> {
    if (body.action !== ACCESS_AS_SHARED) {
      throw new NeutronError(
        'InvalidActionForType',
        400,
        `Invalid action '${body.action}' for object type 'qos_policy'. Valid actions: ('${ACCESS_AS_SHARED}',)`,
      );
    }
    await this.requireOwnedPolicy(tx, ctx, body.object_id);
    await this.deps.quotas.enforce(tx, body.project_id, { rbac_policy: 1 });
    const entries = await qosRbacEntries(tx, body.object_id);
    if (entries.some((e) => e.action === body.action && e.target_project === body.target_tenant)) {
      throw DuplicateRbacPolicy({});
    }
    const row: NetworkRbacTable = {
      id: randomUUID(),
      project_id: body.project_id,
      object_id: body.object_id,
      target_project: body.target_tenant,
      action: body.action,
    };
    await insertQosRbac(this.deps.store, tx, row);
    return row;
  }

  /** `validate_rbac_policy_delete`: the owner's own share is never in use. */
  private async ensureWithdrawable(tx: Tx, row: RbacRow): Promise<void> {
    const record = await getQosPolicyRecord(tx, row.object_id);
    if (!record || record.row.project_id === row.target_project) return;
    await validateQosRbacDelete(tx, row.object_id, row.target_project);
  }

  /** `validate_rbac_policy_update`: moving a share away from a project is withdrawing it, unless to `*`. */
  async retarget(tx: Tx, ctx: RequestContext, row: RbacRow, target: string): Promise<void> {
    await this.requireOwnedPolicy(tx, ctx, row.object_id);
    if (target !== '*') await this.ensureWithdrawable(tx, row);
    const entries = await qosRbacEntries(tx, row.object_id);
    if (entries.some((e) => e.action === row.action && e.target_project === target)) throw DuplicateRbacPolicy({});
    await retargetRbac(tx, 'qos_policy', row.id, target);
    await syncQosShared(this.deps.store, tx, row.object_id);
  }

  async delete(tx: Tx, row: RbacRow): Promise<void> {
    await this.ensureWithdrawable(tx, row);
    await deleteRbacRow(tx, 'qos_policy', row.id);
    await syncQosShared(this.deps.store, tx, row.object_id);
  }
}

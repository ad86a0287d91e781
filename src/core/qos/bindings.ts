/**
 * `qos_policy_id` on ports and networks (`core_extensions/qos.py`): attaching a policy the caller
 * can see (QosPolicyNotFound otherwise), letting go of the previous one only when the caller could
 * see that one too (PolicyRemoveAuthorizationError), and a new network of a project with a default
 * policy (`qos-default`) getting it when it names none. Runs inside the port's or network's
 * transaction; the caller's event carries the change to the drivers.
 */
import type { Tx } from '../../store/database.js';
import {
  bindQosPolicy,
  boundQosPolicies,
  defaultQosPolicyId,
  getQosPolicyRecord,
  type QosBindingKind,
} from '../../store/qos.js';
import type { RequestContext } from '../context.js';
import { PolicyRemoveAuthorizationError } from './errors.js';
import type { QosPolicyService } from './service.js';

export class QosBindings {
  constructor(private readonly policies: QosPolicyService) {}

  /** A new network's or port's policy: the one named, else (networks) the project's default. */
  async attachNew(
    tx: Tx,
    ctx: RequestContext,
    kind: QosBindingKind,
    id: string,
    requested: string | null | undefined,
    projectId: string,
  ): Promise<string | null> {
    let policyId = requested ?? null;
    if (!policyId && kind === 'network') policyId = (await defaultQosPolicyId(tx, projectId)) ?? null;
    if (!policyId) return null;
    await this.policies.getVisible(tx, ctx, policyId);
    await bindQosPolicy(tx, kind, id, policyId);
    return policyId;
  }

  /** An update that names `qos_policy_id` (null detaches). */
  async change(tx: Tx, ctx: RequestContext, kind: QosBindingKind, id: string, requested: string | null): Promise<void> {
    const old = (await boundQosPolicies(tx, kind, [id])).get(id);
    if (old === requested) return;
    if (old) {
      const record = await getQosPolicyRecord(tx, old);
      if (record && !this.policies.canSee(ctx, this.policies.view(record, ctx)))
        throw PolicyRemoveAuthorizationError({ policy_id: old });
    }
    if (requested) await this.policies.getVisible(tx, ctx, requested);
    await bindQosPolicy(tx, kind, id, requested);
  }
}

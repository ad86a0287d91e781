/**
 * The policy questions core asks, answered by `auth/policy.ts`.
 *
 * Core builds the policy target itself, inside its transaction, so checks never need a second
 * lookup: a port's target carries `network:project_id` and `network:shared`, a subnet's the
 * network owner, a rule's `security_group:project_id`.
 */
import type { ResourceSpec } from './attributes.js';
import type { RequestContext } from './context.js';

export type PolicyTarget = Readonly<Record<string, unknown>>;

export interface Authorizer {
  /**
   * Enforces `create_<res>` and the attribute rules of the attributes the body sets explicitly.
   * Throws 403 PolicyNotAuthorized.
   */
  enforceCreate(ctx: RequestContext, spec: ResourceSpec, target: PolicyTarget): void;
  /**
   * Enforces `update_<res>` and the rules of the attributes in `body`. When the caller may not even
   * read the target, throws 404 instead, as Neutron does.
   */
  enforceUpdate(
    ctx: RequestContext,
    spec: ResourceSpec,
    target: PolicyTarget,
    body: Readonly<Record<string, unknown>>,
  ): void;
  /** Enforces `delete_<res>`, with the same 404-when-unreadable rule. */
  enforceDelete(ctx: RequestContext, spec: ResourceSpec, target: PolicyTarget): void;
  /** Enforces a named rule on a target (tags, quotas, actions); 403 on failure. */
  enforceRule(ctx: RequestContext, action: string, target: PolicyTarget): void;
  /** Whether `get_<res>` allows the caller to see the target. */
  canRead(ctx: RequestContext, resource: string, target: PolicyTarget): boolean;
  /** Whether a named rule allows the caller (no exception). */
  allows(ctx: RequestContext, action: string, target: PolicyTarget): boolean;
}

/**
 * Who is asking: the request context every core service receives.
 *
 * Built by `auth/` (noauth headers or a Keystone token); core reads it and never builds one, except
 * `adminContext()` for octonet's own work (start-up, repair), which acts for no project.
 */

export interface RequestContext {
  readonly requestId: string;
  readonly userId: string | null;
  /** The project the token is scoped to; null for a system-scoped or internal context. */
  readonly projectId: string | null;
  readonly projectName: string | null;
  readonly roles: readonly string[];
  /** `admin` role: sees and may change everything, in every project. */
  readonly isAdmin: boolean;
  /** The `service` role (Nova, Octavia acting for a user): some port attributes are theirs to set. */
  readonly isService: boolean;
}

export function makeContext(fields: {
  requestId: string;
  userId?: string | null;
  projectId?: string | null;
  projectName?: string | null;
  roles: readonly string[];
}): RequestContext {
  const roles = [...new Set(fields.roles.map((r) => r.trim().toLowerCase()).filter(Boolean))];
  return {
    requestId: fields.requestId,
    userId: fields.userId ?? null,
    projectId: fields.projectId ?? null,
    projectName: fields.projectName ?? null,
    roles,
    isAdmin: roles.includes('admin'),
    isService: roles.includes('service'),
  };
}

/** octonet acting for itself (start-up, repair loops): admin, no project. */
export function adminContext(requestId = 'internal'): RequestContext {
  return makeContext({ requestId, roles: ['admin'] });
}

/**
 * Neutron's `context.elevated()`: the caller's identity with the admin role added, for lookups
 * Neutron makes as admin (a tag's parent). Policy is still checked against the caller's own context.
 */
export function elevated(ctx: RequestContext): RequestContext {
  return makeContext({ ...ctx, roles: [...ctx.roles, 'admin', 'member', 'reader'] });
}

/**
 * noauth: the caller's identity comes from trusted headers, as Neutron's keystonecontext reads them
 * behind keystonemiddleware. Only for deployments where something in front of octonet (or nothing
 * but tests) sets these headers.
 *
 * - No `X-Project-Id` (nor `X-Tenant-Id`): admin of the configured default project, like Neutron's
 *   stock noauth, so the `openstack` CLI works with `--os-auth-type none`.
 * - `X-Project-Id` present: that project, with the roles of `X-Roles` (comma-separated); when
 *   `X-Roles` is absent the caller is a plain `member,reader`. `X-Roles:` empty means no roles.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { makeContext, type RequestContext } from '../core/context.js';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function noauthContext(
  headers: IncomingHttpHeaders,
  requestId: string,
  defaultProjectId: string,
): RequestContext {
  const projectId = header(headers, 'x-project-id') ?? header(headers, 'x-tenant-id');
  if (!projectId) {
    return makeContext({
      requestId,
      userId: header(headers, 'x-user-id') ?? null,
      projectId: defaultProjectId,
      roles: ['admin', 'member', 'reader'],
    });
  }
  const rolesHeader = header(headers, 'x-roles');
  const roles = rolesHeader === undefined ? ['member', 'reader'] : rolesHeader.split(',');
  return makeContext({
    requestId,
    userId: header(headers, 'x-user-id') ?? null,
    projectId,
    projectName: header(headers, 'x-project-name') ?? null,
    roles,
  });
}

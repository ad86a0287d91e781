/**
 * Port security as ML2 enforces it: address pairs need port security; security groups need port
 * security; a port without explicit groups gets its project's default group; `network:*` ports
 * (trusted, Neutron's own) get no groups. Also validates that requested groups exist and are the
 * port project's (SecurityGroupNotFound otherwise).
 */
import type { RequestContext } from '../context.js';
import type { CoreDeps } from '../deps.js';
import {
  AddressPairAndPortSecurityRequired,
  PortSecurityAndIPRequiredForSecurityGroups,
  PortSecurityPortHasSecurityGroup,
  SecurityGroupNotFound,
} from '../errors.js';
import type { Body } from '../resource.js';
import type { PortUpdate } from './body.js';
import { ensureDefaultSecurityGroup } from '../security-groups/default-group.js';
import type { Tx } from '../../store/database.js';
import type { PortRecord } from '../../store/ports.js';
import { toBool } from '../../store/schema.js';
import { securityGroupOwners } from '../../store/security-groups.js';

export interface AddressPairRequest {
  ip_address: string;
  mac_address?: string;
}

/** Ports Neutron owns (`network:*`): no security groups, no port security checks on them. */
export function isTrustedPort(deviceOwner: string): boolean {
  return deviceOwner.startsWith('network:');
}

/** The requested groups, checked: each must exist and belong to the port's project (unless admin). */
async function checkedGroups(
  tx: Tx,
  ctx: RequestContext,
  projectId: string,
  ids: readonly string[],
): Promise<string[]> {
  const unique = [...new Set(ids)];
  const owners = await securityGroupOwners(tx, unique);
  const missing = unique.filter((id) => {
    const owner = owners.get(id);
    return owner === undefined || !(ctx.isAdmin || owner === projectId);
  });
  if (missing.length) throw SecurityGroupNotFound({ id: missing.join(', ') });
  return unique;
}

export interface NewPortSecurity {
  portSecurity: boolean;
  securityGroups: string[];
  addressPairs: AddressPairRequest[];
}

export async function securityForNewPort(
  deps: CoreDeps,
  tx: Tx,
  ctx: RequestContext,
  request: {
    projectId: string;
    deviceOwner: string;
    portSecurity: boolean;
    securityGroups: string[] | undefined;
    addressPairs: AddressPairRequest[] | undefined;
  },
): Promise<NewPortSecurity> {
  const pairs = request.addressPairs ?? [];
  const trusted = request.deviceOwner !== '' && isTrustedPort(request.deviceOwner);
  // ML2's port-security driver turns it off on trusted ports, whatever was asked.
  const portSecurity = trusted ? false : request.portSecurity;
  if (pairs.length && !portSecurity) throw AddressPairAndPortSecurityRequired({});
  const groups = request.securityGroups;
  if (!portSecurity && groups !== undefined && groups.length) throw PortSecurityAndIPRequiredForSecurityGroups({});
  if (trusted) return { portSecurity, securityGroups: [], addressPairs: pairs };
  if (portSecurity && groups === undefined) {
    // The project's own default group: nothing to check.
    const defaultGroup = await ensureDefaultSecurityGroup(deps.store, deps.quotas, tx, request.projectId);
    return { portSecurity: true, securityGroups: [defaultGroup], addressPairs: pairs };
  }
  const securityGroups = groups ? await checkedGroups(tx, ctx, request.projectId, groups) : [];
  return { portSecurity, securityGroups, addressPairs: pairs };
}

export interface PortSecurityUpdate {
  portSecurity?: boolean;
  /** The new set of groups, when the update changes them. */
  securityGroups?: string[];
  /** The new address pairs, when the update changes them. */
  addressPairs?: AddressPairRequest[];
}

/** ML2's `_portsec_ext_port_update_processing` plus the group and pair replacements. */
export async function securityForUpdate(
  _deps: CoreDeps,
  tx: Tx,
  ctx: RequestContext,
  record: PortRecord,
  body: Body,
  change: PortUpdate,
): Promise<PortSecurityUpdate> {
  const portSecurity =
    'port_security_enabled' in body
      ? (body.port_security_enabled as boolean)
      : toBool(record.row.port_security_enabled);
  const pairs = body.allowed_address_pairs as AddressPairRequest[] | undefined;
  const groups = change.security_groups;
  if (!portSecurity) {
    if (pairs && pairs.length) throw AddressPairAndPortSecurityRequired({});
    if (pairs === undefined && record.addressPairs.length) throw AddressPairAndPortSecurityRequired({});
    if (groups && groups.length) throw PortSecurityAndIPRequiredForSecurityGroups({});
    if (groups === undefined && record.securityGroups.length) throw PortSecurityPortHasSecurityGroup({});
  }
  const result: PortSecurityUpdate = {};
  if ('port_security_enabled' in body) result.portSecurity = portSecurity;
  if (pairs !== undefined) result.addressPairs = pairs;
  if (groups !== undefined) {
    const trusted = isTrustedPort(change.device_owner ?? record.row.device_owner);
    result.securityGroups = trusted ? [] : await checkedGroups(tx, ctx, record.row.project_id, groups);
  }
  return result;
}

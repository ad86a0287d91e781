/**
 * Address scope errors (`neutron_lib/exceptions/address_scope.py` and the subnet pool association
 * errors of `neutron_lib/exceptions/__init__.py`), kept beside the resource that raises them.
 */
import { define } from '../errors.js';

export const AddressScopeNotFound = define<{ address_scope_id: unknown }>(
  'AddressScopeNotFound',
  'NotFound',
  'Address scope %(address_scope_id)s could not be found.',
);
export const AddressScopeInUse = define<{ address_scope_id: unknown }>(
  'AddressScopeInUse',
  'InUse',
  'Unable to complete operation on address scope %(address_scope_id)s. There are one or more subnet pools in use on the address scope.',
);
export const AddressScopeUpdateError = define<{ address_scope_id: unknown; reason: unknown }>(
  'AddressScopeUpdateError',
  'BadRequest',
  'Unable to update address scope %(address_scope_id)s : %(reason)s.',
);
export const AddressScopePrefixConflict = define(
  'AddressScopePrefixConflict',
  'Conflict',
  'Failed to associate address scope: subnetpools within an address scope must have unique prefixes.',
);
export const IllegalSubnetPoolAssociationToAddressScope = define<{ subnetpool_id: unknown; address_scope_id: unknown }>(
  'IllegalSubnetPoolAssociationToAddressScope',
  'BadRequest',
  'Illegal subnetpool association: subnetpool %(subnetpool_id)s cannot be associated with address scope %(address_scope_id)s.',
);
export const IllegalSubnetPoolIpVersionAssociationToAddressScope = define<{
  subnetpool_id: unknown;
  address_scope_id: unknown;
  ip_version: unknown;
}>(
  'IllegalSubnetPoolIpVersionAssociationToAddressScope',
  'BadRequest',
  'Illegal subnetpool association: subnetpool %(subnetpool_id)s cannot associate with address scope %(address_scope_id)s because subnetpool ip_version is not %(ip_version)s.',
);
export const NetworkAddressScopeAffinityError = define(
  'NetworkAddressScopeAffinityError',
  'BadRequest',
  'Subnets of the same address family hosted on the same network must all participate in the same address scope.',
);
export const IllegalSubnetPoolUpdate = define<{ reason: unknown }>(
  'IllegalSubnetPoolUpdate',
  'BadRequest',
  'Illegal subnetpool update : %(reason)s.',
);

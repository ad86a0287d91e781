/**
 * The one catalogue of Neutron's error types, with their HTTP status and message templates.
 *
 * Handlers throw these; only `api/` renders them as `{"NeutronError": {type, message, detail}}`.
 * Type names and templates are neutron-lib's and Neutron's own (`neutron_lib/exceptions`,
 * `neutron/api/api_common.py`), because clients and tempest compare them. The HTTP status comes
 * from the base class, as in neutron-lib's FAULT_MAP.
 */

/** Neutron's exception base classes and the status FAULT_MAP gives each. */
export const BASE_STATUS = {
  BadRequest: 400,
  NotAuthorized: 403,
  NotFound: 404,
  Conflict: 409,
  InUse: 409,
  ServiceUnavailable: 503,
  /** A bare NeutronException: no fault mapping, so a 500 that keeps its own type. */
  NeutronException: 500,
  /** webob exceptions Neutron raises directly keep their own status and class name as type. */
  HTTPBadRequest: 400,
  HTTPUnauthorized: 401,
  HTTPForbidden: 403,
  HTTPNotFound: 404,
  HTTPMethodNotAllowed: 405,
  HTTPNotAcceptable: 406,
  HTTPConflict: 409,
  HTTPPreconditionFailed: 412,
  HTTPRequestEntityTooLarge: 413,
  HTTPUnsupportedMediaType: 415,
  HTTPInternalServerError: 500,
  HTTPNotImplemented: 501,
  HTTPServiceUnavailable: 503,
} as const;

export type ErrorBase = keyof typeof BASE_STATUS;

export class NeutronError extends Error {
  constructor(
    /** The NeutronError `type`: Neutron's exception class name. */
    readonly type: string,
    readonly status: number,
    message: string,
    readonly detail: string = '',
  ) {
    super(message);
    this.name = type;
  }
}

type Params = Record<string, unknown>;

/** Fills `%(name)s` placeholders the way Python's `%` operator does. */
export function formatTemplate(template: string, params: Params): string {
  return template.replace(/%\((\w+)\)s/g, (_, key: string) => pythonStr(params[key]));
}

/** `str()` of a value as Python would print it inside a message. */
export function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return pythonRepr(value);
}

/** `repr()` of JSON-like values: `'a'`, `['a', 'b']`, `{'k': 1}`. */
export function pythonRepr(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`)
      .join(', ')}}`;
  }
  return pythonStr(value);
}

export type ErrorFactory<P extends Params = Params> = ((params: P) => NeutronError) & {
  readonly type: string;
  readonly status: number;
};

/** Declares one Neutron exception class: `NetworkNotFound({net_id})` builds the error. */
export function define<P extends Params = Params>(type: string, base: ErrorBase, template: string): ErrorFactory<P> {
  const status = BASE_STATUS[base];
  const factory = (params: P) => new NeutronError(type, status, formatTemplate(template, params));
  return Object.assign(factory, { type, status });
}

// ---- generic ---------------------------------------------------------------------------------

export const BadRequest = define<{ resource: string; msg: string }>(
  'BadRequest',
  'BadRequest',
  'Bad %(resource)s request: %(msg)s.',
);
export const InvalidInput = define<{ error_message: string }>(
  'InvalidInput',
  'BadRequest',
  'Invalid input for operation: %(error_message)s.',
);
export const AdminRequired = define<{ reason: string }>(
  'AdminRequired',
  'NotAuthorized',
  'User does not have admin privileges: %(reason)s.',
);
/** `rule` is the printed rule tree: `rule:get_x` or `(rule:create_x and rule:create_x:attr)`. */
export const PolicyNotAuthorized = define<{ rule: string }>(
  'PolicyNotAuthorized',
  'NotAuthorized',
  '%(rule)s is disallowed by policy',
);
export const ServiceUnavailable = define('ServiceUnavailable', 'ServiceUnavailable', 'The service is unavailable.');
/**
 * What the store throws when the database cannot do the work (down, frozen, full, read-only, locked
 * past the retry budget); the API answers it as `ServiceUnavailable` with `Retry-After`.
 */
export { DatabaseUnavailable } from '../store/dialect.js';

/** A webob HTTP error raised directly: the type is the webob class name. */
export function httpError(base: ErrorBase & `HTTP${string}`, message: string, detail = ''): NeutronError {
  return new NeutronError(base, BASE_STATUS[base], message, detail);
}

export const HTTPBadRequest = (message: string) => httpError('HTTPBadRequest', message);
export const HTTPNotFound = (message = 'The resource could not be found.') => httpError('HTTPNotFound', message);
/** 412 for a stale `If-Match: revision_number=N`. */
export const RevisionNumberConstraintFailed = (expected: number, current: number) =>
  new NeutronError(
    'RevisionNumberConstraintFailed',
    412,
    `Constrained to ${expected}, but current revision is ${current}`,
  );

// ---- networks, subnets, ports and IPAM ----
export const NetworkNotFound = define<{ net_id: unknown }>(
  'NetworkNotFound',
  'NotFound',
  'Network %(net_id)s could not be found.',
);
export const RbacPolicyNotFound = define<{ id: unknown; object_type: unknown }>(
  'RbacPolicyNotFound',
  'NotFound',
  'RBAC policy of type %(object_type)s with ID %(id)s not found',
);
export const RbacPolicyInUse = define<{ object_id: unknown; details: unknown }>(
  'RbacPolicyInUse',
  'Conflict',
  'RBAC policy on object %(object_id)s cannot be removed because other objects depend on it.\nDetails: %(details)s',
);
export const DuplicateRbacPolicy = define(
  'DuplicateRbacPolicy',
  'Conflict',
  'An RBAC policy already exists with those values.',
);
export const AgentNotFound = define<{ id: unknown }>('AgentNotFound', 'NotFound', 'Agent %(id)s could not be found.');
export const SubnetPoolNotFound = define<{ subnetpool_id: unknown }>(
  'SubnetPoolNotFound',
  'NotFound',
  'Subnet pool %(subnetpool_id)s could not be found.',
);
export const SubnetNotFound = define<{ subnet_id: unknown }>(
  'SubnetNotFound',
  'NotFound',
  'Subnet %(subnet_id)s could not be found.',
);
export const PortNotFound = define<{ port_id: unknown }>(
  'PortNotFound',
  'NotFound',
  'Port %(port_id)s could not be found.',
);
export const NetworkInUse = define<{ net_id: unknown; reason: unknown }>(
  'NetworkInUse',
  'InUse',
  'Unable to complete operation on network %(net_id)s. %(reason)s.',
);
export const SubnetInUse = define<{ subnet_id: unknown; reason: unknown }>(
  'SubnetInUse',
  'InUse',
  'Unable to complete operation on subnet %(subnet_id)s: %(reason)s.',
);
export const PortInUse = define<{ port_id: unknown; net_id: unknown; device_id: unknown }>(
  'PortInUse',
  'InUse',
  'Unable to complete operation on port %(port_id)s for network %(net_id)s. Port already has an attached device %(device_id)s.',
);
export const ServicePortInUse = define<{ port_id: unknown; reason: unknown }>(
  'ServicePortInUse',
  'InUse',
  'Port %(port_id)s cannot be deleted directly via the port API: %(reason)s.',
);
export const IpAddressAlreadyAllocated = define<{ ip: unknown; subnet_id: unknown }>(
  'IpAddressAlreadyAllocated',
  'Conflict',
  'IP address %(ip)s already allocated in subnet %(subnet_id)s',
);
export const MacAddressInUse = define<{ net_id: unknown; mac: unknown }>(
  'MacAddressInUse',
  'InUse',
  'Unable to complete operation for network %(net_id)s. The mac address %(mac)s is in use.',
);
/** No subnet of the network had a free address (neutron_lib's variant). */
export const IpAddressGenerationFailure = define<{ net_id: unknown }>(
  'IpAddressGenerationFailure',
  'Conflict',
  'No more IP addresses available on network %(net_id)s.',
);
export const IpAddressGenerationFailureNoMatchingSubnet = define<{ network_id: unknown; service_type: unknown }>(
  'IpAddressGenerationFailureNoMatchingSubnet',
  'Conflict',
  'No valid service subnet for the given device owner, network %(network_id)s, service type %(service_type)s.',
);
export const InvalidIpForSubnet = define<{ ip_address: unknown }>(
  'InvalidIpForSubnet',
  'BadRequest',
  'IP address %(ip_address)s is not a valid IP for the specified subnet.',
);
export const InvalidIpForNetwork = define<{ ip_address: unknown }>(
  'InvalidIpForNetwork',
  'BadRequest',
  'IP address %(ip_address)s is not a valid IP for any of the subnets on the specified network.',
);
export const InvalidAllocationPool = define<{ pool: unknown }>(
  'InvalidAllocationPool',
  'BadRequest',
  'The allocation pool %(pool)s is not valid.',
);
export const OutOfBoundsAllocationPool = define<{ pool: unknown; subnet_cidr: unknown }>(
  'OutOfBoundsAllocationPool',
  'BadRequest',
  'The allocation pool %(pool)s spans beyond the subnet cidr %(subnet_cidr)s.',
);
export const OverlappingAllocationPools = define<{ pool_1: unknown; pool_2: unknown; subnet_cidr: unknown }>(
  'OverlappingAllocationPools',
  'Conflict',
  'Found overlapping allocation pools: %(pool_1)s %(pool_2)s for subnet %(subnet_cidr)s.',
);
export const GatewayConflictWithAllocationPools = define<{ ip_address: unknown; pool: unknown }>(
  'GatewayConflictWithAllocationPools',
  'InUse',
  'Gateway ip %(ip_address)s conflicts with allocation pool %(pool)s.',
);
export const GatewayIpInUse = define<{ ip_address: unknown; port_id: unknown }>(
  'GatewayIpInUse',
  'InUse',
  'Current gateway ip %(ip_address)s already in use by port %(port_id)s. Unable to update.',
);
export const DNSNameServersExhausted = define<{ subnet_id: unknown; quota: unknown }>(
  'DNSNameServersExhausted',
  'BadRequest',
  'Unable to complete operation for %(subnet_id)s. The number of DNS nameservers exceeds the limit %(quota)s.',
);
export const HostRoutesExhausted = define<{ subnet_id: unknown; quota: unknown }>(
  'HostRoutesExhausted',
  'BadRequest',
  'Unable to complete operation for %(subnet_id)s. The number of host routes exceeds the limit %(quota)s.',
);
export const NetworkMTUSubnetConflict = define<{ net_id: unknown; mtu: unknown }>(
  'NetworkMTUSubnetConflict',
  'Conflict',
  'MTU of %(net_id)s is not valid, subnet requires a minimum of %(mtu)s',
);
export const InvalidSharedSetting = define<{ network: unknown }>(
  'InvalidSharedSetting',
  'Conflict',
  'Unable to reconfigure sharing settings for network %(network)s. Multiple projects are using it.',
);
export const DefaultExternalNetworkExists = define<{ net_id: unknown }>(
  'DefaultExternalNetworkExists',
  'Conflict',
  'A default external network already exists: %(net_id)s.',
);

export const ExternalNetworkInUse = define<{ net_id: unknown }>(
  'ExternalNetworkInUse',
  'InUse',
  'External network %(net_id)s cannot be updated to be made non-external, since it has existing gateway ports.',
);
export const InvalidSubnetServiceType = define<{ service_type: unknown }>(
  'InvalidSubnetServiceType',
  'BadRequest',
  'Subnet service type %(service_type)s does not correspond to a valid device owner.',
);
export const InvalidInputSubnetServiceType = define<{ service_type: unknown }>(
  'InvalidInputSubnetServiceType',
  'BadRequest',
  'Subnet service type %(service_type)s is not a string.',
);
export const PortBound = define<{ port_id: unknown; vif_type: unknown; old_mac: unknown; new_mac: unknown }>(
  'PortBound',
  'InUse',
  'Unable to complete operation on port %(port_id)s, port is already bound, port type: %(vif_type)s, old_mac %(old_mac)s, new_mac %(new_mac)s.',
);
export const AllocationOnAutoAddressSubnet = define<{ ip: unknown; subnet_id: unknown }>(
  'AllocationOnAutoAddressSubnet',
  'BadRequest',
  'IPv6 address %(ip)s cannot be directly assigned to a port on subnet %(subnet_id)s as the subnet is configured for automatic addresses',
);
export const InvalidCIDR = define<{ input: unknown }>(
  'InvalidCIDR',
  'BadRequest',
  'Invalid CIDR %(input)s given as IP prefix.',
);
export const AvailabilityZoneNotFound = define<{ availability_zone: unknown }>(
  'AvailabilityZoneNotFound',
  'NotFound',
  'AvailabilityZone %(availability_zone)s could not be found.',
);

// ---- provider networks and segment allocation ----
export const NoNetworkAvailable = define<Record<string, never>>(
  'NoNetworkAvailable',
  'ServiceUnavailable',
  'Unable to create the network. No project network is available for allocation.',
);
export const VlanIdInUse = define<{ vlan_id: unknown; physical_network: unknown }>(
  'VlanIdInUse',
  'InUse',
  'Unable to create the network. The VLAN %(vlan_id)s on physical network %(physical_network)s is in use.',
);
export const TunnelIdInUse = define<{ tunnel_id: unknown }>(
  'TunnelIdInUse',
  'InUse',
  'Unable to create the network. The tunnel ID %(tunnel_id)s is in use.',
);
export const FlatNetworkInUse = define<{ physical_network: unknown }>(
  'FlatNetworkInUse',
  'InUse',
  'Unable to create the flat network. Physical network %(physical_network)s is in use.',
);

// ---- port security and allowed address pairs ----
export const PortSecurityAndIPRequiredForSecurityGroups = define<Record<string, never>>(
  'PortSecurityAndIPRequiredForSecurityGroups',
  'BadRequest',
  'Port security must be enabled and port must have an IP address in order to use security groups.',
);
export const PortSecurityPortHasSecurityGroup = define<Record<string, never>>(
  'PortSecurityPortHasSecurityGroup',
  'InUse',
  'Port has security group associated. Cannot disable port security or IP address until security group is removed.',
);
export const AddressPairAndPortSecurityRequired = define<Record<string, never>>(
  'AddressPairAndPortSecurityRequired',
  'Conflict',
  'Port Security must be enabled in order to have allowed address pairs on a port.',
);
export const AllowedAddressPairExhausted = define<{ quota: unknown }>(
  'AllowedAddressPairExhausted',
  'BadRequest',
  'The number of allowed address pair exceeds the maximum %(quota)s.',
);
export const AllowedAddressPairsMissingIP = define<Record<string, never>>(
  'AllowedAddressPairsMissingIP',
  'BadRequest',
  'AllowedAddressPair must contain ip_address',
);
export const DuplicateAddressPairInRequest = define<{ mac_address: unknown; ip_address: unknown }>(
  'DuplicateAddressPairInRequest',
  'BadRequest',
  'Request contains duplicate address pair: mac_address %(mac_address)s ip_address %(ip_address)s.',
);

// ---- security groups and rules ----
export const SecurityGroupNotFound = define<{ id: unknown }>(
  'SecurityGroupNotFound',
  'NotFound',
  'Security group %(id)s does not exist',
);
export const SecurityGroupRuleNotFound = define<{ id: unknown }>(
  'SecurityGroupRuleNotFound',
  'NotFound',
  'Security group rule %(id)s does not exist',
);
export const SecurityGroupInUse = define<{ id: unknown; reason: unknown }>(
  'SecurityGroupInUse',
  'InUse',
  'Security Group %(id)s %(reason)s.',
);
export const SecurityGroupCannotRemoveDefault = define<Record<string, never>>(
  'SecurityGroupCannotRemoveDefault',
  'InUse',
  'Insufficient rights for removing default security group.',
);
export const SecurityGroupCannotUpdateDefault = define<Record<string, never>>(
  'SecurityGroupCannotUpdateDefault',
  'InUse',
  'Updating default security group not allowed.',
);
export const SecurityGroupDefaultAlreadyExists = define<Record<string, never>>(
  'SecurityGroupDefaultAlreadyExists',
  'InUse',
  'Default security group already exists.',
);
export const SecurityGroupRuleExists = define<{ rule_id: unknown }>(
  'SecurityGroupRuleExists',
  'InUse',
  'Security group rule already exists. Rule id is %(rule_id)s.',
);
export const DuplicateSecurityGroupRuleInPost = define<Record<string, never>>(
  'DuplicateSecurityGroupRuleInPost',
  'InUse',
  'Duplicate Security Group Rule in POST.',
);
export const SecurityGroupRuleInvalidProtocol = define<{ protocol: unknown; values: unknown }>(
  'SecurityGroupRuleInvalidProtocol',
  'BadRequest',
  'Security group rule protocol %(protocol)s not supported. Only protocol values %(values)s and integer representations [0 to 255] are supported.',
);
export const SecurityGroupRuleInvalidEtherType = define<{ ethertype: unknown; values: unknown }>(
  'SecurityGroupRuleInvalidEtherType',
  'BadRequest',
  "Security group rule for ethertype '%(ethertype)s' not supported. Allowed values are %(values)s.",
);
export const SecurityGroupEthertypeConflictWithProtocol = define<{ ethertype: unknown; protocol: unknown }>(
  'SecurityGroupEthertypeConflictWithProtocol',
  'BadRequest',
  'Invalid ethertype %(ethertype)s for protocol %(protocol)s.',
);
export const SecurityGroupProtocolRequiredWithPorts = define<Record<string, never>>(
  'SecurityGroupProtocolRequiredWithPorts',
  'BadRequest',
  'Must also specify protocol if port range is given.',
);
export const SecurityGroupInvalidPortRange = define<Record<string, never>>(
  'SecurityGroupInvalidPortRange',
  'BadRequest',
  'For TCP/UDP protocols, port_range_min must be <= port_range_max',
);
export const SecurityGroupInvalidPortValue = define<{ port: unknown }>(
  'SecurityGroupInvalidPortValue',
  'BadRequest',
  'Invalid value for port %(port)s',
);
export const SecurityGroupInvalidIcmpValue = define<{ field: unknown; attr: unknown; value: unknown }>(
  'SecurityGroupInvalidIcmpValue',
  'BadRequest',
  'Invalid value for ICMP %(field)s (%(attr)s) %(value)s. It must be 0 to 255.',
);
export const SecurityGroupMissingIcmpType = define<{ value: unknown }>(
  'SecurityGroupMissingIcmpType',
  'BadRequest',
  'ICMP code (port-range-max) %(value)s is provided but ICMP type (port-range-min) is missing.',
);
export const SecurityGroupInvalidProtocolForPort = define<{ protocol: unknown; valid_port_protocols: unknown }>(
  'SecurityGroupInvalidProtocolForPort',
  'BadRequest',
  'Ports cannot be specified for protocol %(protocol)s. Ports are only supported for %(valid_port_protocols)s.',
);
export const SecurityGroupMultipleRemoteEntites = define<Record<string, never>>(
  'SecurityGroupMultipleRemoteEntites',
  'BadRequest',
  'Only one of remote_ip_prefix or remote_group_id or remote_address_group_id may be provided.',
);
export const SecurityGroupRuleParameterConflict = define<{ ethertype: unknown; cidr: unknown }>(
  'SecurityGroupRuleParameterConflict',
  'BadRequest',
  'Conflicting value ethertype %(ethertype)s for CIDR %(cidr)s',
);
export const SecurityGroupNotSingleGroupRules = define<Record<string, never>>(
  'SecurityGroupNotSingleGroupRules',
  'BadRequest',
  'Only allowed to update rules for one security profile at a time',
);
export const SecurityGroupRulesNotSingleProject = define<Record<string, never>>(
  'SecurityGroupRulesNotSingleProject',
  'BadRequest',
  'Multiple project_ids in bulk security group rule create not allowed',
);
/** Octonet serves no address groups, so a rule naming one always gets this. */
export const AddressGroupNotFound = define<{ address_group_id: unknown }>(
  'AddressGroupNotFound',
  'NotFound',
  'Address group %(address_group_id)s could not be found.',
);

// ---- quotas ----
export const OverQuota = define<{ overs: unknown }>(
  'OverQuota',
  'Conflict',
  'Quota exceeded for resources: %(overs)s.',
);
export const TenantQuotaNotFound = define<{ tenant_id: unknown }>(
  'TenantQuotaNotFound',
  'NotFound',
  'Quota for project %(tenant_id)s could not be found.',
);
export const QuotaMissingTenant = define<Record<string, never>>(
  'QuotaMissingTenant',
  'BadRequest',
  'Tenant-id was missing from quota request.',
);

// ---- tags ----
export const TagNotFound = define<{ tag: unknown }>('TagNotFound', 'NotFound', 'Tag %(tag)s could not be found.');
export const TagResourceNotFound = define<{ resource: unknown; resource_id: unknown }>(
  'TagResourceNotFound',
  'NotFound',
  'Resource %(resource)s %(resource_id)s could not be found.',
);

// ---- routers, extra routes and floating IPs (neutron_lib/exceptions/l3.py, extraroute.py) ----
export const RouterNotFound = define<{ router_id: unknown }>(
  'RouterNotFound',
  'NotFound',
  'Router %(router_id)s could not be found',
);
export const RouterInUse = define<{ router_id: unknown; reason: unknown }>(
  'RouterInUse',
  'InUse',
  'Router %(router_id)s %(reason)s',
);
export const RouterInterfaceNotFound = define<{ router_id: unknown; port_id: unknown }>(
  'RouterInterfaceNotFound',
  'NotFound',
  'Router %(router_id)s does not have an interface with id %(port_id)s',
);
export const RouterInterfaceNotFoundForSubnet = define<{ router_id: unknown; subnet_id: unknown }>(
  'RouterInterfaceNotFoundForSubnet',
  'NotFound',
  'Router %(router_id)s has no interface on subnet %(subnet_id)s',
);
export const RouterInterfaceInUseByFloatingIP = define<{ router_id: unknown; subnet_id: unknown }>(
  'RouterInterfaceInUseByFloatingIP',
  'InUse',
  'Router interface for subnet %(subnet_id)s on router %(router_id)s cannot be deleted, as it is required by one or more floating IPs.',
);
export const RouterInterfaceInUseByRoute = define<{ router_id: unknown; subnet_id: unknown }>(
  'RouterInterfaceInUseByRoute',
  'InUse',
  'Router interface for subnet %(subnet_id)s on router %(router_id)s cannot be deleted, as it is required by one or more routes.',
);
export const RouterExternalGatewayInUseByFloatingIp = define<{ router_id: unknown; net_id: unknown }>(
  'RouterExternalGatewayInUseByFloatingIp',
  'InUse',
  'Gateway cannot be updated for router %(router_id)s, since a gateway to external network %(net_id)s is required by one or more floating IPs.',
);
export const SubnetMismatchForPort = define<{ port_id: unknown; subnet_id: unknown }>(
  'SubnetMismatchForPort',
  'BadRequest',
  'Subnet on port %(port_id)s does not match the requested subnet %(subnet_id)s.',
);
export const InvalidRoutes = define<{ routes: unknown; reason: unknown }>(
  'InvalidRoutes',
  'BadRequest',
  'Invalid format for routes: %(routes)s, %(reason)s',
);
export const FloatingIPNotFound = define<{ floatingip_id: unknown }>(
  'FloatingIPNotFound',
  'NotFound',
  'Floating IP %(floatingip_id)s could not be found',
);
export const ExternalGatewayForFloatingIPNotFound = define<{
  external_network_id: unknown;
  subnet_id: unknown;
  port_id: unknown;
}>(
  'ExternalGatewayForFloatingIPNotFound',
  'NotFound',
  'External network %(external_network_id)s is not reachable from subnet %(subnet_id)s.  Therefore, cannot associate Port %(port_id)s with a Floating IP.',
);
export const FloatingIPPortAlreadyAssociated = define<{
  floating_ip_address: unknown;
  fip_id: unknown;
  port_id: unknown;
  fixed_ip: unknown;
  net_id: unknown;
}>(
  'FloatingIPPortAlreadyAssociated',
  'InUse',
  'Cannot associate floating IP %(floating_ip_address)s (%(fip_id)s) with port %(port_id)s using fixed IP %(fixed_ip)s, as that fixed IP already has a floating IP on external network %(net_id)s.',
);
export const ExternalIpAddressExhausted = define<{ net_id: unknown }>(
  'ExternalIpAddressExhausted',
  'BadRequest',
  'Unable to find any IP address on external network %(net_id)s.',
);

// ---- the L3 agent scheduler (neutron/extensions/l3agentscheduler.py) ----
export const InvalidL3Agent = define<{ id: unknown }>(
  'InvalidL3Agent',
  'NotFound',
  'Agent %(id)s is not a L3 Agent or has been disabled',
);
export const RouterHostedByL3Agent = define<{ router_id: unknown; agent_id: unknown }>(
  'RouterHostedByL3Agent',
  'Conflict',
  'The router %(router_id)s has been already hosted by the L3 Agent %(agent_id)s.',
);
export const RouterNotHostedByL3Agent = define<{ router_id: unknown; agent_id: unknown }>(
  'RouterNotHostedByL3Agent',
  'Conflict',
  'The router %(router_id)s is not hosted by the L3 Agent %(agent_id)s.',
);

// ---- subnet pools (neutron_lib/exceptions/__init__.py) ----
export const SubnetPoolInUse = define<{ subnet_pool_id: unknown; reason: unknown }>(
  'SubnetPoolInUse',
  'InUse',
  'Unable to complete operation on subnet pool %(subnet_pool_id)s. %(reason)s.',
);
export const PrefixVersionMismatch = define(
  'PrefixVersionMismatch',
  'BadRequest',
  'Cannot mix IPv4 and IPv6 prefixes in a subnet pool.',
);
export const IllegalSubnetPoolPrefixBounds = define<{
  prefix_type: unknown;
  prefixlen: unknown;
  base_prefix_type: unknown;
  base_prefixlen: unknown;
}>(
  'IllegalSubnetPoolPrefixBounds',
  'BadRequest',
  'Illegal prefix bounds: %(prefix_type)s=%(prefixlen)s, %(base_prefix_type)s=%(base_prefixlen)s.',
);
export const IllegalSubnetPoolPrefixUpdate = define<{ msg: unknown }>(
  'IllegalSubnetPoolPrefixUpdate',
  'BadRequest',
  'Illegal update to prefixes: %(msg)s.',
);
export const MinPrefixSubnetAllocationError = define<{ prefixlen: unknown; min_prefixlen: unknown }>(
  'MinPrefixSubnetAllocationError',
  'BadRequest',
  'Unable to allocate subnet with prefix length %(prefixlen)s, minimum allowed prefix is %(min_prefixlen)s.',
);
export const MaxPrefixSubnetAllocationError = define<{ prefixlen: unknown; max_prefixlen: unknown }>(
  'MaxPrefixSubnetAllocationError',
  'BadRequest',
  'Unable to allocate subnet with prefix length %(prefixlen)s, maximum allowed prefix is %(max_prefixlen)s.',
);
/** Neutron raises it as a bare NeutronException (a 500); a full pool is the client's conflict here. */
export const SubnetAllocationError = define<{ reason: unknown }>(
  'SubnetAllocationError',
  'Conflict',
  'Failed to allocate subnet: %(reason)s.',
);

// ---- port bindings (binding-extended; neutron_lib/exceptions/__init__.py) ----
export const PortBindingNotFound = define<{ port_id: unknown; host: unknown }>(
  'PortBindingNotFound',
  'NotFound',
  'Binding for port %(port_id)s for host %(host)s could not be found.',
);
export const PortBindingAlreadyActive = define<{ port_id: unknown; host: unknown }>(
  'PortBindingAlreadyActive',
  'Conflict',
  'Binding for port %(port_id)s on host %(host)s is already active.',
);
export const PortBindingAlreadyExists = define<{ port_id: unknown; host: unknown }>(
  'PortBindingAlreadyExists',
  'Conflict',
  'Binding for port %(port_id)s on host %(host)s already exists.',
);
/** No driver could bind the port on that host: Neutron's 500, and so here too (Nova expects it). */
export const PortBindingError = define<{ port_id: unknown; host: unknown }>(
  'PortBindingError',
  'NeutronException',
  'Binding for port %(port_id)s on host %(host)s could not be created or updated.',
);

// ---- the DHCP agent scheduler (neutron_lib/exceptions/dhcpagentscheduler.py) ----
export const InvalidDHCPAgent = define<{ id: unknown }>(
  'InvalidDHCPAgent',
  'NotFound',
  'Agent %(id)s is not a valid DHCP Agent or has been disabled.',
);
export const NetworkNotHostedByDhcpAgent = define<{ network_id: unknown; agent_id: unknown }>(
  'NetworkNotHostedByDhcpAgent',
  'Conflict',
  'The network %(network_id)s is not hosted by the DHCP Agent %(agent_id)s.',
);

/**
 * Neutron's default policy (master, `enforce_new_defaults`), as one table a reader can audit.
 *
 * Each entry is a rule name from `neutron/conf/policies/*.py` and its check, written with the
 * vocabulary below. A name that is not in the table falls back to DEFAULT (admin or owner), as
 * oslo.policy does. Roles are taken literally: Keystone expands implied roles
 * (admin ⇒ manager ⇒ member ⇒ reader) into the token, and noauth mode does the same.
 */
import type { RequestContext } from '../core/context.js';
import type { PolicyTarget } from '../core/authorizer.js';

export type Check = (ctx: RequestContext, target: PolicyTarget) => boolean;

const role =
  (name: string): Check =>
  (ctx) =>
    ctx.roles.includes(name);

const ownerOf =
  (field: string): Check =>
  (ctx, t) =>
    ctx.projectId !== null && t[field] === ctx.projectId;

const both =
  (...checks: Check[]): Check =>
  (ctx, t) =>
    checks.every((c) => c(ctx, t));
const either =
  (...checks: Check[]): Check =>
  (ctx, t) =>
    checks.some((c) => c(ctx, t));
const not =
  (check: Check): Check =>
  (ctx, t) =>
    !check(ctx, t);

// ---- the vocabulary (policy.md §1) ------------------------------------------------------------
export const ADMIN = role('admin');
export const SERVICE = role('service');
const ADVSVC = role('advsvc');
const READER_ANY = role('reader');
const PROJECT_READER = both(role('reader'), ownerOf('project_id'));
const PROJECT_MEMBER = both(role('member'), ownerOf('project_id'));
const PROJECT_MANAGER = both(role('manager'), ownerOf('project_id'));
const NET_OWNER_READER = both(role('reader'), ownerOf('network:project_id'));
const NET_OWNER_MEMBER = both(role('member'), ownerOf('network:project_id'));
const NET_OWNER_MANAGER = both(role('manager'), ownerOf('network:project_id'));
const SG_OWNER_READER = both(role('reader'), ownerOf('security_group:project_id'));
const SG_OWNER_MEMBER = both(role('member'), ownerOf('security_group:project_id'));
const ADMIN_OR_SERVICE = either(ADMIN, SERVICE);
const ADMIN_OR_PROJECT_READER = either(ADMIN, PROJECT_READER);
const ADMIN_OR_PROJECT_MEMBER = either(ADMIN, PROJECT_MEMBER);
const ADMIN_OR_PROJECT_MANAGER = either(ADMIN, PROJECT_MANAGER);
const ADMIN_OR_NET_OWNER_READER = either(ADMIN, NET_OWNER_READER);
const ADMIN_OR_NET_OWNER_MEMBER = either(ADMIN, NET_OWNER_MEMBER);
/** The network is shared with the caller (`shared` on networks and subnets, `network:shared` on ports). */
const SHARED_NET: Check = (_ctx, t) => t.shared === true || t['network:shared'] === true;
const EXTERNAL_NET: Check = (_ctx, t) => t['router:external'] === true;
/** The resource itself says `shared` (security groups, subnet pools). */
const SHARED_FLAG: Check = (_ctx, t) => t.shared === true;
const NETWORK_DEVICE: Check = (_ctx, t) => typeof t.device_owner === 'string' && t.device_owner.startsWith('network:');

/** oslo's fallback for unregistered names: `rule:admin_or_owner`, no role needed. */
export const DEFAULT: Check = either(ADMIN, ownerOf('project_id'));

/**
 * A QoS rule type's rules, under its policy (`get_policy_bandwidth_limit_rule`) and on the
 * `qos-rules-alias` URL (`get_alias_bandwidth_limit_rule`): reading follows the policy (its owner
 * and sharing are the target), writing is an admin's.
 */
function qosRuleRules(names: readonly string[]): Record<string, Check> {
  const rules: Record<string, Check> = {};
  for (const stem of names.flatMap((name) => [`policy_${name}`, `alias_${name}`])) {
    rules[`get_${stem}`] = either(ADMIN_OR_PROJECT_READER, SHARED_FLAG);
    for (const action of ['create', 'update', 'delete']) rules[`${action}_${stem}`] = ADMIN;
  }
  return rules;
}

export const POLICY_RULES: Readonly<Record<string, Check>> = {
  // ---- networks (neutron/conf/policies/network.py) ----
  create_network: ADMIN_OR_PROJECT_MEMBER,
  'create_network:shared': ADMIN,
  'create_network:router:external': ADMIN,
  'create_network:is_default': ADMIN,
  'create_network:port_security_enabled': ADMIN_OR_PROJECT_MEMBER,
  'create_network:segments': ADMIN,
  'create_network:provider:network_type': ADMIN,
  'create_network:provider:physical_network': ADMIN,
  'create_network:provider:segmentation_id': ADMIN,
  'create_network:tags': ADMIN_OR_PROJECT_MEMBER,
  get_network: either(ADMIN_OR_PROJECT_READER, SERVICE, SHARED_NET, EXTERNAL_NET, ADVSVC),
  'get_network:segments': ADMIN,
  'get_network:provider:network_type': ADMIN,
  'get_network:provider:physical_network': ADMIN,
  'get_network:provider:segmentation_id': ADMIN,
  'get_network:tags': either(ADMIN_OR_PROJECT_READER, SHARED_NET, EXTERNAL_NET, ADVSVC),
  update_network: ADMIN_OR_PROJECT_MEMBER,
  'update_network:segments': ADMIN,
  'update_network:shared': ADMIN,
  'update_network:provider:network_type': ADMIN,
  'update_network:provider:physical_network': ADMIN,
  'update_network:provider:segmentation_id': ADMIN,
  'update_network:router:external': ADMIN,
  'update_network:is_default': ADMIN,
  'update_network:port_security_enabled': ADMIN_OR_PROJECT_MEMBER,
  'update_network:tags': ADMIN_OR_PROJECT_MEMBER,
  delete_network: ADMIN_OR_PROJECT_MEMBER,
  'delete_network:tags': ADMIN_OR_PROJECT_MEMBER,

  // ---- subnets (subnet.py) ----
  create_subnet: ADMIN_OR_NET_OWNER_MEMBER,
  'create_subnet:segment_id': ADMIN,
  'create_subnet:service_types': ADMIN,
  'create_subnet:tags': either(PROJECT_MEMBER, ADMIN_OR_NET_OWNER_MEMBER),
  get_subnet: either(PROJECT_READER, SHARED_NET, EXTERNAL_NET, ADMIN_OR_NET_OWNER_READER, SERVICE),
  'get_subnet:segment_id': ADMIN,
  'get_subnet:tags': either(PROJECT_READER, SHARED_NET, EXTERNAL_NET, ADMIN_OR_NET_OWNER_READER),
  update_subnet: either(PROJECT_MEMBER, ADMIN_OR_NET_OWNER_MEMBER),
  'update_subnet:segment_id': ADMIN,
  'update_subnet:service_types': ADMIN,
  'update_subnet:tags': either(PROJECT_MEMBER, ADMIN_OR_NET_OWNER_MEMBER),
  delete_subnet: either(PROJECT_MEMBER, ADMIN_OR_NET_OWNER_MEMBER),
  'delete_subnet:tags': either(PROJECT_MEMBER, ADMIN_OR_NET_OWNER_MEMBER),

  // ---- subnet pools (subnetpool.py): sharing a pool and making it the default are an admin's ----
  create_subnetpool: ADMIN_OR_PROJECT_MEMBER,
  'create_subnetpool:shared': ADMIN,
  'create_subnetpool:is_default': ADMIN,
  'create_subnetpool:tags': ADMIN_OR_PROJECT_MEMBER,
  get_subnetpool: either(ADMIN_OR_PROJECT_READER, SHARED_FLAG),
  'get_subnetpool:tags': either(ADMIN_OR_PROJECT_READER, SHARED_FLAG),
  update_subnetpool: ADMIN_OR_PROJECT_MEMBER,
  'update_subnetpool:is_default': ADMIN,
  'update_subnetpool:tags': ADMIN_OR_PROJECT_MEMBER,
  delete_subnetpool: ADMIN_OR_PROJECT_MEMBER,
  'delete_subnetpool:tags': ADMIN_OR_PROJECT_MEMBER,

  // ---- ports (port.py) ----
  create_port: either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER, SHARED_NET),
  'create_port:device_id': either(ADMIN_OR_PROJECT_MEMBER, SERVICE),
  'create_port:device_owner': either(not(NETWORK_DEVICE), ADMIN_OR_SERVICE, NET_OWNER_MEMBER),
  'create_port:mac_address': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER),
  'create_port:fixed_ips': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER, SHARED_NET),
  'create_port:fixed_ips:ip_address': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER),
  'create_port:fixed_ips:subnet_id': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER, SHARED_NET),
  'create_port:port_security_enabled': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER),
  'create_port:binding:host_id': ADMIN_OR_SERVICE,
  'create_port:binding:profile': SERVICE,
  'create_port:binding:vnic_type': either(ADMIN_OR_PROJECT_MEMBER, SERVICE),
  'create_port:allowed_address_pairs': either(ADMIN_OR_NET_OWNER_MEMBER, SERVICE),
  'create_port:allowed_address_pairs:mac_address': either(ADMIN_OR_NET_OWNER_MEMBER, SERVICE),
  'create_port:allowed_address_pairs:ip_address': either(ADMIN_OR_NET_OWNER_MEMBER, SERVICE),
  'create_port:tags': either(ADMIN_OR_PROJECT_MEMBER, ADVSVC),
  get_port: either(ADMIN_OR_SERVICE, NET_OWNER_READER, PROJECT_READER),
  'get_port:binding:vif_type': ADMIN_OR_SERVICE,
  'get_port:binding:vif_details': ADMIN_OR_SERVICE,
  'get_port:binding:host_id': ADMIN_OR_SERVICE,
  'get_port:binding:profile': ADMIN_OR_SERVICE,
  'get_port:resource_request': ADMIN,
  'get_port:tags': either(ADVSVC, ADMIN_OR_NET_OWNER_READER, PROJECT_READER),
  update_port: either(ADMIN_OR_SERVICE, PROJECT_MEMBER),
  'update_port:device_id': either(ADMIN_OR_PROJECT_MEMBER, SERVICE),
  'update_port:device_owner': either(not(NETWORK_DEVICE), ADMIN_OR_SERVICE, NET_OWNER_MEMBER),
  'update_port:mac_address': either(ADMIN_OR_SERVICE, NET_OWNER_MANAGER),
  'update_port:fixed_ips': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER),
  'update_port:fixed_ips:ip_address': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER),
  'update_port:fixed_ips:subnet_id': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER, SHARED_NET),
  'update_port:port_security_enabled': either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER),
  'update_port:binding:host_id': ADMIN_OR_SERVICE,
  'update_port:binding:profile': SERVICE,
  'update_port:binding:vnic_type': either(ADMIN_OR_SERVICE, PROJECT_MEMBER),
  'update_port:allowed_address_pairs': either(ADMIN_OR_NET_OWNER_MEMBER, SERVICE),
  'update_port:allowed_address_pairs:mac_address': either(ADMIN_OR_NET_OWNER_MEMBER, SERVICE),
  'update_port:allowed_address_pairs:ip_address': either(ADMIN_OR_NET_OWNER_MEMBER, SERVICE),
  'update_port:tags': either(ADMIN_OR_PROJECT_MEMBER, ADVSVC),
  delete_port: either(ADMIN_OR_SERVICE, NET_OWNER_MEMBER, PROJECT_MEMBER),
  'delete_port:tags': either(ADVSVC, PROJECT_MEMBER, ADMIN_OR_NET_OWNER_MEMBER),

  // ---- security groups (security_group.py) ----
  create_security_group: ADMIN_OR_PROJECT_MEMBER,
  get_security_group: either(ADMIN_OR_PROJECT_READER, SHARED_FLAG),
  update_security_group: ADMIN_OR_PROJECT_MEMBER,
  delete_security_group: ADMIN_OR_PROJECT_MEMBER,
  'create_security_group:tags': ADMIN_OR_PROJECT_MEMBER,
  'get_security_group:tags': either(ADMIN_OR_PROJECT_READER, SHARED_FLAG),
  'update_security_group:tags': ADMIN_OR_PROJECT_MEMBER,
  'delete_security_group:tags': ADMIN_OR_PROJECT_MEMBER,
  create_security_group_rule: either(ADMIN, SG_OWNER_MEMBER),
  get_security_group_rule: either(ADMIN, SG_OWNER_READER),
  delete_security_group_rule: either(ADMIN, SG_OWNER_MEMBER),

  // ---- quotas (quotas.py): the target is always the caller's own project ----
  get_quota: ADMIN_OR_PROJECT_MANAGER,
  update_quota: ADMIN,
  delete_quota: ADMIN,

  // ---- network IP availability, availability zones (network_ip_availability.py, availability_zone.py) ----
  get_network_ip_availability: ADMIN_OR_SERVICE,
  get_availability_zone: READER_ANY,

  // ---- RBAC policies (rbac.py): only an admin may share with everyone (`*`) ----
  create_rbac_policy: ADMIN_OR_PROJECT_MEMBER,
  'create_rbac_policy:target_tenant': either(ADMIN, (_ctx, t) => t.target_tenant !== '*'),
  update_rbac_policy: ADMIN_OR_PROJECT_MEMBER,
  'update_rbac_policy:target_tenant': either(ADMIN, (_ctx, t) => t.target_tenant !== '*'),
  get_rbac_policy: ADMIN_OR_PROJECT_READER,
  delete_rbac_policy: ADMIN_OR_PROJECT_MEMBER,

  // ---- routers (router.py): SNAT, fixed gateway addresses and the multihoming actions' details are an admin's ----
  create_router: ADMIN_OR_PROJECT_MEMBER,
  'create_router:external_gateway_info': ADMIN_OR_PROJECT_MEMBER,
  'create_router:external_gateway_info:network_id': ADMIN_OR_PROJECT_MEMBER,
  'create_router:external_gateway_info:enable_snat': ADMIN,
  'create_router:external_gateway_info:external_fixed_ips': ADMIN,
  'create_router:tags': ADMIN_OR_PROJECT_MEMBER,
  get_router: ADMIN_OR_PROJECT_READER,
  'get_router:tags': ADMIN_OR_PROJECT_READER,
  update_router: ADMIN_OR_PROJECT_MEMBER,
  'update_router:external_gateway_info': ADMIN_OR_PROJECT_MEMBER,
  'update_router:external_gateway_info:network_id': ADMIN_OR_PROJECT_MEMBER,
  'update_router:external_gateway_info:enable_snat': ADMIN,
  'update_router:external_gateway_info:external_fixed_ips': ADMIN,
  'update_router:tags': ADMIN_OR_PROJECT_MEMBER,
  delete_router: ADMIN_OR_PROJECT_MEMBER,
  'delete_router:tags': ADMIN_OR_PROJECT_MEMBER,
  add_router_interface: ADMIN_OR_PROJECT_MEMBER,
  remove_router_interface: ADMIN_OR_PROJECT_MEMBER,
  add_extraroutes: ADMIN_OR_PROJECT_MEMBER,
  remove_extraroutes: ADMIN_OR_PROJECT_MEMBER,

  // ---- floating IPs (floatingip.py): choosing the address is a manager's ----
  create_floatingip: ADMIN_OR_PROJECT_MEMBER,
  'create_floatingip:floating_ip_address': ADMIN_OR_PROJECT_MANAGER,
  'create_floatingip:tags': ADMIN_OR_PROJECT_MEMBER,
  get_floatingip: ADMIN_OR_PROJECT_READER,
  'get_floatingip:tags': ADMIN_OR_PROJECT_READER,
  update_floatingip: ADMIN_OR_PROJECT_MEMBER,
  'update_floatingip:tags': ADMIN_OR_PROJECT_MEMBER,
  delete_floatingip: ADMIN_OR_PROJECT_MEMBER,
  'delete_floatingip:tags': ADMIN_OR_PROJECT_MEMBER,

  // ---- QoS (qos.py): policies and rules are an admin's to write; who sees a policy sees its rules ----
  create_policy: ADMIN,
  get_policy: either(ADMIN_OR_PROJECT_READER, SHARED_FLAG),
  update_policy: ADMIN,
  delete_policy: ADMIN,
  // Zed checks no tag policy at all: whoever sees a policy (its project, or anyone once it is
  // shared) may tag it, though only an admin may update it; neutron-tempest-plugin's tag tests
  // have a member tag its own policy and an admin's shared one.
  'create_policy:tags': either(ADMIN_OR_PROJECT_MEMBER, SHARED_FLAG),
  'get_policy:tags': either(ADMIN_OR_PROJECT_READER, SHARED_FLAG),
  'update_policy:tags': either(ADMIN_OR_PROJECT_MEMBER, SHARED_FLAG),
  'delete_policy:tags': either(ADMIN_OR_PROJECT_MEMBER, SHARED_FLAG),
  get_rule_type: ADMIN,
  ...qosRuleRules(['bandwidth_limit_rule', 'dscp_marking_rule', 'minimum_bandwidth_rule']),

  // ---- address scopes (address_scope.py): sharing one is an admin's ----
  create_address_scope: ADMIN_OR_PROJECT_MEMBER,
  'create_address_scope:shared': ADMIN,
  get_address_scope: either(ADMIN_OR_PROJECT_READER, SHARED_FLAG),
  update_address_scope: ADMIN_OR_PROJECT_MEMBER,
  'update_address_scope:shared': ADMIN,
  delete_address_scope: ADMIN_OR_PROJECT_MEMBER,

  // ---- neutron-dynamic-routing (policies/bgp_speaker.py, bgp_peer.py, bgp_dragent.py): all an admin's ----
  create_bgp_speaker: ADMIN,
  update_bgp_speaker: ADMIN,
  delete_bgp_speaker: ADMIN,
  get_bgp_speaker: ADMIN,
  add_bgp_peer: ADMIN,
  remove_bgp_peer: ADMIN,
  add_gateway_network: ADMIN,
  remove_gateway_network: ADMIN,
  get_advertised_routes: ADMIN,
  create_bgp_peer: ADMIN,
  update_bgp_peer: ADMIN,
  delete_bgp_peer: ADMIN,
  get_bgp_peer: ADMIN,
  add_bgp_speaker_to_dragent: ADMIN,
  remove_bgp_speaker_from_dragent: ADMIN,
  list_bgp_speaker_on_dragent: ADMIN,
  list_dragent_hosting_bgp_speaker: ADMIN,
  // octonet's own: the hosted speaker with its peers' secrets, for the node's agent (n-d-r's RPC).
  get_bgp_dragent_speakers: SERVICE,

  // ---- agents (agent.py): an operator's view of the chassis ----
  get_agent: ADMIN,
  update_agent: ADMIN,
  delete_agent: ADMIN,
  // The L3 agent scheduler: where a router's gateway runs, and pinning it (the OVN gateway chassis).
  'get_l3-agents': ADMIN,
  'get_l3-routers': ADMIN,
  'create_l3-router': ADMIN,
  'delete_l3-router': ADMIN,
  // The DHCP agent scheduler's URLs (served without DHCP agents: OVN's DHCP is native).
  'get_dhcp-agents': ADMIN,
  'get_dhcp-networks': ADMIN,
  'create_dhcp-network': ADMIN,
  'delete_dhcp-network': ADMIN,

  // ---- port bindings (port_bindings.py): Nova's, during a live migration; Zed's admin or the service role ----
  get_port_binding: ADMIN_OR_SERVICE,
  create_port_binding: ADMIN_OR_SERVICE,
  update_port_binding: ADMIN_OR_SERVICE,
  delete_port_binding: ADMIN_OR_SERVICE,
  activate: ADMIN_OR_SERVICE,
};

/**
 * Builds every core service from one set of dependencies. The wiring lives here, in one place,
 * so a reader sees which service uses which.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { DriverManager, type MechanismDriver } from '../drivers/contract.js';
import type { Store } from '../store/database.js';
import type { Authorizer } from './authorizer.js';
import type { CoreDeps } from './deps.js';
import { NetworkService } from './networks/service.js';
import { PortService } from './ports/service.js';
import { PortBindingService } from './ports/bindings.js';
import { SubnetService } from './subnets/service.js';
import { SecurityGroupRuleService } from './security-groups/rule-service.js';
import { SecurityGroupService } from './security-groups/service.js';
import { parseSegmentConfig } from './networks/segments.js';
import { QuotaEngine } from './quotas/engine.js';
import { QuotaSetService } from './quotas/service.js';
import { AvailabilityZoneService } from './availability-zones.js';
import { AgentService } from './agents.js';
import { DhcpAgentScheduler } from './dhcp-agents.js';
import { RbacPolicyService } from './rbac/service.js';
import { IpAvailabilityService } from './ip-availability/service.js';
import type { ResourceService } from './resource.js';
import { TagService } from './tags/service.js';
import { RouterService } from './routers/service.js';
import { L3AgentScheduler } from './routers/l3-agents.js';
import { FloatingIpService } from './floatingips/service.js';
import { SubnetPoolService } from './subnetpools/service.js';
import { AddressScopeService } from './address-scopes/service.js';
import { BgpSpeakerService } from './bgp/speakers.js';
import { BgpPeerService } from './bgp/peers.js';
import { BgpDrAgentScheduler } from './bgp/dragents.js';
import { QosPolicyService } from './qos/service.js';
import { QosRuleService } from './qos/rule-service.js';
import { QosBindings } from './qos/bindings.js';

export interface Services {
  readonly deps: CoreDeps;
  readonly networks: NetworkService;
  readonly subnets: SubnetService;
  readonly ports: PortService;
  /** A port's bindings besides its active one (`binding-extended`, live migration). */
  readonly portBindings: PortBindingService;
  readonly securityGroups: SecurityGroupService;
  readonly securityGroupRules: SecurityGroupRuleService;
  readonly quotas: QuotaEngine;
  /** The quotas API (limits, defaults, details); `quotas` enforces them. */
  readonly quotaSets: QuotaSetService;
  readonly availabilityZones: AvailabilityZoneService;
  readonly agents: AgentService;
  /** The DHCP agent scheduler's URLs, served with no DHCP agents (OVN's DHCP is native). */
  readonly dhcpAgents: DhcpAgentScheduler;
  readonly ipAvailability: IpAvailabilityService;
  readonly tags: TagService;
  readonly routers: RouterService;
  readonly floatingIps: FloatingIpService;
  /** Where routers' gateways run (`/routers/<id>/l3-agents`, `/agents/<id>/l3-routers`). */
  readonly l3Agents: L3AgentScheduler;
  readonly addressScopes: AddressScopeService;
  readonly bgpSpeakers: BgpSpeakerService;
  readonly bgpPeers: BgpPeerService;
  /** Which DR agent hosts which speaker (`/agents/<id>/bgp-drinstances`, `/bgp-speakers/<id>/bgp-dragents`). */
  readonly bgpDrAgents: BgpDrAgentScheduler;
  /** QoS rules under their policies, the alias URLs and the rule types (the policies are in `resources`). */
  readonly qosRules: QosRuleService;
  /** Every collection served with the generic routes, in registration order. */
  readonly resources: readonly ResourceService[];
}

export function createServices(options: {
  store: Store;
  config: Config;
  authz: Authorizer;
  logger: Logger;
  drivers?: readonly MechanismDriver[];
}): Services {
  const deps: CoreDeps = {
    store: options.store,
    config: options.config,
    segments: parseSegmentConfig(options.config.network),
    authz: options.authz,
    quotas: new QuotaEngine(options.store, options.config.quotas),
    drivers: new DriverManager(options.drivers),
    logger: options.logger,
  };
  const qosPolicies = new QosPolicyService(deps);
  const qosBindings = new QosBindings(qosPolicies);
  const networks = new NetworkService(deps, qosBindings);
  const addressScopes = new AddressScopeService(deps);
  const subnetPools = new SubnetPoolService(deps, addressScopes);
  const subnets = new SubnetService(deps, subnetPools);
  const ports = new PortService(deps, networks, qosBindings);
  const securityGroups = new SecurityGroupService(deps);
  const securityGroupRules = new SecurityGroupRuleService(deps);
  const routers = new RouterService(deps, networks, subnets, ports);
  const floatingIps = new FloatingIpService(deps, networks, ports);
  const agents = new AgentService(deps.authz, () => deps.drivers.agents);
  const bgpSpeakers: BgpSpeakerService = new BgpSpeakerService(deps, (id) => bgpDrAgents.scheduleSpeaker(id));
  const bgpPeers = new BgpPeerService(deps);
  const bgpDrAgents = new BgpDrAgentScheduler(deps, bgpSpeakers, bgpPeers, agents);
  const tags = new TagService(deps, [
    { path: 'networks', table: 'networks', service: networks },
    { path: 'subnets', table: 'subnets', service: subnets },
    { path: 'ports', table: 'ports', service: ports },
    { path: 'security-groups', table: 'security_groups', service: securityGroups },
    { path: 'routers', table: 'routers', service: routers },
    { path: 'floatingips', table: 'floatingips', service: floatingIps },
    { path: 'subnetpools', table: 'subnetpools', service: subnetPools },
    { path: 'qos/policies', table: 'qos_policies', service: qosPolicies },
    // Neutron's tag extension hangs tags off the bare collection name: `/v2.0/policies/{id}/tags`
    // is where Zed serves a QoS policy's tags (neutron-tempest-plugin's test_tag uses it).
    { path: 'policies', table: 'qos_policies', service: qosPolicies },
  ]);
  const quotaSets = new QuotaSetService(deps);
  const availabilityZones = new AvailabilityZoneService(deps.authz);
  const ipAvailability = new IpAvailabilityService(deps.store, deps.authz);
  return {
    deps,
    networks,
    subnets,
    ports,
    portBindings: new PortBindingService(deps, ports),
    securityGroups,
    securityGroupRules,
    quotas: deps.quotas,
    quotaSets,
    availabilityZones,
    agents,
    dhcpAgents: new DhcpAgentScheduler(deps.authz, deps.store.db, networks, agents),
    ipAvailability,
    tags,
    routers,
    floatingIps,
    addressScopes,
    bgpSpeakers,
    bgpPeers,
    bgpDrAgents,
    qosRules: new QosRuleService(deps, qosPolicies),
    l3Agents: new L3AgentScheduler(deps, routers, agents, () => deps.drivers.agents),
    resources: [
      networks,
      subnets,
      subnetPools,
      ports,
      securityGroups,
      securityGroupRules,
      new RbacPolicyService(deps, networks),
      routers,
      floatingIps,
      addressScopes,
      bgpSpeakers,
      bgpPeers,
      qosPolicies,
    ],
  };
}

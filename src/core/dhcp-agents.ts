/**
 * The DHCP agent scheduler's URLs (`neutron/extensions/dhcpagentscheduler.py`,
 * `agentschedulers_db.py`) without DHCP agents: OVN answers DHCP itself, so no network is hosted by
 * any agent. Scripts written for ML2/OVS (`openstack network agent list --network N`, `network
 * agent add/remove network --dhcp`) get what ML2/OVS gives for a network without DHCP agents, or
 * for an agent that is not a DHCP agent, instead of ML2/OVN's 404 for the whole URL. The
 * `dhcp_agent_scheduler` extension stays unadvertised: tempest would then expect DHCP agents.
 */
import type { AgentService } from './agents.js';
import type { Authorizer } from './authorizer.js';
import type { RequestContext } from './context.js';
import type { Db } from '../store/database.js';
import { InvalidDHCPAgent, NetworkNotHostedByDhcpAgent } from './errors.js';
import type { NetworkService } from './networks/service.js';
import type { View } from './resource.js';

export class DhcpAgentScheduler {
  constructor(
    private readonly authz: Authorizer,
    private readonly db: Db,
    private readonly networks: NetworkService,
    private readonly agents: AgentService,
  ) {}

  /** `list_dhcp_agents_hosting_network`: none, and (as Neutron) no check that the network exists. */
  agentsOfNetwork(ctx: RequestContext): View[] {
    this.authz.enforceRule(ctx, 'get_dhcp-agents', {});
    return [];
  }

  /** `list_networks_on_dhcp_agent`: AgentNotFound for an unknown agent, else no networks. */
  async networksOfAgent(ctx: RequestContext, agentId: string): Promise<View[]> {
    this.authz.enforceRule(ctx, 'get_dhcp-networks', {});
    await this.agents.show(ctx, agentId);
    return [];
  }

  /** `add_network_to_dhcp_agent`: the network, then the agent, which is never a DHCP agent. */
  async addNetwork(ctx: RequestContext, agentId: string, networkId: string): Promise<never> {
    this.authz.enforceRule(ctx, 'create_dhcp-network', {});
    await this.networks.getVisible(this.db, ctx, networkId);
    await this.agents.show(ctx, agentId);
    throw InvalidDHCPAgent({ id: agentId });
  }

  /** `remove_network_from_dhcp_agent`: the agent, then no binding to delete. */
  async removeNetwork(ctx: RequestContext, agentId: string, networkId: string): Promise<never> {
    this.authz.enforceRule(ctx, 'delete_dhcp-network', {});
    await this.agents.show(ctx, agentId);
    throw NetworkNotHostedByDhcpAgent({ network_id: networkId, agent_id: agentId });
  }
}

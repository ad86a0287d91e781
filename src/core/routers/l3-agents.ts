/**
 * The L3 agent scheduler API as ML2/OVN serves it (`l3_agent_scheduler`; `ovn_l3/plugin.py`): the
 * "L3 agents" are the gateway chassis. `GET /routers/<id>/l3-agents` lists where a router's gateway
 * runs, with its HA chassis priority; `GET /agents/<id>/l3-routers` the routers a chassis carries.
 * An operator adds a router to a chassis (it joins with the lowest priority) or removes it; the
 * result is stored as the router's gateway pins, most preferred first, which the driver's scheduler
 * then follows instead of choosing by itself. Admin only.
 */
import type { AgentProvider, ResourceContext } from '../../drivers/contract.js';
import { replaceL3Agents } from '../../store/routers.js';
import { updateRow } from '../../store/rows.js';
import type { AgentService } from '../agents.js';
import type { RequestContext } from '../context.js';
import { adminContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import {
  AgentNotFound,
  InvalidL3Agent,
  NeutronError,
  RouterHostedByL3Agent,
  RouterNotHostedByL3Agent,
} from '../errors.js';
import { stringField, type View } from '../resource.js';
import { EMPTY_LIST_QUERY } from '../list-query.js';
import { timestamp } from '../standard-attributes.js';
import type { RouterService } from './service.js';

export const GATEWAY_AGENT_TYPE = 'OVN Controller Gateway agent';

export class L3AgentScheduler {
  constructor(
    private readonly deps: CoreDeps,
    private readonly routers: RouterService,
    private readonly agents: AgentService,
    private readonly provider: () => AgentProvider | undefined,
  ) {}

  /** The gateway agents of a router, highest priority first. */
  private async hosting(routerId: string): Promise<View[]> {
    const agents = (await this.provider()?.l3AgentsOfRouter?.(routerId)) ?? [];
    return [...agents].sort((a, b) => (b.ha_chassis_priority as number) - (a.ha_chassis_priority as number));
  }

  async agentsOfRouter(ctx: RequestContext, routerId: string): Promise<View[]> {
    this.deps.authz.enforceRule(ctx, 'get_l3-agents', {});
    await this.routers.getVisible(this.deps.store.db, ctx, routerId);
    return this.hosting(routerId);
  }

  /** The agent if it is a gateway chassis, else InvalidL3Agent (also when there is no such agent). */
  private async gatewayAgent(ctx: RequestContext, agentId: string): Promise<View> {
    let agent: View;
    try {
      agent = await this.agents.show(ctx, agentId);
    } catch (error) {
      if (error instanceof NeutronError && error.type === AgentNotFound.type) throw InvalidL3Agent({ id: agentId });
      throw error;
    }
    if (agent.agent_type !== GATEWAY_AGENT_TYPE) throw InvalidL3Agent({ id: agentId });
    return agent;
  }

  async routersOfAgent(ctx: RequestContext, agentId: string): Promise<View[]> {
    this.deps.authz.enforceRule(ctx, 'get_l3-routers', {});
    await this.gatewayAgent(ctx, agentId);
    const hosted: View[] = [];
    for (const router of await this.routers.list(adminContext('l3-routers'), EMPTY_LIST_QUERY)) {
      if ((await this.hosting(stringField(router, 'id'))).some((a) => a.id === agentId)) hosted.push(router);
    }
    return hosted;
  }

  async addRouter(ctx: RequestContext, agentId: string, routerId: string): Promise<void> {
    this.deps.authz.enforceRule(ctx, 'create_l3-router', {});
    await this.routers.getVisible(this.deps.store.db, ctx, routerId);
    await this.gatewayAgent(ctx, agentId);
    const current = (await this.hosting(routerId)).map((a) => stringField(a, 'id'));
    if (current.includes(agentId)) throw RouterHostedByL3Agent({ router_id: routerId, agent_id: agentId });
    await this.pin(ctx, routerId, [...current, agentId]);
  }

  async removeRouter(ctx: RequestContext, agentId: string, routerId: string): Promise<void> {
    this.deps.authz.enforceRule(ctx, 'delete_l3-router', {});
    await this.gatewayAgent(ctx, agentId);
    await this.routers.getVisible(this.deps.store.db, ctx, routerId);
    const current = (await this.hosting(routerId)).map((a) => stringField(a, 'id'));
    if (!current.includes(agentId)) throw RouterNotHostedByL3Agent({ router_id: routerId, agent_id: agentId });
    await this.pin(
      ctx,
      routerId,
      current.filter((id) => id !== agentId),
    );
  }

  /** Stores the pins and tells the drivers, as any change of the router does. */
  private async pin(ctx: RequestContext, routerId: string, agents: string[]): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const record = await this.routers.getVisible(tx, ctx, routerId);
      await replaceL3Agents(tx, routerId, agents);
      await updateRow(deps.store, tx, 'routers', routerId, {
        revision_number: record.row.revision_number + 1,
        updated_at: timestamp(),
      });
      const current = this.routers.state(await this.routers.getVisible(tx, ctx, routerId));
      const event: ResourceContext = { resource: 'router', operation: 'update', request: ctx, current };
      return { result: undefined, events: [event] };
    });
  }
}

/**
 * Agents (`/v2.0/agents`): what the mechanism drivers report about the hosts they run on. With
 * ML2/OVN these are the chassis, read from the OVN southbound database; without a driver that
 * reports agents the collection is empty. Admin only, as Neutron's policy has it.
 *
 * Neutron's quirks are kept: filters match exactly (OR within an attribute), an update may only set
 * `description` (turning `admin_state_up` off is refused) and answers with the request's own body.
 */
import type { ResourceSpec } from './attributes.js';
import type { Authorizer } from './authorizer.js';
import type { RequestContext } from './context.js';
import type { AgentProvider } from '../drivers/contract.js';
import { AgentNotFound, BadRequest } from './errors.js';
import type { Body, View } from './resource.js';

const SHOWN = { post: false, put: false, visible: true, filter: true } as const;

/** neutron-lib's agent attribute map, as far as clients filter and select on it. */
export const AGENT_SPEC: ResourceSpec = {
  name: 'agent',
  collection: 'agents',
  path: 'agents',
  allowBulk: false,
  attributes: {
    id: SHOWN,
    agent_type: SHOWN,
    binary: SHOWN,
    topic: SHOWN,
    host: SHOWN,
    admin_state_up: { ...SHOWN, put: true },
    heartbeat_timestamp: SHOWN,
    alive: SHOWN,
    configurations: SHOWN,
    description: { ...SHOWN, put: true },
    availability_zone: SHOWN,
  },
};

export class AgentService {
  constructor(
    private readonly authz: Authorizer,
    private readonly provider: () => AgentProvider | undefined,
  ) {}

  private async all(): Promise<View[]> {
    return (await this.provider()?.listAgents()) ?? [];
  }

  async list(ctx: RequestContext, filters: Readonly<Record<string, readonly unknown[]>>): Promise<View[]> {
    return (await this.all())
      .filter((agent) =>
        Object.entries(filters).every(([key, values]) => values.some((v) => String(v) === String(agent[key]))),
      )
      .filter((agent) => this.authz.canRead(ctx, 'agent', agent));
  }

  /** The agent, or AgentNotFound (also for callers who may not see agents, as Neutron hides them). */
  async show(ctx: RequestContext, id: string): Promise<View> {
    const agent = (await this.all()).find((a) => a.id === id);
    if (!agent || !this.authz.canRead(ctx, 'agent', agent)) throw AgentNotFound({ id });
    return agent;
  }

  async update(ctx: RequestContext, id: string, body: Body): Promise<Body> {
    const agent = await this.show(ctx, id);
    this.authz.enforceUpdate(ctx, AGENT_SPEC, { ...agent, ...body }, body);
    if (body.admin_state_up === false)
      throw BadRequest({ resource: 'agent', msg: 'OVN agent status cannot be updated' });
    if (typeof body.description === 'string' && !(await this.provider()?.describeAgent(id, body.description))) {
      throw AgentNotFound({ id });
    }
    return body;
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    const agent = await this.show(ctx, id);
    this.authz.enforceDelete(ctx, AGENT_SPEC, agent);
    if (!(await this.provider()?.deleteAgent(id))) throw AgentNotFound({ id });
  }
}

/**
 * The DR agent scheduler (`bgp_dragent_scheduler`, n-d-r's `bgp_dragentscheduler_db.py`): which
 * BGP agent hosts which speaker. An agent hosts at most one speaker; a speaker may have several
 * agents. A new speaker goes to one alive agent that hosts nothing (n-d-r's ChanceScheduler, here
 * the first by id so the choice is repeatable), and an agent that asks for its speakers while it
 * hosts none picks up an unscheduled one (n-d-r does this when an agent reports in). The agents
 * themselves are the drivers' (`BGP dynamic routing agent` in `GET /v2.0/agents`). Admin only.
 */
import {
  bindDragent,
  dragentsOfSpeaker,
  getBgpSpeakerRecord,
  speakerOfDragent,
  unscheduledSpeakers,
} from '../../store/bgp.js';
import type { AgentService } from '../agents.js';
import { HTTPNotFound, NeutronError } from '../errors.js';
import { adminContext, type RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import type { View } from '../resource.js';
import { BgpSpeakerNotFound, DrAgentAssociationError, DrAgentInvalid, DrAgentNotHostingBgpSpeaker } from './errors.js';
import type { BgpSpeakerService } from './speakers.js';
import type { BgpPeerService, BgpPeerSession } from './peers.js';
import type { AdvertisedRoute } from '../../bgp/routes.js';

/**
 * What a node's BGP agent needs of the speaker it hosts (n-d-r's RPC
 * `get_bgp_speakers(host)` → `get_bgp_speaker_with_advertised_routes`): the AS, the peers with
 * their secrets, and the routes with their router and gateway port.
 */
export interface HostedBgpSpeaker {
  readonly id: string;
  readonly local_as: number;
  readonly ip_version: number;
  readonly project_id: string;
  readonly peers: BgpPeerSession[];
  readonly advertised_routes: AdvertisedRoute[];
}

/** n-d-r's `AGENT_TYPE_BGP_ROUTING`; the OVN driver reports these (`drivers/ovn/status/bgp-agents.ts`). */
export const DR_AGENT_TYPE = 'BGP dynamic routing agent';

export class BgpDrAgentScheduler {
  constructor(
    private readonly deps: CoreDeps,
    private readonly speakers: BgpSpeakerService,
    private readonly peers: BgpPeerService,
    private readonly agents: AgentService,
  ) {}

  /**
   * `GET /v2.0/octonet/bgp-dragents/<id>/speakers`: the speaker a DR agent hosts, complete, for the
   * node's agent (n-d-r's RPC `get_bgp_speakers(host)`, which its DR agent gets over the message bus).
   * It carries the peers' MD5 secrets, so only a service caller gets it: Neutron's `service` role
   * (`rule:service_api`, which a node agent's service user holds), or in noauth mode an admin (there
   * anyone who reaches the API is admin by sending no headers, so asking more protects nothing).
   * Anyone else gets 404, as Neutron answers a GET its policy hides. Like the RPC, an agent hosting
   * nothing (or unknown) gets an empty list, and an alive agent hosting nothing picks up an
   * unscheduled speaker (as `bgp-drinstances` does).
   */
  async hostedSpeakersFor(ctx: RequestContext, agentId: string): Promise<HostedBgpSpeaker[]> {
    const noauthAdmin = this.deps.config.auth === 'noauth' && ctx.isAdmin;
    if (!noauthAdmin && !this.deps.authz.allows(ctx, 'get_bgp_dragent_speakers', {})) throw HTTPNotFound();
    const speakerId = await this.hostedSpeakerId(agentId, (id) =>
      this.agents.show(adminContext('bgp-agent'), id).catch((error: unknown) => {
        if (error instanceof NeutronError && error.status === 404) return undefined;
        throw error;
      }),
    );
    return speakerId === undefined ? [] : this.hostedSpeakers(speakerId);
  }

  /** The hosted speaker with peers (secrets included) and routes (with router and gateway port). */
  private async hostedSpeakers(speakerId: string): Promise<HostedBgpSpeaker[]> {
    const db = this.deps.store.db;
    const record = await getBgpSpeakerRecord(db, speakerId);
    if (!record) return [];
    const ctx = adminContext('bgp-agent');
    return [
      {
        id: record.row.id,
        local_as: Number(record.row.local_as),
        ip_version: record.row.ip_version,
        project_id: record.row.project_id,
        peers: await this.peers.sessionsOfSpeaker(db, record.row.id),
        advertised_routes: await this.speakers.routes(ctx, record.row.id),
      },
    ];
  }

  /**
   * The speaker the agent hosts; when it hosts none and is an alive DR agent, it picks up the first
   * unscheduled speaker (n-d-r schedules when an agent reports in). `showAgent` reads the agent.
   */
  private async hostedSpeakerId(
    agentId: string,
    showAgent: (id: string) => Promise<View | undefined>,
  ): Promise<string | undefined> {
    const { store } = this.deps;
    const speakerId = await speakerOfDragent(store.db, agentId);
    if (speakerId !== undefined) return speakerId;
    const agent = await showAgent(agentId);
    if (agent?.agent_type !== DR_AGENT_TYPE || agent.alive !== true) return undefined;
    return store.transaction(async (tx) => {
      const first = (await unscheduledSpeakers(tx))[0];
      return first !== undefined && (await bindDragent(tx, agentId, first)) ? first : undefined;
    });
  }

  private async drAgents(): Promise<View[]> {
    const all = await this.agents.list(adminContext('bgp-dragents'), { agent_type: [DR_AGENT_TYPE] });
    return [...all].sort((a, b) => String(a.id).localeCompare(String(b.id)));
  }

  /**
   * Binds a new speaker to the first alive DR agent hosting nothing; none is fine. The speaker
   * exists already, so a failure here (the SB unreachable) is logged, not the create's error: the
   * speaker stays unscheduled until an agent asks for its speakers.
   */
  async scheduleSpeaker(speakerId: string): Promise<void> {
    try {
      for (const agent of await this.drAgents()) {
        if (agent.alive !== true) continue;
        const bound = await this.deps.store.transaction((tx) => bindDragent(tx, String(agent.id), speakerId));
        if (bound) return;
      }
    } catch (error) {
      this.deps.logger.warn({ err: error, bgp_speaker_id: speakerId }, 'scheduling a BGP speaker failed');
    }
  }

  /** `GET /v2.0/bgp-speakers/<id>/bgp-dragents`; n-d-r lists nothing for an unknown speaker. */
  async agentsOfSpeaker(ctx: RequestContext, speakerId: string): Promise<View[]> {
    this.deps.authz.enforceRule(ctx, 'list_dragent_hosting_bgp_speaker', {});
    const ids = new Set(await dragentsOfSpeaker(this.deps.store.db, speakerId));
    return (await this.drAgents()).filter((a) => ids.has(String(a.id)));
  }

  /** The DR agent, or AgentNotFound (unknown) / DrAgentInvalid (another type). */
  private async drAgent(ctx: RequestContext, agentId: string): Promise<View> {
    const agent = await this.agents.show(ctx, agentId);
    if (agent.agent_type !== DR_AGENT_TYPE) throw DrAgentInvalid({ id: agentId });
    return agent;
  }

  /** `GET /v2.0/agents/<id>/bgp-drinstances`. */
  async speakersOfAgent(ctx: RequestContext, agentId: string): Promise<View[]> {
    this.deps.authz.enforceRule(ctx, 'list_bgp_speaker_on_dragent', {});
    const speakerId = await this.hostedSpeakerId(agentId, (id) => this.agents.show(ctx, id));
    const record = speakerId === undefined ? undefined : await getBgpSpeakerRecord(this.deps.store.db, speakerId);
    return record ? [this.speakers.view(record)] : [];
  }

  /** `POST /v2.0/agents/<id>/bgp-drinstances` with `{"bgp_speaker_id": ...}`. */
  async addSpeaker(ctx: RequestContext, agentId: string, speakerId: string): Promise<void> {
    this.deps.authz.enforceRule(ctx, 'add_bgp_speaker_to_dragent', {});
    await this.drAgent(ctx, agentId);
    await writeTransaction(this.deps, async (tx) => {
      if (!(await getBgpSpeakerRecord(tx, speakerId))) throw BgpSpeakerNotFound({ id: speakerId });
      if (!(await bindDragent(tx, agentId, speakerId))) throw DrAgentAssociationError({ agent_id: agentId });
      return { result: undefined, events: [] };
    });
  }

  /** `DELETE /v2.0/agents/<id>/bgp-drinstances/<speaker id>`. */
  async removeSpeaker(ctx: RequestContext, agentId: string, speakerId: string): Promise<void> {
    this.deps.authz.enforceRule(ctx, 'remove_bgp_speaker_from_dragent', {});
    await this.drAgent(ctx, agentId);
    const removed = await this.deps.store.db
      .deleteFrom('bgp_speaker_dragent_bindings')
      .where('agent_id', '=', agentId)
      .where('bgp_speaker_id', '=', speakerId)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) {
      throw DrAgentNotHostingBgpSpeaker({ bgp_speaker_id: speakerId, agent_id: agentId });
    }
  }
}

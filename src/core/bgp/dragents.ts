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
   * The speaker a DR agent hosts, complete (for the node side, in process; never served over the
   * API, since it carries the peers' passwords). Empty when the agent hosts none.
   */
  async hostedSpeakers(agentId: string): Promise<HostedBgpSpeaker[]> {
    const db = this.deps.store.db;
    const speakerId = await speakerOfDragent(db, agentId);
    const record = speakerId === undefined ? undefined : await getBgpSpeakerRecord(db, speakerId);
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
    const { store } = this.deps;
    let speakerId = await speakerOfDragent(store.db, agentId);
    if (speakerId === undefined) {
      const agent = await this.agents.show(ctx, agentId);
      if (agent.agent_type !== DR_AGENT_TYPE || agent.alive !== true) return [];
      speakerId = await store.transaction(async (tx) => {
        const first = (await unscheduledSpeakers(tx))[0];
        return first !== undefined && (await bindDragent(tx, agentId, first)) ? first : undefined;
      });
      if (speakerId === undefined) return [];
    }
    const record = await getBgpSpeakerRecord(store.db, speakerId);
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

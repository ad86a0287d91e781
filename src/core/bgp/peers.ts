/**
 * BGP peers (`/v2.0/bgp-peers`, n-d-r's `bgp_db.py`): a neighbour's address, AS and optional MD5
 * secret. The secret is written, never shown; only `name` and `password` change after creation.
 * Admin only by policy; a peer bound to speakers goes with its bindings.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/database.js';
import { BGP_PEERS_TABLE, bgpPeerVisibility } from '../../store/bgp.js';
import type { Condition } from '../../store/list.js';
import { FlatResource } from '../flat-resource.js';
import { insertRow } from '../../store/rows.js';
import type { BgpPeerTable } from '../../store/schema.js';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import { stringField, type Body, type ResourceService, type View } from '../resource.js';
import { pythonInt } from '../validators.js';
import { BGP_PEER_SPEC } from './attributes.js';
import { BgpPeerNotAuthenticated, BgpPeerNotFound, InvalidBgpPeerMd5Authentication } from './errors.js';

/** A peer as the node side needs it to configure the session, secret included. */
export interface BgpPeerSession {
  readonly id: string;
  readonly peer_ip: string;
  readonly remote_as: number;
  readonly auth_type: string;
  readonly password: string | null;
}

export class BgpPeerService extends FlatResource<'bgp_peers'> implements ResourceService {
  readonly spec = BGP_PEER_SPEC;

  constructor(deps: CoreDeps) {
    super(deps, BGP_PEERS_TABLE);
  }

  protected visibility(ctx: RequestContext): Condition {
    return bgpPeerVisibility(ctx.projectId);
  }

  notFound(id: string | null): Error {
    return BgpPeerNotFound({ id });
  }

  view(row: BgpPeerTable): View {
    return {
      id: row.id,
      name: row.name,
      peer_ip: row.peer_ip,
      remote_as: Number(row.remote_as),
      auth_type: row.auth_type,
      tenant_id: row.project_id,
      project_id: row.project_id,
    };
  }

  /** n-d-r's queries are project-scoped for non-admins, then policy judges what is left. */
  protected canSee(ctx: RequestContext, view: View): boolean {
    return (ctx.isAdmin || view.project_id === ctx.projectId) && this.deps.authz.canRead(ctx, 'bgp_peer', view);
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const views: View[] = [];
      for (const item of items) {
        deps.authz.enforceCreate(ctx, this.spec, item);
        const password = typeof item.password === 'string' ? item.password : null;
        if (item.auth_type === 'md5' && !password) throw InvalidBgpPeerMd5Authentication({});
        const row = await insertRow(deps.store, tx, 'bgp_peers', {
          id: randomUUID(),
          project_id: stringField(item, 'project_id'),
          name: stringField(item, 'name'),
          peer_ip: stringField(item, 'peer_ip'),
          remote_as: pythonInt(item.remote_as)!,
          auth_type: stringField(item, 'auth_type'),
          password,
        });
        views.push(this.view(row));
      }
      return { result: views, events: [] };
    });
  }

  async update(ctx: RequestContext, id: string, body: Body): Promise<View> {
    return this.updateWith(ctx, id, body, (row) => {
      const password = body.password;
      if (password !== undefined && password !== null && row.auth_type === 'none') {
        throw BgpPeerNotAuthenticated({ bgp_peer_id: id });
      }
      const patch: { name?: string; password?: string } = {};
      if (typeof body.name === 'string') patch.name = body.name;
      // `openstack bgp peer set --name x` sends `"password": null`; n-d-r then wipes an MD5 peer's
      // secret (a peer its create would refuse). Here null changes nothing.
      if (typeof password === 'string') patch.password = password;
      return patch;
    });
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    await this.deleteWith(ctx, id, async (tx) => {
      await tx.deleteFrom('bgp_speaker_peer_bindings').where('bgp_peer_id', '=', id).execute();
    });
  }

  /** The peers of a speaker with their secrets (n-d-r's `get_bgp_peers_by_bgp_speaker`), for the node side. */
  async sessionsOfSpeaker(db: Db, speakerId: string): Promise<BgpPeerSession[]> {
    const rows = await db
      .selectFrom('bgp_peers')
      .innerJoin('bgp_speaker_peer_bindings', 'bgp_speaker_peer_bindings.bgp_peer_id', 'bgp_peers.id')
      .selectAll('bgp_peers')
      .where('bgp_speaker_peer_bindings.bgp_speaker_id', '=', speakerId)
      .orderBy('bgp_peers.peer_ip')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      peer_ip: r.peer_ip,
      remote_as: Number(r.remote_as),
      auth_type: r.auth_type,
      password: r.password,
    }));
  }
}

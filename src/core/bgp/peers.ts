/**
 * BGP peers (`/v2.0/bgp-peers`, n-d-r's `bgp_db.py`): a neighbour's address, AS and optional MD5
 * secret. The secret is written, never shown; only `name` and `password` change after creation.
 * Admin only by policy; a peer bound to speakers goes with its bindings.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/database.js';
import { BGP_PEERS_TABLE } from '../../store/bgp.js';
import { listRows, TRUE } from '../../store/list.js';
import { insertRow, updateRow } from '../../store/rows.js';
import type { BgpPeerTable } from '../../store/schema.js';
import { sql } from 'kysely';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import type { ListQuery } from '../list-query.js';
import { policyTarget, stringField, type Body, type ResourceService, type View } from '../resource.js';
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

export class BgpPeerService implements ResourceService {
  readonly spec = BGP_PEER_SPEC;

  constructor(private readonly deps: CoreDeps) {}

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
  private canSee(ctx: RequestContext, view: View): boolean {
    return (ctx.isAdmin || view.project_id === ctx.projectId) && this.deps.authz.canRead(ctx, 'bgp_peer', view);
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const { store } = this.deps;
    const scope = ctx.isAdmin ? TRUE : sql`bgp_peers.project_id = ${ctx.projectId ?? ''}`;
    const { rows, markerFound } = await listRows<BgpPeerTable>(
      { store, projectId: ctx.projectId },
      BGP_PEERS_TABLE,
      query,
      scope,
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    return rows.map((r) => this.view(r)).filter((v) => this.canSee(ctx, v));
  }

  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<BgpPeerTable> {
    const row = await db.selectFrom('bgp_peers').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !this.canSee(ctx, this.view(row))) throw this.notFound(id);
    return row;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return this.view(await this.getVisible(this.deps.store.db, ctx, id));
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
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const row = await this.getVisible(tx, ctx, id);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(this.view(row), body), body);
      const password = body.password;
      if (password !== undefined && password !== null && row.auth_type === 'none') {
        throw BgpPeerNotAuthenticated({ bgp_peer_id: id });
      }
      const patch: { name?: string; password?: string | null } = {};
      if (typeof body.name === 'string') patch.name = body.name;
      if (password !== undefined) patch.password = typeof password === 'string' ? password : null;
      if (Object.keys(patch).length) await updateRow(deps.store, tx, 'bgp_peers', id, patch);
      return { result: this.view((await this.getVisible(tx, ctx, id))!), events: [] };
    });
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const row = await this.getVisible(tx, ctx, id);
      deps.authz.enforceDelete(ctx, this.spec, this.view(row));
      await tx.deleteFrom('bgp_speaker_peer_bindings').where('bgp_peer_id', '=', id).execute();
      await tx.deleteFrom('bgp_peers').where('id', '=', id).execute();
      return { result: undefined, events: [] };
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

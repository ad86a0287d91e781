/**
 * BGP speakers (`/v2.0/bgp-speakers`, n-d-r's `bgp_db.py`) and their member actions: peers and
 * gateway networks are bound and unbound with `PUT .../{add,remove}_bgp_peer` and
 * `.../{add,remove}_gateway_network`, and `GET .../get_advertised_routes` computes the routes
 * (`bgp/routes.ts`). Admin only by policy. A new speaker is scheduled to a DR agent
 * (`dragents.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { AdvertisedRoute } from '../../bgp/routes.js';
import { wireRoutes } from '../../bgp/routes.js';
import type { Db } from '../../store/database.js';
import {
  BGP_SPEAKERS_TABLE,
  bgpSpeakerVisibility,
  getBgpSpeakerRecord,
  loadBgpSpeakerRecords,
  type BgpSpeakerRecord,
} from '../../store/bgp.js';
import { listRows, TRUE } from '../../store/list.js';
import { insertRow, updateRow } from '../../store/rows.js';
import { toBool, type BgpSpeakerTable } from '../../store/schema.js';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import { BadRequest, NetworkNotFound } from '../errors.js';
import type { ListQuery } from '../list-query.js';
import { policyTarget, stringField, type Body, type ResourceService, type View } from '../resource.js';
import { isPlainObject, pythonInt, validateUuid } from '../validators.js';
import { routesOfSpeaker } from './advertised-routes.js';
import { BGP_SPEAKER_SPEC } from './attributes.js';
import {
  BgpPeerNotFound,
  BgpSpeakerNetworkBindingError,
  BgpSpeakerNetworkNotAssociated,
  BgpSpeakerNotFound,
  BgpSpeakerPeerNotAssociated,
  DuplicateBgpPeerIpException,
} from './errors.js';

/** n-d-r's `_get_id_for`: the id in an action's body, or BadRequest. */
function idFor(body: unknown, key: string): string {
  const value = isPlainObject(body) ? body[key] : undefined;
  const msg = value === undefined ? `${key} must be specified` : validateUuid(value);
  // validateUuid passes only strings; the typeof check tells the compiler so.
  if (msg || typeof value !== 'string')
    throw BadRequest({ resource: 'bgp-speaker', msg: msg ?? `${key} is not a string` });
  return value;
}

export class BgpSpeakerService implements ResourceService {
  readonly spec = BGP_SPEAKER_SPEC;

  constructor(
    private readonly deps: CoreDeps,
    /** Called after a speaker is created (the DR agent scheduler); failures are the caller's. */
    private readonly onCreated: (speakerId: string) => Promise<void> = async () => {},
  ) {}

  notFound(id: string | null): Error {
    return BgpSpeakerNotFound({ id });
  }

  view(record: BgpSpeakerRecord): View {
    const { row } = record;
    return {
      id: row.id,
      name: row.name,
      local_as: Number(row.local_as),
      ip_version: row.ip_version,
      advertise_floating_ip_host_routes: toBool(row.advertise_floating_ip_host_routes),
      advertise_tenant_networks: toBool(row.advertise_tenant_networks),
      peers: record.peers,
      networks: record.networks,
      tenant_id: row.project_id,
      project_id: row.project_id,
    };
  }

  /** n-d-r's queries are project-scoped for non-admins, then policy judges what is left. */
  private canSee(ctx: RequestContext, view: View): boolean {
    return (ctx.isAdmin || view.project_id === ctx.projectId) && this.deps.authz.canRead(ctx, 'bgp_speaker', view);
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const { store } = this.deps;
    const scope = ctx.isAdmin ? TRUE : bgpSpeakerVisibility(ctx.projectId);
    const { rows, markerFound } = await listRows<BgpSpeakerTable>(
      { store, projectId: ctx.projectId },
      BGP_SPEAKERS_TABLE,
      query,
      scope,
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    const records = await loadBgpSpeakerRecords(store.db, rows);
    return records.map((r) => this.view(r)).filter((v) => this.canSee(ctx, v));
  }

  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<BgpSpeakerRecord> {
    const record = await getBgpSpeakerRecord(db, id);
    if (!record || !this.canSee(ctx, this.view(record))) throw this.notFound(id);
    return record;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return this.view(await this.getVisible(this.deps.store.db, ctx, id));
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const { deps } = this;
    const views = await writeTransaction(deps, async (tx) => {
      const created: View[] = [];
      for (const item of items) {
        deps.authz.enforceCreate(ctx, this.spec, item);
        const id = randomUUID();
        await insertRow(deps.store, tx, 'bgp_speakers', {
          id,
          project_id: stringField(item, 'project_id'),
          name: stringField(item, 'name'),
          local_as: pythonInt(item.local_as)!,
          ip_version: item.ip_version as number,
          advertise_floating_ip_host_routes: item.advertise_floating_ip_host_routes === true,
          advertise_tenant_networks: item.advertise_tenant_networks === true,
        });
        created.push(this.view((await getBgpSpeakerRecord(tx, id))!));
      }
      return { result: created, events: [] };
    });
    for (const view of views) await this.onCreated(stringField(view, 'id'));
    return views;
  }

  async update(ctx: RequestContext, id: string, body: Body): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const record = await this.getVisible(tx, ctx, id);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(this.view(record), body), body);
      const patch: { name?: string; advertise_floating_ip_host_routes?: boolean; advertise_tenant_networks?: boolean } =
        {};
      if (typeof body.name === 'string') patch.name = body.name;
      for (const flag of ['advertise_floating_ip_host_routes', 'advertise_tenant_networks'] as const) {
        if (typeof body[flag] === 'boolean') patch[flag] = body[flag];
      }
      if (Object.keys(patch).length) await updateRow(deps.store, tx, 'bgp_speakers', id, patch);
      return { result: this.view((await getBgpSpeakerRecord(tx, id))!), events: [] };
    });
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const record = await this.getVisible(tx, ctx, id);
      deps.authz.enforceDelete(ctx, this.spec, this.view(record));
      // The bindings cascade.
      await tx.deleteFrom('bgp_speakers').where('id', '=', id).execute();
      return { result: undefined, events: [] };
    });
  }

  /**
   * Neutron's `_handle_action`: a speaker the caller cannot see is its NotFound, then the action's
   * own policy rule (403), then the action in one transaction.
   */
  private async action<T>(
    ctx: RequestContext,
    id: string,
    rule: string,
    fn: (db: Db, record: BgpSpeakerRecord) => Promise<T>,
  ): Promise<T> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const record = await this.getVisible(tx, ctx, id);
      deps.authz.enforceRule(ctx, rule, this.view(record));
      return { result: await fn(tx, record), events: [] };
    });
  }

  async addPeer(ctx: RequestContext, id: string, body: unknown): Promise<{ bgp_peer_id: string }> {
    const peerId = idFor(body, 'bgp_peer_id');
    return this.action(ctx, id, 'add_bgp_peer', async (db) => {
      const peer = await db.selectFrom('bgp_peers').selectAll().where('id', '=', peerId).executeTakeFirst();
      if (!peer) throw BgpPeerNotFound({ id: peerId });
      const clash = await db
        .selectFrom('bgp_peers')
        .innerJoin('bgp_speaker_peer_bindings', 'bgp_speaker_peer_bindings.bgp_peer_id', 'bgp_peers.id')
        .select('bgp_peers.id')
        .where('bgp_speaker_peer_bindings.bgp_speaker_id', '=', id)
        .where('bgp_peers.peer_ip', '=', peer.peer_ip)
        .executeTakeFirst();
      if (clash) throw DuplicateBgpPeerIpException({ bgp_peer_id: peerId, peer_ip: peer.peer_ip, bgp_speaker_id: id });
      await db.insertInto('bgp_speaker_peer_bindings').values({ bgp_speaker_id: id, bgp_peer_id: peerId }).execute();
      return { bgp_peer_id: peerId };
    });
  }

  /** Answers null, as n-d-r's plugin returns nothing here. */
  async removePeer(ctx: RequestContext, id: string, body: unknown): Promise<null> {
    const peerId = idFor(body, 'bgp_peer_id');
    return this.action(ctx, id, 'remove_bgp_peer', async (db) => {
      const removed = await db
        .deleteFrom('bgp_speaker_peer_bindings')
        .where('bgp_speaker_id', '=', id)
        .where('bgp_peer_id', '=', peerId)
        .executeTakeFirst();
      if (Number(removed.numDeletedRows) === 0) {
        throw BgpSpeakerPeerNotAssociated({ bgp_peer_id: peerId, bgp_speaker_id: id });
      }
      return null;
    });
  }

  async addGatewayNetwork(ctx: RequestContext, id: string, body: unknown): Promise<{ network_id: string }> {
    const networkId = idFor(body, 'network_id');
    return this.action(ctx, id, 'add_gateway_network', async (db, record) => {
      const network = await db.selectFrom('networks').select('id').where('id', '=', networkId).executeTakeFirst();
      if (!network) throw NetworkNotFound({ net_id: networkId });
      if (record.networks.includes(networkId)) {
        throw BgpSpeakerNetworkBindingError({ network_id: networkId, bgp_speaker_id: id });
      }
      await db
        .insertInto('bgp_speaker_network_bindings')
        .values({ bgp_speaker_id: id, network_id: networkId, ip_version: record.row.ip_version })
        .execute();
      return { network_id: networkId };
    });
  }

  async removeGatewayNetwork(ctx: RequestContext, id: string, body: unknown): Promise<{ network_id: string }> {
    const networkId = idFor(body, 'network_id');
    return this.action(ctx, id, 'remove_gateway_network', async (db) => {
      const removed = await db
        .deleteFrom('bgp_speaker_network_bindings')
        .where('bgp_speaker_id', '=', id)
        .where('network_id', '=', networkId)
        .executeTakeFirst();
      if (Number(removed.numDeletedRows) === 0) {
        throw BgpSpeakerNetworkNotAssociated({ network_id: networkId, bgp_speaker_id: id });
      }
      return { network_id: networkId };
    });
  }

  /** The routes with where each comes from (router, gateway port): for the node side. */
  async routes(ctx: RequestContext, id: string): Promise<AdvertisedRoute[]> {
    const db = this.deps.store.db;
    const record = await this.getVisible(db, ctx, id);
    this.deps.authz.enforceRule(ctx, 'get_advertised_routes', this.view(record));
    return routesOfSpeaker(db, {
      id,
      ipVersion: record.row.ip_version,
      advertiseFloatingIpHostRoutes: toBool(record.row.advertise_floating_ip_host_routes),
      advertiseTenantNetworks: toBool(record.row.advertise_tenant_networks),
      networkIds: record.networks,
    });
  }

  /** `GET .../get_advertised_routes`: n-d-r's body. */
  async advertisedRoutes(ctx: RequestContext, id: string): Promise<{ advertised_routes: object[] }> {
    return { advertised_routes: wireRoutes(await this.routes(ctx, id)) };
  }
}

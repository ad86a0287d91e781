/**
 * Subnet pools (`/v2.0/subnetpools`, subnet_allocation; `db_base_plugin_v2.py`,
 * `ipam/subnet_alloc.py`): a project's (or a shared) set of prefixes that subnets are carved from,
 * with bounds on their length. A pool's prefixes only grow; a pool with subnets cannot go. The
 * carving itself is `allocateCidr`, which the subnet service calls inside its transaction.
 */
import { subnetPoolCreate, subnetPoolUpdate } from './body.js';
import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../../store/database.js';
import { TRUE } from '../../store/list.js';
import { deleteRowWithTags, insertRow, type RowPatch, type RowValues, updateRow } from '../../store/rows.js';
import { toBool } from '../../store/schema.js';
import {
  allocatedFromPool,
  getSubnetPoolRecord,
  listSubnetPoolRecords,
  replacePrefixes,
  subnetPoolVisibility,
  type SubnetPoolRecord,
} from '../../store/subnetpools.js';
import { addTags } from '../../store/tags.js';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import {
  BadRequest,
  IllegalSubnetPoolPrefixBounds,
  IllegalSubnetPoolPrefixUpdate,
  MaxPrefixSubnetAllocationError,
  MinPrefixSubnetAllocationError,
  PrefixVersionMismatch,
  SubnetAllocationError,
  SubnetPoolInUse,
  SubnetPoolNotFound,
} from '../errors.js';
import { parseNetwork } from '../ip.js';
import type { ListQuery } from '../list-query.js';
import {
  countByProject,
  policyTarget,
  type Body,
  type Precondition,
  type ResourceService,
  type View,
} from '../resource.js';
import { checkRevision } from '../revisions.js';
import { timestamp } from '../standard-attributes.js';
import { allocateBlock, isFree, normalizePrefixes } from './allocation.js';
import { SUBNETPOOL_SPEC } from './attributes.js';
import type { AddressScopeService } from '../address-scopes/service.js';

/** `SubnetPoolHelper._PREFIX_VERSION_INFO`: the default minimum and the longest prefix per version. */
const BOUNDS = { 4: { min: 8, max: 32 }, 6: { min: 64, max: 128 } } as const;

interface Bounds {
  min: number;
  max: number;
  default: number;
}

/** `_read_prefix_bounds` and its validations: min ≤ default ≤ max ≤ the version's longest. */
function checkBounds(version: 4 | 6, b: Bounds): void {
  const longest = BOUNDS[version].max;
  const bad = (prefix_type: string, prefixlen: number, base_prefix_type: string, base_prefixlen: number) =>
    IllegalSubnetPoolPrefixBounds({ prefix_type, prefixlen, base_prefix_type, base_prefixlen });
  if (b.min > b.max) throw bad('min_prefixlen', b.min, 'max_prefixlen', b.max);
  if (b.max > longest) throw bad('max_prefixlen', b.max, 'ip_version_max', longest);
  if (b.default < b.min) throw bad('default_prefixlen', b.default, 'min_prefixlen', b.min);
  if (b.default > b.max) throw bad('default_prefixlen', b.default, 'max_prefixlen', b.max);
}

/** The one IP version of a list of prefixes (PrefixVersionMismatch when mixed). */
function versionOf(prefixes: readonly string[]): 4 | 6 {
  const versions = new Set(prefixes.map((p) => parseNetwork(p)!.version));
  if (versions.size > 1) throw PrefixVersionMismatch({});
  if (versions.size === 0) throw BadRequest({ resource: 'subnetpool', msg: 'A subnet pool needs at least one prefix' });
  return [...versions][0]!;
}

export class SubnetPoolService implements ResourceService {
  readonly spec = SUBNETPOOL_SPEC;

  constructor(
    private readonly deps: CoreDeps,
    private readonly addressScopes: AddressScopeService,
  ) {}

  notFound(id: string | null): Error {
    return SubnetPoolNotFound({ subnetpool_id: id });
  }

  view(record: SubnetPoolRecord): View {
    const { row } = record;
    return {
      id: row.id,
      name: row.name,
      tenant_id: row.project_id,
      prefixes: record.prefixes,
      default_quota: row.default_quota,
      ip_version: row.ip_version,
      default_prefixlen: row.default_prefixlen,
      min_prefixlen: row.min_prefixlen,
      max_prefixlen: row.max_prefixlen,
      is_default: toBool(row.is_default),
      shared: toBool(row.shared),
      address_scope_id: row.address_scope_id ?? null,
      description: row.description,
      tags: record.tags,
      created_at: row.created_at,
      updated_at: row.updated_at,
      revision_number: row.revision_number,
      project_id: row.project_id,
    };
  }

  private canSee(ctx: RequestContext, view: View): boolean {
    const mine = ctx.isAdmin || view.project_id === ctx.projectId || view.shared === true;
    return mine && this.deps.authz.canRead(ctx, 'subnetpool', view);
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const scope = ctx.isAdmin ? TRUE : subnetPoolVisibility(this.deps.store, ctx.projectId);
    const { records, markerFound } = await listSubnetPoolRecords(
      { store: this.deps.store, projectId: ctx.projectId },
      query,
      scope,
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    return records.map((r) => this.view(r)).filter((v) => this.canSee(ctx, v));
  }

  /** The pool if the caller may see it (own, shared, or any for an admin), else SubnetPoolNotFound. */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<SubnetPoolRecord> {
    const record = await getSubnetPoolRecord(db, id);
    if (!record || !this.canSee(ctx, this.view(record))) throw this.notFound(id);
    return record;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return this.view(await this.getVisible(this.deps.store.db, ctx, id));
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const { deps } = this;
    // All or nothing, as bulkCreate; the data plane has no use for pools, so no driver hears of them.
    return writeTransaction(deps, async (tx) => {
      for (const [project, count] of countByProject(items))
        await deps.quotas.enforce(tx, project, { subnetpool: count });
      for (const item of items) deps.authz.enforceCreate(ctx, this.spec, item);
      const views: View[] = [];
      for (const item of items) views.push(await this.createOne(tx, ctx, item));
      return { result: views, events: [] };
    });
  }

  private async createOne(tx: Tx, ctx: RequestContext, item: Body): Promise<View> {
    const body = subnetPoolCreate(item);
    const prefixes = normalizePrefixes(body.prefixes);
    const version = versionOf(prefixes);
    const min = body.min_prefixlen ?? BOUNDS[version].min;
    const max = body.max_prefixlen ?? BOUNDS[version].max;
    const bounds = { min, max, default: body.default_prefixlen ?? min };
    checkBounds(version, bounds);
    const id = randomUUID();
    const scopeId = body.address_scope_id ?? null;
    if (scopeId) await this.addressScopes.checkPoolJoins(tx, ctx, scopeId, { id, ipVersion: version, prefixes });
    const now = timestamp();
    const values: RowValues<'subnetpools'> = {
      id,
      address_scope_id: scopeId,
      project_id: body.project_id,
      name: body.name,
      ip_version: version,
      default_prefixlen: bounds.default,
      min_prefixlen: bounds.min,
      max_prefixlen: bounds.max,
      default_quota: body.default_quota ?? null,
      is_default: item.is_default as boolean,
      shared: item.shared as boolean,
      description: body.description,
      revision_number: 0,
      created_at: now,
      updated_at: now,
    };
    const row = await insertRow(this.deps.store, tx, 'subnetpools', values);
    await replacePrefixes(tx, row.id, prefixes);
    await addTags(tx, 'subnetpool', row.id, body.tags ?? []);
    return this.view((await getSubnetPoolRecord(tx, row.id))!);
  }

  async update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const record = await this.getVisible(tx, ctx, id);
      const original = this.view(record);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(original, body), body);
      checkRevision(record.row.revision_number, precondition);
      const version = record.row.ip_version as 4 | 6;
      const change = subnetPoolUpdate(body);
      if (record.row.address_scope_id) {
        await this.addressScopes.checkPoolUpdateAllowed(tx, ctx, id, record.row.address_scope_id);
      }
      let prefixesNow = record.prefixes;
      if (change.prefixes !== undefined) {
        const prefixes = normalizePrefixes(change.prefixes);
        if (versionOf(prefixes) !== version) throw PrefixVersionMismatch({});
        // Prefixes only grow: every current one must stay covered.
        const lost = record.prefixes.find((p) => !isFree(p, prefixes, []));
        if (lost)
          throw IllegalSubnetPoolPrefixUpdate({ msg: `Existing prefix ${lost} is not a subset of the new prefixes` });
        await replacePrefixes(tx, id, prefixes);
        prefixesNow = prefixes;
      }
      const scopeId = change.address_scope_id === undefined ? record.row.address_scope_id : change.address_scope_id;
      if (scopeId && (change.address_scope_id !== undefined || change.prefixes !== undefined)) {
        await this.addressScopes.checkPoolJoins(tx, ctx, scopeId, { id, ipVersion: version, prefixes: prefixesNow });
      }
      const bounds = {
        min: change.min_prefixlen ?? record.row.min_prefixlen,
        max: change.max_prefixlen ?? record.row.max_prefixlen,
        default: change.default_prefixlen ?? record.row.default_prefixlen,
      };
      checkBounds(version, bounds);
      const patch: RowPatch<'subnetpools'> = {
        default_prefixlen: bounds.default,
        min_prefixlen: bounds.min,
        max_prefixlen: bounds.max,
      };
      if (change.name !== undefined) patch.name = change.name;
      if (change.description !== undefined) patch.description = change.description;
      if (change.default_quota !== undefined) patch.default_quota = change.default_quota;
      if (change.address_scope_id !== undefined) patch.address_scope_id = change.address_scope_id;
      if ('is_default' in body) patch.is_default = body.is_default as boolean;
      await updateRow(deps.store, tx, 'subnetpools', id, {
        ...patch,
        revision_number: record.row.revision_number + 1,
        updated_at: timestamp(),
      });
      return { result: this.view((await getSubnetPoolRecord(tx, id))!), events: [] };
    });
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const record = await this.getVisible(tx, ctx, id);
      deps.authz.enforceDelete(ctx, this.spec, this.view(record));
      checkRevision(record.row.revision_number, precondition);
      if ((await allocatedFromPool(tx, id)).length > 0) {
        throw SubnetPoolInUse({ subnet_pool_id: id, reason: 'Subnet pool has existing allocations' });
      }
      await deleteRowWithTags(tx, 'subnetpools', id);
      return { result: undefined, events: [] };
    });
  }

  /**
   * The CIDR a new subnet gets from the pool (`SubnetAllocator.allocate_subnet`): the requested one
   * if it is free inside the pool, else the lowest free block of `prefixlen` (the pool's default
   * when not given), within the pool's bounds. Runs in the subnet's transaction, under a lock on
   * the pool, so two subnets never get one block.
   */
  async allocateCidr(
    tx: Tx,
    ctx: RequestContext,
    poolId: string,
    request: { ipVersion: number; cidr?: string; prefixlen?: number; networkId: string },
  ): Promise<string> {
    await this.deps.store.lockKey(tx, `subnetpool:${poolId}`);
    const pool = await this.getVisible(tx, ctx, poolId);
    if (request.ipVersion !== pool.row.ip_version) {
      throw BadRequest({
        resource: 'subnets',
        msg: `Cannot allocate IPv${request.ipVersion} subnet from IPv${pool.row.ip_version} subnet pool`,
      });
    }
    await this.addressScopes.checkSubnetJoins(
      tx,
      request.networkId,
      request.ipVersion,
      pool.row.address_scope_id ?? null,
    );
    const allocated = await allocatedFromPool(tx, poolId);
    const prefixlen = request.cidr
      ? parseNetwork(request.cidr)!.prefixLength
      : (request.prefixlen ?? pool.row.default_prefixlen);
    if (prefixlen > pool.row.max_prefixlen) {
      throw MaxPrefixSubnetAllocationError({ prefixlen, max_prefixlen: pool.row.max_prefixlen });
    }
    if (prefixlen < pool.row.min_prefixlen) {
      throw MinPrefixSubnetAllocationError({ prefixlen, min_prefixlen: pool.row.min_prefixlen });
    }
    if (request.cidr) {
      if (!isFree(request.cidr, pool.prefixes, allocated)) {
        throw SubnetAllocationError({ reason: 'Cannot allocate requested subnet from the available set of prefixes' });
      }
      return request.cidr;
    }
    const cidr = allocateBlock(pool.prefixes, allocated, prefixlen);
    if (!cidr)
      throw SubnetAllocationError({ reason: `Insufficient prefix space to allocate subnet size /${prefixlen}` });
    return cidr;
  }
}

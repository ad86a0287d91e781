/**
 * RBAC policies (`/v2.0/rbac-policies`, `neutron/db/rbac_db_mixin.py` with the network callbacks of
 * `db_base_plugin_v2.py` and `external_net_db.py`): share a network with one project or all
 * (`access_as_shared`), or offer it as external (`access_as_external`). QoS policies are shared the
 * same way (`object_type: qos_policy`, `access_as_shared` only; `qos-rbac.ts`).
 *
 * The same rows back a network's `shared` and `router:external`, so policies made through either
 * door show through the other. Only the network's owner (or an admin) may write policies on it;
 * only an admin may target `*`. A policy cannot be withdrawn from a project that still has ports on
 * the network through it, nor an external policy from a project whose router has its gateway there
 * (RbacPolicyInUse). An external policy makes the network external; removing the last one makes it
 * internal again. Writing a policy bumps the network's revision, as Neutron's
 * `revises_on_change` does.
 */
import { rbacCreate, rbacUpdate } from './body.js';
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import { InvalidInput, NeutronError, RbacPolicyInUse, RbacPolicyNotFound, DuplicateRbacPolicy } from '../errors.js';
import type { ListQuery } from '../list-query.js';
import { policyTarget, type Body, type Precondition, type ResourceService, type View } from '../resource.js';
import { timestamp } from '../standard-attributes.js';
import type { NetworkService } from '../networks/service.js';
import type { Db, Tx } from '../../store/database.js';
import { TRUE, type Condition } from '../../store/list.js';
import {
  ACCESS_AS_EXTERNAL,
  ACCESS_AS_SHARED,
  getNetworkAccess,
  insertRbac,
  markExternal,
  projectsUsingSharedNetwork,
  setExternal,
  type NetworkAccess,
} from '../../store/networks.js';
import {
  deleteRbacRow,
  getRbacRow,
  hasRbacAction,
  isDefaultExternal,
  listRbacRows,
  projectHasPorts,
  projectsWithGatewayOn,
  retargetRbac,
  rbacVisibility,
  type RbacRow,
} from '../../store/rbac.js';
import type { NetworkRbacTable } from '../../store/schema.js';
import { updateRow } from '../../store/rows.js';
import { RBAC_POLICY_SPEC } from './attributes.js';
import { QosRbac } from './qos-rbac.js';

/** `NetworkRBAC.get_valid_actions()`, printed as Neutron prints the Python tuple. */
const NETWORK_ACTIONS = [ACCESS_AS_SHARED, ACCESS_AS_EXTERNAL];
const NETWORK_ACTIONS_TEXT = `('${NETWORK_ACTIONS.join("', '")}')`;

function rbacView(row: NetworkRbacTable, objectType = 'network'): View {
  return {
    id: row.id,
    project_id: row.project_id,
    action: row.action,
    object_id: row.object_id,
    target_tenant: row.target_project,
    object_type: objectType,
    tenant_id: row.project_id,
  };
}

export class RbacPolicyService implements ResourceService {
  readonly spec = RBAC_POLICY_SPEC;
  private readonly qos: QosRbac;

  constructor(
    private readonly deps: CoreDeps,
    private readonly networks: NetworkService,
  ) {
    this.qos = new QosRbac(deps);
  }

  notFound(id: string | null): Error {
    return RbacPolicyNotFound({ id, object_type: 'unknown' });
  }

  private scope(ctx: RequestContext): (objectType: 'network' | 'qos_policy') => Condition {
    return (objectType) => (ctx.isAdmin ? TRUE : rbacVisibility(objectType, ctx.projectId));
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const { rows, markerFound } = await listRbacRows(
      { store: this.deps.store, projectId: ctx.projectId },
      query,
      this.scope(ctx),
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    return rows.map((r) => rbacView(r, r.object_type)).filter((v) => this.deps.authz.canRead(ctx, 'rbac_policy', v));
  }

  /** The policy, if the caller may see it (its own project's, or any for an admin). */
  private async visible(db: Db, ctx: RequestContext, id: string): Promise<RbacRow> {
    const row = await getRbacRow(db, id);
    if (!row || (!ctx.isAdmin && row.project_id !== ctx.projectId)) throw this.notFound(id);
    if (!this.deps.authz.canRead(ctx, 'rbac_policy', rbacView(row, row.object_type))) throw this.notFound(id);
    return row;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    const row = await this.visible(this.deps.store.db, ctx, id);
    return rbacView(row, row.object_type);
  }

  /** The policy's network, which the caller must own unless admin. */
  private async ownedNetwork(tx: Tx, ctx: RequestContext, networkId: string): Promise<NetworkAccess> {
    const network = await this.networks.getVisible(tx, ctx, networkId);
    if (!ctx.isAdmin && network.row.project_id !== ctx.projectId) {
      throw InvalidInput({ error_message: 'Only admins can manipulate policies on networks they do not own' });
    }
    return network;
  }

  private async bumpNetwork(tx: Tx, network: NetworkAccess): Promise<void> {
    await updateRow(this.deps.store, tx, 'networks', network.row.id, {
      revision_number: network.row.revision_number + 1,
      updated_at: timestamp(),
    });
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const item = items[0]!;
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      deps.authz.enforceCreate(ctx, this.spec, item);
      const body = rbacCreate(item);
      if (item.object_type === 'qos_policy') {
        return { result: [rbacView(await this.qos.create(tx, ctx, body), 'qos_policy')], events: [] };
      }
      const action = body.action;
      if (!NETWORK_ACTIONS.includes(action)) {
        throw new NeutronError(
          'InvalidActionForType',
          400,
          `Invalid action '${action}' for object type 'network'. Valid actions: ${NETWORK_ACTIONS_TEXT}`,
        );
      }
      const network = await this.ownedNetwork(tx, ctx, body.object_id);
      await deps.quotas.enforce(tx, body.project_id, { rbac_policy: 1 });
      const row: NetworkRbacTable = {
        id: randomUUID(),
        project_id: body.project_id,
        object_id: network.row.id,
        target_project: body.target_tenant,
        action,
      };
      if (network.rbac.some((r) => r.action === action && r.target_project === row.target_project)) {
        throw DuplicateRbacPolicy({});
      }
      await insertRbac(tx, row);
      // An external policy turns the network external (for the targeted projects only).
      if (action === ACCESS_AS_EXTERNAL) await markExternal(deps.store, tx, network.row.id);
      await this.bumpNetwork(tx, network);
      return { result: [rbacView(row)], events: [] };
    });
  }

  /**
   * Refuses to withdraw access a project still uses: its ports on the network, unless another
   * policy (or the network's ownership) still covers them.
   */
  private async ensureNotInUse(tx: Tx, row: NetworkRbacTable, network: NetworkAccess): Promise<void> {
    if (row.action !== ACCESS_AS_SHARED || row.target_project === network.row.project_id) return;
    let users: string[];
    if (row.target_project === '*') {
      // Without the wildcard, which projects' ports would no other policy cover?
      const others = network.rbac.filter((r) => r.action === ACCESS_AS_SHARED && r.target_project !== '*');
      const covered = new Set(others.map((r) => r.target_project));
      users = (await projectsUsingSharedNetwork(tx, network.row.id, network.row.project_id)).filter(
        (p) => !covered.has(p),
      );
    } else {
      const wildcard = network.rbac.some((r) => r.action === ACCESS_AS_SHARED && r.target_project === '*');
      users = !wildcard && (await projectHasPorts(tx, network.row.id, row.target_project)) ? [row.target_project] : [];
    }
    if (users.length > 0) {
      throw RbacPolicyInUse({
        object_id: network.row.id,
        details: `Unable to reconfigure sharing settings for network ${network.row.id}. Multiple tenants are using it.`,
      });
    }
  }

  /**
   * `_validate_ext_not_in_use_by_project`: an external policy may not be withdrawn (deleted, or
   * retargeted to `newTarget`) from a project whose router has its gateway on the network, unless
   * another entry still covers it; the wildcard of a default external network stays.
   */
  private async ensureExternalNotInUse(
    tx: Tx,
    row: NetworkRbacTable,
    network: NetworkAccess,
    newTarget?: string,
  ): Promise<void> {
    if (row.action !== ACCESS_AS_EXTERNAL) return;
    const external = network.rbac.filter((r) => r.action === ACCESS_AS_EXTERNAL);
    let inUse: boolean;
    if (row.target_project !== '*') {
      if (external.some((r) => r.target_project === '*')) return;
      inUse = (await projectsWithGatewayOn(tx, network.row.id)).includes(row.target_project);
    } else {
      if (await isDefaultExternal(tx, network.row.id)) {
        throw RbacPolicyInUse({
          object_id: network.row.id,
          details: 'Default external networks must be shared to everyone.',
        });
      }
      const covered = external.map((r) => r.target_project).filter((p) => p !== '*');
      if (newTarget) covered.push(newTarget);
      inUse = (await projectsWithGatewayOn(tx, network.row.id)).some((p) => !covered.includes(p));
    }
    if (inUse) {
      throw RbacPolicyInUse({
        object_id: network.row.id,
        details: 'There are routers attached to this network that depend on this policy for access.',
      });
    }
  }

  async update(ctx: RequestContext, id: string, body: Body, _precondition: Precondition): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const row = await this.visible(tx, ctx, id);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(rbacView(row, row.object_type), body), body);
      const target = rbacUpdate(body).target_tenant;
      if (target === undefined || target === row.target_project) {
        return { result: rbacView(row, row.object_type), events: [] };
      }
      if (row.object_type === 'qos_policy') {
        await this.qos.retarget(tx, ctx, row, target);
        return { result: rbacView({ ...row, target_project: target }, row.object_type), events: [] };
      }
      const network = await this.ownedNetwork(tx, ctx, row.object_id);
      await this.ensureNotInUse(tx, row, network);
      await this.ensureExternalNotInUse(tx, row, network, target);
      if (network.rbac.some((r) => r.action === row.action && r.target_project === target))
        throw DuplicateRbacPolicy({});
      await retargetRbac(tx, 'network', id, target);
      await this.bumpNetwork(tx, network);
      return { result: rbacView({ ...row, target_project: target }), events: [] };
    });
  }

  async delete(ctx: RequestContext, id: string, _precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const row = await this.visible(tx, ctx, id);
      deps.authz.enforceDelete(ctx, this.spec, rbacView(row, row.object_type));
      if (row.object_type === 'qos_policy') {
        await this.qos.delete(tx, row);
        return { result: undefined, events: [] };
      }
      const network = (await getNetworkAccess(tx, row.object_id))!;
      await this.ensureNotInUse(tx, row, network);
      await this.ensureExternalNotInUse(tx, row, network);
      await deleteRbacRow(tx, 'network', id);
      // The last external policy gone, the network is internal again.
      if (row.action === ACCESS_AS_EXTERNAL && !(await hasRbacAction(tx, row.object_id, ACCESS_AS_EXTERNAL))) {
        await setExternal(deps.store, tx, row.object_id, false, network.row.project_id, randomUUID());
      }
      await this.bumpNetwork(tx, network);
      return { result: undefined, events: [] };
    });
  }
}

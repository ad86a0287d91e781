/**
 * QoS policies (`/v2.0/qos/policies`, `qos_plugin.py`, `objects/qos/policy.py`): a project's (or a
 * shared) set of rules that ports and networks point at. One default policy per project
 * (`qos-default`) goes to the project's new networks that name none. A policy in use cannot go.
 * Its rules are `rule-service.ts`; attaching it to ports and networks is `bindings.ts`.
 */
import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../../store/database.js';
import { TRUE } from '../../store/list.js';
import {
  defaultQosPolicyId,
  firstQosBinding,
  getQosPolicyRecord,
  listQosPolicyRecords,
  qosPolicyVisibility,
  setDefaultQosPolicy,
  type QosPolicyRecord,
} from '../../store/qos.js';
import { deleteRowWithTags, insertRow, updateRow, type RowPatch } from '../../store/rows.js';
import { toBool } from '../../store/schema.js';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import type { ListQuery } from '../list-query.js';
import {
  policyTarget,
  stringField,
  type Body,
  type Precondition,
  type ResourceService,
  type View,
} from '../resource.js';
import { checkRevision } from '../revisions.js';
import { deleteRbacRow, insertQosRbac, qosRbacEntries, syncQosShared } from '../../store/rbac.js';
import { validateQosRbacDelete } from './rbac.js';
import { timestamp } from '../standard-attributes.js';
import { QOS_POLICY_SPEC } from './attributes.js';
import { QosPolicyInUse, QosPolicyNotFound, QoSPolicyDefaultAlreadyExists } from './errors.js';
import { nestedRuleView } from './rules.js';

export class QosPolicyService implements ResourceService {
  readonly spec = QOS_POLICY_SPEC;

  constructor(private readonly deps: CoreDeps) {}

  notFound(id: string | null): Error {
    return QosPolicyNotFound({ policy_id: id });
  }

  /**
   * `shared` is as the caller sees it (`rbac_db.py` `_to_dict_hook`): an entry shares the policy
   * with everyone or with the caller's project.
   */
  view(record: QosPolicyRecord, ctx?: RequestContext): View {
    const { row } = record;
    const withCaller = ctx?.projectId != null && record.sharedWith.includes(ctx.projectId);
    return {
      id: row.id,
      name: row.name,
      shared: toBool(row.shared) || record.sharedWith.includes('*') || withCaller,
      tenant_id: row.project_id,
      rules: record.rules.map(nestedRuleView),
      is_default: record.isDefault,
      description: row.description,
      project_id: row.project_id,
      tags: record.tags,
      created_at: row.created_at,
      updated_at: row.updated_at,
      revision_number: row.revision_number,
    };
  }

  /** Own, shared, or any for an admin, and `get_policy` agrees (`QosPolicy.get_policy_obj`). */
  canSee(ctx: RequestContext, view: View): boolean {
    const mine = ctx.isAdmin || ctx.isService || view.project_id === ctx.projectId || view.shared === true;
    return mine && this.deps.authz.canRead(ctx, 'policy', view);
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const scope = ctx.isAdmin || ctx.isService ? TRUE : qosPolicyVisibility(this.deps.store, ctx.projectId);
    const env = { store: this.deps.store, projectId: ctx.projectId };
    const page = await listQosPolicyRecords(env, query, scope);
    // Neutron's object pager (`objects/base.py` Pager.to_kwargs) looks the marker up in the caller's
    // scope and, not finding it, pages from the start: no 404 (the plugin's last `next` link of an
    // admin's list, followed by a member, names a policy the member cannot see).
    const { records } = page.markerFound
      ? page
      : await listQosPolicyRecords(env, { ...query, marker: undefined }, scope);
    return records.map((r) => this.view(r, ctx)).filter((v) => this.canSee(ctx, v));
  }

  /** The policy if the caller may see it, else QosPolicyNotFound. */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<QosPolicyRecord> {
    const record = await getQosPolicyRecord(db, id);
    if (!record || !this.canSee(ctx, this.view(record, ctx))) throw this.notFound(id);
    return record;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return this.view(await this.getVisible(this.deps.store.db, ctx, id), ctx);
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const { deps } = this;
    // Ports and networks that use a policy hear of it through their own events; a new one has none.
    return writeTransaction(deps, async (tx) => {
      for (const item of items) deps.authz.enforceCreate(ctx, this.spec, item);
      const views: View[] = [];
      for (const item of items) {
        const now = timestamp();
        const row = await insertRow(deps.store, tx, 'qos_policies', {
          id: randomUUID(),
          project_id: stringField(item, 'project_id'),
          name: stringField(item, 'name'),
          shared: item.shared === true,
          description: stringField(item, 'description'),
          revision_number: 0,
          created_at: now,
          updated_at: now,
        });
        // `_create_post`: a shared policy gets its wildcard entry, owned by the policy's project.
        if (item.shared === true) await this.attachWildcard(tx, row.id, row.project_id);
        if (item.is_default === true) await this.setDefault(tx, row.project_id, row.id);
        views.push(this.view((await getQosPolicyRecord(tx, row.id))!, ctx));
      }
      return { result: views, events: [] };
    });
  }

  /** `QosPolicy.set_default`: a project has at most one default policy. */
  private async setDefault(tx: Tx, projectId: string, policyId: string): Promise<void> {
    const current = await defaultQosPolicyId(tx, projectId);
    if (current === policyId) return;
    if (current) throw QoSPolicyDefaultAlreadyExists({ project_id: projectId });
    await setDefaultQosPolicy(tx, projectId, policyId);
  }

  async update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const record = await this.getVisible(tx, ctx, id);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(this.view(record), body), body);
      checkRevision(record.row.revision_number, precondition);
      const patch: RowPatch<'qos_policies'> = {};
      if (typeof body.name === 'string') patch.name = body.name;
      if (typeof body.description === 'string') patch.description = body.description;
      if (typeof body.shared === 'boolean') await this.updateShared(tx, ctx, record, body.shared);
      if (body.is_default === true) await this.setDefault(tx, record.row.project_id, id);
      if (body.is_default === false && record.isDefault) await setDefaultQosPolicy(tx, record.row.project_id, null);
      await updateRow(deps.store, tx, 'qos_policies', id, {
        ...patch,
        revision_number: record.row.revision_number + 1,
        updated_at: timestamp(),
      });
      return { result: this.view((await getQosPolicyRecord(tx, id))!, ctx), events: [] };
    });
  }

  private async attachWildcard(tx: Tx, policyId: string, projectId: string): Promise<void> {
    await insertQosRbac(this.deps.store, tx, {
      id: randomUUID(),
      project_id: projectId,
      object_id: policyId,
      target_project: '*',
      action: 'access_as_shared',
    });
  }

  /**
   * `update_shared`: sharing adds the wildcard entry (owned by the caller's project, as Neutron's
   * `attach_rbac`); unsharing removes it, refused while a project using the policy has no other
   * entry (`_validate_rbac_policy_delete`, the owner included).
   */
  private async updateShared(tx: Tx, ctx: RequestContext, record: QosPolicyRecord, shared: boolean): Promise<void> {
    const id = record.row.id;
    const wildcard = (await qosRbacEntries(tx, id)).find(
      (e) => e.target_project === '*' && e.action === 'access_as_shared',
    );
    if (shared) {
      if (!wildcard) await this.attachWildcard(tx, id, ctx.projectId ?? record.row.project_id);
      return;
    }
    if (!wildcard && !toBool(record.row.shared)) return;
    await validateQosRbacDelete(tx, id, '*');
    if (wildcard) await deleteRbacRow(tx, 'qos_policy', wildcard.id);
    await syncQosShared(this.deps.store, tx, id);
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const record = await this.getVisible(tx, ctx, id);
      deps.authz.enforceDelete(ctx, this.spec, this.view(record));
      checkRevision(record.row.revision_number, precondition);
      const binding = await firstQosBinding(tx, id);
      if (binding)
        throw QosPolicyInUse({ policy_id: id, object_type: binding.objectType, object_id: binding.objectId });
      await deleteRowWithTags(tx, 'qos_policies', id);
      return { result: undefined, events: [] };
    });
  }
}

/**
 * Port bindings (`binding-extended`, ML2's `create_port_binding`, `update_port_binding`,
 * `activate`, `delete_port_binding`): what Nova calls during a live migration. A port has one
 * ACTIVE binding, the port's own `binding:*` attributes, and at most one INACTIVE binding per other
 * host (store/port-bindings.ts). Nova binds the target host (INACTIVE), activates it once the VM
 * runs there (the old binding becomes INACTIVE and unbound, the port DOWN until OVN sees it up on
 * the target), then deletes the old one. Only compute ports have bindings besides the active one.
 *
 * Binding a host asks the drivers (`DriverManager.bindPort`), as a port update does; a host no
 * driver takes is Neutron's `PortBindingError` (500) and nothing is written. The OVN side of a
 * migration (both chassis requested) follows `binding:profile.migrating_to`, which Nova sets, as
 * ML2/OVN does (drivers/ovn/mapping.ts).
 */
import { NOT_SPECIFIED, type ResourceSpec } from '../attributes.js';
import { adminContext, type RequestContext } from '../context.js';
import { portState } from '../driver-states.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import {
  BadRequest,
  PortBindingAlreadyActive,
  PortBindingAlreadyExists,
  PortBindingError,
  PortBindingNotFound,
  PortNotFound,
} from '../errors.js';
import type { Body, View } from '../resource.js';
import { timestamp } from '../standard-attributes.js';
import { isPlainObject, orNone, validateDict, validateString, validateValues } from '../validators.js';
import type { ResourceContext } from '../../drivers/contract.js';
import type { PortState } from '../../drivers/host.js';
import type { Db, Tx } from '../../store/database.js';
import {
  deleteInactiveBinding,
  inactiveBindings,
  putInactiveBinding,
  type StoredBinding,
} from '../../store/port-bindings.js';
import { getPortRecord, lockPortRow } from '../../store/ports.js';
import { updateRow, type RowPatch } from '../../store/rows.js';
import { VNIC_TYPES } from './attributes.js';
import type { PortService } from './service.js';

const SHOWN = { post: false, put: false, visible: true, filter: true } as const;

/** neutron-lib's `portbindings_extended` sub-resource attributes. */
export const BINDING_SPEC: ResourceSpec = {
  name: 'binding',
  collection: 'bindings',
  path: 'bindings',
  allowBulk: false,
  attributes: {
    host: { post: true, put: true, visible: true, filter: true, validate: validateString(255) },
    vif_type: SHOWN,
    vif_details: { ...SHOWN, filter: false },
    vnic_type: {
      post: true,
      put: true,
      default: 'normal',
      visible: true,
      filter: true,
      validate: validateValues(VNIC_TYPES),
    },
    profile: { post: true, put: true, default: NOT_SPECIFIED, visible: true, validate: orNone(validateDict()) },
    status: SHOWN,
    // Allowed in a body (neutron-lib has it, `required_by_policy`), never shown: the port's project rules.
    project_id: { post: true, put: false, default: '', visible: false, validate: validateString(255) },
  },
};

type Status = 'ACTIVE' | 'INACTIVE';

/** `_make_port_binding_dict`: no `bound_drivers` (only the port adds those). */
function bindingView(binding: StoredBinding, status: Status): View {
  return {
    host: binding.host,
    vif_type: binding.vif_type,
    vnic_type: binding.vnic_type,
    status,
    profile: binding.profile,
    vif_details: binding.vif_details,
  };
}

function activeBinding(port: PortState & { 'binding:vif_details': Readonly<Record<string, unknown>> }): StoredBinding {
  return {
    host: port['binding:host_id'],
    vnic_type: port['binding:vnic_type'],
    profile: port['binding:profile'],
    vif_type: port['binding:vif_type'],
    vif_details: port['binding:vif_details'],
  };
}

/** Writes of a binding change the port as drivers hear of it; it is no API port update (no `network-changed`). */
const bindingRequest = () => adminContext('port-binding');

export class PortBindingService {
  constructor(
    private readonly deps: CoreDeps,
    private readonly ports: PortService,
  ) {}

  /** The port, only if it may have several bindings; `tx` locks its row for the write that follows. */
  private async computePort(db: Db, portId: string, tx?: Tx) {
    if (tx) await lockPortRow(this.deps.store, tx, portId);
    const record = await getPortRecord(db, portId);
    if (!record) throw PortNotFound({ port_id: portId });
    const view = this.ports.view(record);
    const port = { ...portState(view), 'binding:vif_details': view['binding:vif_details'] as Record<string, unknown> };
    // `_validate_port_supports_multiple_bindings` (Zed's message).
    if (!port.device_owner.startsWith('compute:')) {
      throw BadRequest({ resource: 'port', msg: `Invalid port ${portId}. Operation only valid on compute ports` });
    }
    return { port, view };
  }

  async list(ctx: RequestContext, portId: string, filters: Readonly<Record<string, readonly unknown[]>>) {
    this.deps.authz.enforceRule(ctx, 'get_port_binding', {});
    const db = this.deps.store.db;
    const { port } = await this.computePort(db, portId);
    const all = [
      bindingView(activeBinding(port), 'ACTIVE'),
      ...(await inactiveBindings(db, portId)).map((b) => bindingView(b, 'INACTIVE')),
    ];
    return all.filter((b) =>
      Object.entries(filters).every(([key, values]) => values.some((v) => String(v) === String(b[key]))),
    );
  }

  async show(ctx: RequestContext, portId: string, host: string): Promise<View> {
    const found = (await this.list(ctx, portId, {})).find((b) => b.host === host);
    if (!found) throw PortBindingNotFound({ port_id: portId, host });
    return found;
  }

  /** `create_port_binding`: INACTIVE, since the port always has its ACTIVE binding here. */
  async create(ctx: RequestContext, portId: string, body: Body): Promise<View> {
    this.deps.authz.enforceRule(ctx, 'create_port_binding', {});
    return writeTransaction(this.deps, async (tx) => {
      const { port } = await this.computePort(tx, portId, tx);
      const host = String(body.host);
      const existing = await inactiveBindings(tx, portId);
      if (host === port['binding:host_id'] || existing.some((b) => b.host === host)) {
        throw PortBindingAlreadyExists({ port_id: portId, host });
      }
      const profile = isPlainObject(body.profile) ? body.profile : {};
      const binding = this.bind(port, { host, vnic_type: String(body.vnic_type), profile });
      await putInactiveBinding(tx, portId, binding);
      return { result: bindingView(binding, 'INACTIVE'), events: [] };
    });
  }

  /** `update_port_binding`: new VNIC type or profile for the binding on `host`, bound again. */
  async update(ctx: RequestContext, portId: string, host: string, body: Body): Promise<View> {
    this.deps.authz.enforceRule(ctx, 'update_port_binding', {});
    return writeTransaction(this.deps, async (tx) => {
      const { port, view } = await this.computePort(tx, portId, tx);
      const active = host === port['binding:host_id'];
      const current = active ? activeBinding(port) : (await inactiveBindings(tx, portId)).find((b) => b.host === host);
      if (!current) throw PortBindingNotFound({ port_id: portId, host });
      const wanted = {
        host,
        vnic_type: typeof body.vnic_type === 'string' ? body.vnic_type : current.vnic_type,
        profile: 'profile' in body ? (isPlainObject(body.profile) ? body.profile : {}) : current.profile,
      };
      const binding = this.bind(port, wanted);
      if (!active) {
        await putInactiveBinding(tx, portId, binding);
        return { result: bindingView(binding, 'INACTIVE'), events: [] };
      }
      const changed =
        binding.vnic_type !== current.vnic_type || JSON.stringify(binding.profile) !== JSON.stringify(current.profile);
      const event = await this.writeActive(tx, view, binding, changed ? 'DOWN' : undefined);
      return { result: bindingView(binding, 'ACTIVE'), events: [event] };
    });
  }

  /**
   * `activate`: the INACTIVE binding on `host` becomes the port's; the old one stays, INACTIVE and
   * unbound, until Nova deletes it. The port goes DOWN until the data plane reports it up there.
   */
  async activate(ctx: RequestContext, portId: string, host: string): Promise<View> {
    this.deps.authz.enforceRule(ctx, 'activate', {});
    return writeTransaction(this.deps, async (tx) => {
      const { port, view } = await this.computePort(tx, portId, tx);
      if (host === port['binding:host_id']) throw PortBindingAlreadyActive({ port_id: portId, host });
      const target = (await inactiveBindings(tx, portId)).find((b) => b.host === host);
      if (!target) throw PortBindingNotFound({ port_id: portId, host });
      await deleteInactiveBinding(tx, portId, host);
      const old = activeBinding(port);
      if (old.host) await putInactiveBinding(tx, portId, { ...old, vif_type: 'unbound', vif_details: {} });
      const event = await this.writeActive(tx, view, target, 'DOWN');
      return { result: bindingView(target, 'ACTIVE'), events: [event] };
    });
  }

  /**
   * `delete_port_binding`. Deleting the ACTIVE binding leaves the port unbound (Neutron leaves it
   * without any binding row; octonet's port always shows one, as a never-bound port does).
   */
  async delete(ctx: RequestContext, portId: string, host: string): Promise<void> {
    this.deps.authz.enforceRule(ctx, 'delete_port_binding', {});
    await writeTransaction(this.deps, async (tx) => {
      const { port, view } = await this.computePort(tx, portId, tx);
      if (await deleteInactiveBinding(tx, portId, host)) return { result: undefined, events: [] };
      if (!host || host !== port['binding:host_id']) throw PortBindingNotFound({ port_id: portId, host });
      const unbound = {
        host: '',
        vnic_type: port['binding:vnic_type'],
        profile: {},
        vif_type: 'unbound',
        vif_details: {},
      };
      return { result: undefined, events: [await this.writeActive(tx, view, unbound, 'DOWN')] };
    });
  }

  /** Asks the drivers to bind the port on `wanted.host`; PortBindingError when none can. */
  private bind(port: PortState, wanted: Pick<StoredBinding, 'host' | 'vnic_type' | 'profile'>): StoredBinding {
    const result = this.deps.drivers.bindPort({
      ...port,
      'binding:host_id': wanted.host,
      'binding:vnic_type': wanted.vnic_type,
      'binding:profile': wanted.profile,
    });
    if (result.vifType === 'binding_failed') throw PortBindingError({ port_id: port.id, host: wanted.host });
    return { ...wanted, vif_type: result.vifType, vif_details: result.vifDetails };
  }

  /** Makes `binding` the port's own (its `binding:*` attributes), bumping the revision. */
  private async writeActive(tx: Tx, original: View, binding: StoredBinding, status?: 'DOWN'): Promise<ResourceContext> {
    const id = String(original.id);
    const patch: RowPatch<'ports'> = {
      binding_host_id: binding.host,
      binding_vnic_type: binding.vnic_type,
      binding_profile: binding.profile,
      binding_vif_type: binding.vif_type,
      binding_vif_details: binding.vif_details,
      revision_number: Number(original.revision_number) + 1,
      updated_at: timestamp(),
    };
    if (status) patch.status = status;
    await updateRow(this.deps.store, tx, 'ports', id, patch);
    const current = this.ports.view((await getPortRecord(tx, id))!);
    return {
      resource: 'port',
      operation: 'update',
      request: bindingRequest(),
      current: portState(current),
      original: portState(original),
    };
  }
}

/**
 * Resource attribute maps and the request-body rules every resource shares.
 *
 * A `ResourceSpec` is octonet's copy of a neutron-lib attribute map (core definition merged with
 * the extensions octonet serves), in Neutron's attribute order, since the first failing attribute
 * in that order is the one an error names. `prepareRequestBody` is Neutron's
 * `Controller.prepare_request_body`: project info, unknown attributes, POST defaults or PUT
 * read-only checks, then converters and validators. It owns no resource semantics.
 */
import type { RequestContext } from './context.js';
import { HTTPBadRequest } from './errors.js';
import type { Converter } from './converters.js';
import type { Validator } from './validators.js';
import { isPlainObject, isTruthy } from './validators.js';

/** Neutron's ATTR_NOT_SPECIFIED: a POST default that leaves the attribute out, for the service to decide. */
export const NOT_SPECIFIED: unique symbol = Symbol('ATTR_NOT_SPECIFIED');

export interface AttributeSpec {
  /** Accepted on POST (`allow_post`). */
  readonly post: boolean;
  /** Accepted on PUT (`allow_put`). */
  readonly put: boolean;
  /**
   * The POST default. Absent on a POST-able attribute means required; `NOT_SPECIFIED` leaves the
   * attribute out of the prepared body.
   */
  readonly default?: unknown;
  readonly convert?: Converter;
  /** Converter for filter values of list attributes (`convert_list_to`). */
  readonly convertList?: Converter;
  readonly validate?: Validator;
  /** Returned in responses (`is_visible`). */
  readonly visible: boolean;
  /** May be used as a `?attr=value` filter (`is_filter`). */
  readonly filter?: boolean;
  /** May be used as a `sort_key` (`is_sort_key`). */
  readonly sort?: boolean;
  /** Writes are checked against `create_<res>:<attr>` / `update_<res>:<attr>` policy (`enforce_policy`). */
  readonly enforcePolicy?: boolean;
  /**
   * Sub-keys get their own policy rules: `true` for a list of dicts (`create_port:fixed_ips:ip_address`,
   * one per key of each element), or a dict's keys in its validator's order
   * (`update_router:external_gateway_info:enable_snat`, one per key the value sets).
   */
  readonly policySubKeys?: boolean | readonly string[];
}

export interface ResourceSpec {
  /** Singular name, the body key and policy name stem: `network`, `security_group`. */
  readonly name: string;
  /** Plural body key: `networks`, `security_groups`. */
  readonly collection: string;
  /** URL segment: `networks`, `security-groups`. */
  readonly path: string;
  /** Attributes in Neutron's order. */
  readonly attributes: Readonly<Record<string, AttributeSpec>>;
  /** Bulk POST (`{"networks": [...]}`) is accepted. */
  readonly allowBulk: boolean;
}

type Body = Record<string, unknown>;

/**
 * Copies `tenant_id` and `project_id` onto each other and refuses a mismatch
 * (`populate_project_info`).
 */
function populateProjectInfo(res: Body): void {
  if ('tenant_id' in res && !('project_id' in res)) res.project_id = res.tenant_id;
  else if ('project_id' in res && !('tenant_id' in res)) res.tenant_id = res.project_id;
  if (res.project_id !== res.tenant_id) throw HTTPBadRequest("'project_id' and 'tenant_id' do not match");
}

/** Neutron's `populate_project_id`: a caller may only name another project when admin. */
function populateProjectId(ctx: RequestContext, res: Body, isCreate: boolean, spec: ResourceSpec): void {
  populateProjectInfo(res);
  if ('tenant_id' in res && res.tenant_id !== ctx.projectId && !ctx.isAdmin && !ctx.isService) {
    throw HTTPBadRequest(
      "Specifying 'project_id' other than the authenticated project in request is not allowed for the current user.",
    );
  }
  if (isCreate && !('tenant_id' in res) && 'tenant_id' in spec.attributes) {
    if (!ctx.projectId) throw HTTPBadRequest('Running without keystone AuthN requires that project_id is specified');
    res.tenant_id = ctx.projectId;
    res.project_id = ctx.projectId;
  }
}

function verifyAttributes(spec: ResourceSpec, res: Body): void {
  const extra = Object.keys(res).filter((k) => !(k in spec.attributes));
  if (extra.length) throw HTTPBadRequest(`Unrecognized attribute(s) '${extra.join(', ')}'`);
}

function fillPostDefaults(spec: ResourceSpec, res: Body): void {
  for (const [name, attr] of Object.entries(spec.attributes)) {
    if (attr.post) {
      if (!('default' in attr) && !(name in res)) {
        throw HTTPBadRequest(`Failed to parse request. Required attribute '${name}' not specified`);
      }
      if (!(name in res)) {
        if (attr.default === NOT_SPECIFIED) continue;
        res[name] = structuredCloneDefault(attr.default);
      }
    } else if (name in res) {
      throw HTTPBadRequest(`Attribute '${name}' not allowed in POST`);
    }
  }
}

function structuredCloneDefault(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

function checkPutAllowed(spec: ResourceSpec, res: Body): void {
  for (const [name, attr] of Object.entries(spec.attributes)) {
    if (name in res && !attr.put) throw HTTPBadRequest(`Cannot update read-only attribute ${name}`);
  }
}

/** Runs each present attribute's converter, then its validator (`convert_values`). */
export function convertValues(spec: ResourceSpec, res: Body): void {
  for (const [name, attr] of Object.entries(spec.attributes)) {
    if (!(name in res)) continue;
    if (attr.convert) res[name] = attr.convert(res[name]);
    const reason = attr.validate?.(res[name]);
    if (reason) throw HTTPBadRequest(`Invalid input for ${name}. Reason: ${reason}.`);
  }
}

/** Validates one resource dict of a POST or PUT body in place and returns it. */
export function prepareResource(ctx: RequestContext, spec: ResourceSpec, res: unknown, isCreate: boolean): Body {
  if (!isPlainObject(res)) throw HTTPBadRequest(`Object '${spec.name}' contains invalid data`);
  populateProjectId(ctx, res, isCreate, spec);
  verifyAttributes(spec, res);
  if (isCreate) fillPostDefaults(spec, res);
  else checkPutAllowed(spec, res);
  convertValues(spec, res);
  return res;
}

/**
 * Unwraps and validates a POST or PUT body: `{"network": {...}}`, or on a bulk-capable POST
 * `{"networks": [{...}, ...]}`. Returns the list of prepared resources and whether it was bulk.
 */
export function prepareRequestBody(
  ctx: RequestContext,
  spec: ResourceSpec,
  body: unknown,
  isCreate: boolean,
): { items: Body[]; bulk: boolean } {
  // The API already refused bodies that are not JSON objects; an empty body arrives as undefined.
  if (isPlainObject(body) && spec.collection in body) {
    if (!isCreate || !spec.allowBulk) throw HTTPBadRequest('Bulk operation not supported');
    const list = body[spec.collection];
    if (!isTruthy(list)) throw HTTPBadRequest('Resources required');
    if (!Array.isArray(list)) throw HTTPBadRequest('Body contains invalid data');
    const items = list.map((item) => {
      if (typeof item === 'string') throw HTTPBadRequest(`Object '${spec.name}' contains invalid data`);
      if (!isPlainObject(item)) throw HTTPBadRequest('Body contains invalid data');
      return prepareResource(ctx, spec, spec.name in item ? item[spec.name] : item, isCreate);
    });
    return { items, bulk: true };
  }
  const res = isPlainObject(body) ? body[spec.name] : undefined;
  if (res === undefined || res === null) throw HTTPBadRequest(`Unable to find '${spec.name}' in request body`);
  return { items: [prepareResource(ctx, spec, res, isCreate)], bulk: false };
}

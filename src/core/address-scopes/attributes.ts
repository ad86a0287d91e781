/**
 * The address scope attribute map (neutron-lib `address_scope`): no standard attributes, `shared`
 * under policy, `ip_version` fixed at creation.
 */
import type { ResourceSpec } from '../attributes.js';
import { convertToBoolean, convertToInt } from '../converters.js';
import { ID, NAME, PROJECT } from '../standard-attributes.js';
import { validateValues } from '../validators.js';

const shown = { visible: true, filter: true, sort: true } as const;

export const ADDRESS_SCOPE_SPEC: ResourceSpec = {
  name: 'address_scope',
  collection: 'address_scopes',
  path: 'address-scopes',
  allowBulk: true,
  attributes: {
    id: ID,
    name: NAME,
    tenant_id: PROJECT,
    shared: { post: true, put: true, default: false, convert: convertToBoolean, enforcePolicy: true, ...shown },
    ip_version: { post: true, put: false, convert: convertToInt, validate: validateValues([4, 6]), ...shown },
    project_id: PROJECT,
  },
};

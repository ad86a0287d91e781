/**
 * neutron-lib's `bgp` attribute maps with `bgp_4byte_asn` applied (AS numbers up to 2^32 - 1).
 * Quirks kept: `local_as`, `remote_as` and `ip_version` default to None, which their validators
 * then refuse (so they are required, with a validator's message); `auth_type` has no default;
 * `password` is never visible.
 */
import type { AttributeSpec, ResourceSpec } from '../attributes.js';
import { convertToBoolean } from '../converters.js';
import { ID, NAME } from '../standard-attributes.js';
import {
  orNone,
  validateBoolean,
  validateIpAddress,
  validateRange,
  validateString,
  validateValues,
} from '../validators.js';

const MIN_ASNUM = 1;
const MAX_4BYTE_ASNUM = 4294967295;

const shown = { visible: true, filter: true, sort: true } as const;
const asNumber = (put: boolean): AttributeSpec => ({
  post: true,
  put,
  default: null,
  validate: validateRange(MIN_ASNUM, MAX_4BYTE_ASNUM),
  ...shown,
});
const flag: AttributeSpec = {
  post: true,
  put: true,
  default: true,
  convert: convertToBoolean,
  validate: validateBoolean,
  enforcePolicy: true,
  ...shown,
};
/** `tenant_id` as n-d-r declares it (`type:string` of the project id size). */
const TENANT: AttributeSpec = { post: true, put: false, validate: validateString(255), ...shown };

export const BGP_SPEAKER_SPEC: ResourceSpec = {
  name: 'bgp_speaker',
  collection: 'bgp_speakers',
  path: 'bgp-speakers',
  allowBulk: false,
  attributes: {
    id: ID,
    name: NAME,
    local_as: asNumber(false),
    ip_version: { post: true, put: false, default: null, validate: validateValues([4, 6]), ...shown },
    tenant_id: TENANT,
    peers: { post: false, put: false, visible: true, enforcePolicy: true },
    networks: { post: false, put: false, visible: true, enforcePolicy: true },
    advertise_floating_ip_host_routes: flag,
    advertise_tenant_networks: flag,
    project_id: TENANT,
  },
};

export const BGP_PEER_SPEC: ResourceSpec = {
  name: 'bgp_peer',
  collection: 'bgp_peers',
  path: 'bgp-peers',
  allowBulk: false,
  attributes: {
    id: ID,
    name: NAME,
    peer_ip: { post: true, put: false, validate: validateIpAddress, ...shown },
    remote_as: asNumber(false),
    auth_type: { post: true, put: false, validate: validateValues(['none', 'md5']), ...shown },
    password: { post: true, put: true, default: null, validate: orNone(validateString()), visible: false },
    tenant_id: TENANT,
    project_id: TENANT,
  },
};

/**
 * neutron-lib's attribute validators (`neutron_lib/api/validators`), with their exact messages.
 *
 * A validator returns undefined when the value is fine and a message otherwise; the attribute
 * layer wraps the message as `Invalid input for <attr>. Reason: <message>.`. Validators that
 * neutron-lib lets raise InvalidInput directly throw here too. Values are JSON as parsed, so
 * messages print them the way Python's `%s` would.
 */
import { InvalidInput, pythonStr } from './errors.js';
import { formatNetwork, parseIp, parseNetwork, networkAddress, isLoopback } from './ip.js';

export type Validator = (data: unknown) => string | undefined;

const s = pythonStr;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Python's `==` on JSON values, for duplicate detection. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'boolean') return a === Number(b);
  if (typeof b === 'number' && typeof a === 'boolean') return b === Number(a);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

function collectDuplicates(items: unknown[]): unknown[] {
  const seen: unknown[] = [];
  const dups: unknown[] = [];
  for (const item of items) {
    if (seen.some((x) => jsonEqual(x, item))) {
      if (!dups.some((x) => jsonEqual(x, item))) dups.push(item);
      continue;
    }
    seen.push(item);
  }
  return dups;
}

function validateListOfItems(item: Validator, data: unknown): string | undefined {
  if (!Array.isArray(data)) return `'${s(data)}' is not a list`;
  const dups = collectDuplicates(data);
  if (dups.length) return `Duplicate items in the list: '${dups.map(s).join(', ')}'`;
  for (const x of data) {
    const msg = item(x);
    if (msg) return msg;
  }
  return undefined;
}

function pythonSet(keys: Iterable<string>): string {
  const list = [...keys];
  return list.length ? `{${list.map((k) => `'${k}'`).join(', ')}}` : 'set()';
}

function verifyDictKeys(expected: string[], target: unknown, strict = true): string | undefined {
  if (!isPlainObject(target)) {
    return `Invalid input. '${s(target)}' must be a dictionary with keys: ${s(expected)}`;
  }
  const provided = Object.keys(target);
  const ok = strict
    ? provided.length === expected.length && expected.every((k) => k in target)
    : expected.every((k) => k in target);
  if (!ok) {
    return `Validation of dictionary's keys failed. Expected keys: ${pythonSet(expected)} Provided keys: ${pythonSet(provided)}`;
  }
  return undefined;
}

/** Raises InvalidInput when the text has whitespace (neutron-lib's `validate_no_whitespace`). */
export function requireNoWhitespace(data: string): string {
  if (/\s/.test(data)) throw InvalidInput({ error_message: `'${data}' contains whitespace` });
  return data;
}

export const validateString =
  (maxLen?: number): Validator =>
  (data) => {
    if (typeof data !== 'string') return `'${s(data)}' is not a valid string`;
    if (maxLen !== undefined && [...data].length > maxLen) return `'${data}' exceeds maximum length of ${maxLen}`;
    return undefined;
  };

/** A list whose items are all strings. */
export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export const orNone =
  (v: Validator): Validator =>
  (data) =>
    data === null ? undefined : v(data);

export const validateNotEmptyString =
  (maxLen?: number): Validator =>
  (data) => {
    const msg = validateString(maxLen)(data);
    if (msg) return msg;
    if (typeof data === 'string' && !data.trim()) return `'${data}' Blank strings are not permitted`;
    return undefined;
  };

/**
 * A printable character by Python's rules for `valid_name_regex`: not a control, format,
 * unassigned or private-use character, not a line or paragraph separator, and in the Basic
 * Multilingual Plane (neutron-lib builds its character ranges only up to U+FFFF).
 */
const NAME_CHARS = /^[^\p{C}\p{Zl}\p{Zp}\u{10000}-\u{10FFFF}]*$/u;
const NAME_EDGE = /^[\p{Zs}]|[\p{Zs}]$/u;

/** `type:name_string`: a string without control characters or leading and trailing spaces. */
export const validateNameString =
  (maxLen?: number): Validator =>
  (data) => {
    const msg = validateString(maxLen)(data);
    if (msg || typeof data !== 'string') return msg;
    if (!NAME_CHARS.test(data) || NAME_EDGE.test(data)) return `'${data}' is not a valid string`;
    return undefined;
  };

/** `type:oneline_not_empty_string`: non-blank, no line breaks. */
export const validateOnelineNotEmptyString =
  (maxLen?: number): Validator =>
  (data) => {
    const msg = validateNotEmptyString(maxLen)(data);
    if (msg || typeof data !== 'string') return msg;
    if (
      data
        .split(/\r\n|\r|\n|\v|\f|\x1c|\x1d|\x1e|\x85|\u2028|\u2029/)
        .filter((l, i, all) => i < all.length - 1 || l !== '').length > 1
    ) {
      return `Multi-line string is not allowed: '${data}'`;
    }
    return undefined;
  };

export const validateListOfUniqueStrings =
  (maxLen?: number): Validator =>
  (data) =>
    validateListOfItems(validateString(maxLen), data);

/** `%(data)s is not in valid_values`: neutron-lib names the values only when given a display text. */
export const validateValues =
  (valid: readonly unknown[], display?: string): Validator =>
  (data) =>
    valid.some((v) => jsonEqual(v, data)) ? undefined : `${s(data)} is not in ${display ?? 'valid_values'}`;

export const validateBoolean: Validator = (data) =>
  boolFromString(data) === undefined ? `'${s(data)}' is not a valid boolean value` : undefined;

/** oslo's `bool_from_string(strict=True)`; undefined when the value is neither. */
export function boolFromString(data: unknown): boolean | undefined {
  if (typeof data === 'boolean') return data;
  const text = s(data).trim().toLowerCase();
  if (['1', 't', 'true', 'on', 'y', 'yes'].includes(text)) return true;
  if (['0', 'f', 'false', 'off', 'n', 'no'].includes(text)) return false;
  return undefined;
}

/** The range of Neutron's `Integer` columns (32-bit signed on every database it supports). */
const INT_COLUMN_MIN = -2147483648;
const INT_COLUMN_MAX = 2147483647;

/** Why `n` does not fit an `Integer` column (validate_range's words), or undefined when it does. */
export function intColumnRangeError(n: number): string | undefined {
  if (n > INT_COLUMN_MAX) return `'${n}' is too large - must be no larger than '${INT_COLUMN_MAX}'`;
  if (n < INT_COLUMN_MIN) return `'${n}' is too small - must be at least '${INT_COLUMN_MIN}'`;
  return undefined;
}

/** Python's `int(x)` on a JSON value; undefined where Python raises. */
export function pythonInt(data: unknown): number | undefined {
  if (typeof data === 'boolean') return data ? 1 : 0;
  if (typeof data === 'number') return Number.isFinite(data) ? Math.trunc(data) : undefined;
  if (typeof data === 'string' && /^\s*[-+]?\d+\s*$/.test(data)) return Number(data.trim());
  return undefined;
}

export const validateRange =
  (min: number | null, max: number | null): Validator =>
  (data) => {
    const n = pythonInt(data);
    if (n === undefined) return `'${s(data)}' is not an integer`;
    if (min !== null && n < min) return `'${n}' is too small - must be at least '${min}'`;
    if (max !== null && n > max) return `'${n}' is too large - must be no larger than '${max}'`;
    return undefined;
  };

export const validateNonNegative: Validator = (data) => {
  const n = pythonInt(data);
  if (n === undefined) return `'${s(data)}' is not an integer`;
  if (n < 0) return `'${n}' should be non-negative`;
  // Every attribute validated here is stored in an Integer column: beyond it, refuse here rather
  // than let one backend fail and another store it.
  return intColumnRangeError(n);
};

const MAC_RE = /^[0-9a-fA-F]{1,2}([-:])[0-9a-fA-F]{1,2}(\1[0-9a-fA-F]{1,2}){4}$/;
const MAC_PLAIN_RE = /^[0-9a-fA-F]{12}$/;
const MAC_DOTTED_RE = /^[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}$/;

/** netaddr's accepted MAC spellings, normalised to `aa:bb:cc:dd:ee:ff`; null if none matches. */
export function parseMac(data: unknown): string | null {
  if (typeof data !== 'string') return null;
  let hex: string;
  if (MAC_RE.test(data))
    hex = data
      .split(/[-:]/)
      .map((o) => o.padStart(2, '0'))
      .join('');
  else if (MAC_PLAIN_RE.test(data)) hex = data;
  else if (MAC_DOTTED_RE.test(data)) hex = data.replace(/\./g, '');
  else return null;
  return hex.toLowerCase().match(/../g)!.join(':');
}

const INVALID_MACS = new Set(['00:00:00:00:00:00', 'ff:ff:ff:ff:ff:ff']);

export const validateMacAddress: Validator = (data) => {
  if (typeof data === 'string') requireNoWhitespace(data);
  const mac = parseMac(data);
  if (!mac || INVALID_MACS.has(mac)) return `'${s(data)}' is not a valid MAC address`;
  return undefined;
};

export const validateIpAddress: Validator = (data) => {
  if (typeof data !== 'string') return `'${s(data)}' is not a valid IP address`;
  requireNoWhitespace(data);
  if (!data.includes(':')) {
    if (data.split('.').length !== 4) return `'${data}' is not a valid IP address`;
    const lax = parseIp(data, false);
    if (!lax) return `'${data}' is not a valid IP address`;
    if (!parseIp(data, true)) {
      const canonical = data
        .split('.')
        .map((o) => String(Number(o)))
        .join('.');
      return `'${data}' is not an accepted IP address, '${canonical}' is recommended`;
    }
    return undefined;
  }
  return parseIp(data) ? undefined : `'${data}' is not a valid IP address`;
};

export const validateIpAddressOrNone = orNone(validateIpAddress);

/** `type:subnet`: a CIDR with a prefix; IPv4 must be written canonically (no leading zeros). */
export const validateSubnet: Validator = (data) => {
  const bad = `'${s(data)}' is not a valid IP subnet`;
  if (typeof data !== 'string') return bad;
  requireNoWhitespace(data);
  const net = parseNetwork(data);
  if (!net) return bad;
  if (net.version === 4 && formatNetwork(net) !== data) return bad;
  return undefined;
};

export const validateSubnetOrNone = orNone(validateSubnet);

/** `type:subnet_list`: a list of CIDRs (subnet pool prefixes). */
export const validateSubnetList: Validator = (data) => validateListOfItems(validateSubnet, data);

/** `type:route_cidr` (host route destinations): no host bits, not loopback. */
export const validateRouteCidr: Validator = (data) => {
  if (typeof data !== 'string') return `'${s(data)}' is not a valid CIDR`;
  requireNoWhitespace(data);
  const net = parseNetwork(data);
  if (!net || networkAddress(net) !== net.ip) return `'${data}' is not a valid CIDR`;
  if (isLoopback(net.version, net.ip)) return `'${data}' is not a routable CIDR`;
  return undefined;
};

const UUID_RE = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

/** oslo's `is_uuid_like`: 32 hex digits, dashes optional, any case. */
export function isUuidLike(data: unknown): data is string {
  if (typeof data !== 'string') return false;
  const hex = data.replace(/^urn:uuid:/i, '').replace(/[{}]/g, '');
  return UUID_RE.test(hex) && hex.replace(/-/g, '').length === 32;
}

export const validateUuid: Validator = (data) => (isUuidLike(data) ? undefined : `'${s(data)}' is not a valid UUID`);
export const validateUuidOrNone = orNone(validateUuid);
export const validateUuidList: Validator = (data) => validateListOfItems(validateUuid, data);

export const validateFixedIps: Validator = (data) => {
  if (!Array.isArray(data)) return `Invalid data format for fixed IP: '${s(data)}'`;
  const ips: unknown[] = [];
  for (const fixedIp of data) {
    if (!isPlainObject(fixedIp)) return `Invalid data format for fixed IP: '${s(fixedIp)}'`;
    if ('ip_address' in fixedIp) {
      const ip = fixedIp.ip_address;
      const msg = ips.some((x) => jsonEqual(x, ip)) ? `Duplicate IP address '${s(ip)}'` : validateIpAddress(ip);
      if (msg) return msg;
      ips.push(ip);
    }
    if ('subnet_id' in fixedIp) {
      const msg = validateUuid(fixedIp.subnet_id);
      if (msg) return msg;
    }
  }
  return undefined;
};

export const validateIpPools: Validator = (data) => {
  if (!Array.isArray(data)) return `Invalid data format for IP pool: '${s(data)}'`;
  for (const pool of data) {
    const msg = verifyDictKeys(['start', 'end'], pool);
    if (msg) return msg;
    for (const k of ['start', 'end']) {
      const m = validateIpAddress((pool as Record<string, unknown>)[k]);
      if (m) return m;
    }
  }
  return undefined;
};

export const validateNameservers: Validator = (data) => {
  if (!Array.isArray(data) && typeof data !== 'string' && !isPlainObject(data)) {
    return `Invalid data format for nameserver: '${s(data)}'`;
  }
  const items: unknown[] = Array.isArray(data) ? data : typeof data === 'string' ? [...data] : Object.keys(data);
  const hosts: unknown[] = [];
  for (const host of items) {
    const msg = validateIpAddress(host);
    if (msg) return `'${s(host)}' is not a valid nameserver. ${msg}`;
    if (hosts.some((h) => jsonEqual(h, host))) return `Duplicate nameserver '${s(host)}'`;
    hosts.push(host);
  }
  return undefined;
};

export const validateHostroutes: Validator = (data) => {
  if (!Array.isArray(data)) return `Invalid data format for hostroute: '${s(data)}'`;
  const seen: unknown[] = [];
  for (const route of data) {
    const msg =
      verifyDictKeys(['destination', 'nexthop'], route) ??
      validateRouteCidr((route as Record<string, unknown>).destination) ??
      validateIpAddress((route as Record<string, unknown>).nexthop);
    if (msg) return msg;
    if (seen.some((r) => jsonEqual(r, route))) return `Duplicate hostroute '${s(route)}'`;
    seen.push(route);
  }
  return undefined;
};

/** A key spec of `type:dict` / `type:list_of_any_key_specs_or_none`. */
export interface KeySpec {
  required?: boolean;
  convert?: (v: unknown) => unknown;
  validate?: Validator;
}

export const validateDict =
  (specs?: Record<string, KeySpec>): Validator =>
  (data) => {
    if (!isPlainObject(data)) return `'${s(data)}' is not a dictionary`;
    if (!specs) return undefined;
    const required = Object.entries(specs)
      .filter(([, spec]) => spec.required)
      .map(([k]) => k);
    if (required.length) {
      const msg = verifyDictKeys(required, data, false);
      if (msg) return msg;
    }
    const unexpected = Object.keys(data).filter((k) => !(k in specs));
    if (unexpected.length) return `Unexpected keys supplied: ${unexpected.join(', ')}`;
    for (const [key, spec] of Object.entries(specs)) {
      if (!(key in data)) continue;
      if (spec.convert) data[key] = spec.convert(data[key]);
      const msg = spec.validate?.(data[key]);
      if (msg) return msg;
    }
    return undefined;
  };

export const validateDictOrNodata =
  (specs?: Record<string, KeySpec>): Validator =>
  (data) =>
    isTruthy(data) ? validateDict(specs)(data) : undefined;

/** `type:list_of_any_key_specs_or_none`: each item must match one of the specs; raises InvalidInput. */
export const validateAnyKeySpecsOrNone =
  (specs: Record<string, KeySpec>[]): Validator =>
  (data) => {
    if (data === null) return undefined;
    const itemValidator: Validator = (item) => {
      for (const spec of specs) {
        if (validateDict(spec)(structuredClone(item)) === undefined) {
          validateDict(spec)(item); // apply the matching spec's converters in place
          return undefined;
        }
      }
      throw InvalidInput({ error_message: `No valid key specs matched for: ${s(item)}` });
    };
    const msg = validateListOfItems(itemValidator, data);
    if (msg) throw InvalidInput({ error_message: msg });
    return undefined;
  };

/** Python truthiness of a JSON value. */
export function isTruthy(data: unknown): boolean {
  if (data === null || data === undefined || data === false || data === 0 || data === '') return false;
  if (Array.isArray(data)) return data.length > 0;
  if (isPlainObject(data)) return Object.keys(data).length > 0;
  return true;
}

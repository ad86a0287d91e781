/**
 * neutron-lib's attribute converters (`neutron_lib/api/converters.py`): they run before the
 * validators and raise InvalidInput with neutron-lib's messages when a value cannot be converted.
 */
import { InvalidInput, pythonStr } from './errors.js';
import { formatIpv6, formatNetwork, parseIp, parseNetwork } from './ip.js';
import { boolFromString, parseMac, pythonInt } from './validators.js';

export type Converter = (data: unknown) => unknown;

export const convertToBoolean: Converter = (data) => {
  const b = boolFromString(data);
  if (b === undefined) throw InvalidInput({ error_message: `'${pythonStr(data)}' cannot be converted to boolean` });
  return b;
};

export const convertToBooleanIfNotNone: Converter = (data) => (data === null ? null : convertToBoolean(data));

export const convertToInt: Converter = (data) => {
  const n = pythonInt(data);
  if (n === undefined) throw InvalidInput({ error_message: `'${pythonStr(data)}' is not an integer` });
  return n;
};

export const convertNoneToEmptyList: Converter = (data) => (data === null ? [] : data);

/** IPv6 addresses to their compact form; anything else is returned as given for the validator. */
export const convertIpToCanonicalFormat: Converter = (data) => {
  const ip = parseIp(data);
  return ip?.version === 6 ? formatIpv6(ip.value) : data;
};

export const convertCidrToCanonicalFormat: Converter = (data) => {
  const net = parseNetwork(data, true);
  if (!net) throw InvalidInput({ error_message: `${pythonStr(data)} is not in a CIDR format` });
  // Host bits are kept (`10.0.0.5/24` stays); only the spelling of the address is normalised.
  return formatNetwork(net);
};

export const convertAllocationPoolsToCanonicalFormat: Converter = (data) => {
  if (data === null) return [];
  if (!Array.isArray(data) || !data.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p))) {
    throw InvalidInput({ error_message: 'Invalid data format for allocation pools' });
  }
  return data.map((pool: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(pool).map(([k, v]) => [k, convertIpToCanonicalFormat(v)])),
  );
};

export const convertToLowercase: Converter = (data) => {
  if (typeof data !== 'string')
    throw InvalidInput({ error_message: `Input value ${pythonStr(data)} must be string type` });
  return data.toLowerCase();
};

/** `aa-BB-cc...` and friends to `aa:bb:cc:dd:ee:ff`; invalid values pass through to the validator. */
export const convertToSanitizedMacAddress: Converter = (data) => parseMac(data) ?? data;

/** `convert_kvp_list_to_dict`: `['k=v', 'k=w']` → `{k: ['v', 'w']}`. */
export const convertKvpListToDict: Converter = (data) => {
  const list = data as unknown[];
  if (list.length === 1 && list[0] === 'True') return {};
  const map = new Map<string, string[]>();
  for (const item of list) {
    const text = pythonStr(item);
    const i = text.indexOf('=');
    const key = (i < 0 ? text : text.slice(0, i)).trim();
    if (i < 0 || !key) throw InvalidInput({ error_message: `'${text}' is not of the form <key>=[value]` });
    const value = text.slice(i + 1).trim();
    const values = map.get(key) ?? [];
    if (!values.includes(value)) values.push(value);
    map.set(key, values);
  }
  return Object.fromEntries(map);
};

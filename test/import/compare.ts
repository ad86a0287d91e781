/**
 * Field-by-field comparison of two API views of one cloud (Neutron's and octonet's after the import),
 * minus the documented differences (docs/moving-from-neutron.md), each with its reason.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Json } from '../fixtures/json.js';

type Obj = Record<string, Json>;
export type CloudView = Record<string, Map<string, Obj>>;

export interface KnownDifference {
  collection: string;
  field: string;
  reason: string;
  /** Compare Neutron's value made this way instead of skipping the field (the rest of it must match). */
  neutronValue?: (value: Json | undefined) => Json | undefined;
}

/** Lists that are sets: their order is not part of the API's promise. */
const UNORDERED = new Set(['tags', 'security_groups', 'fixed_ips', 'subnets', 'routes', 'rules', 'prefixes']);

/** JSON with object keys sorted: the same value whatever order its keys were printed in. */
function stableJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k] as Json)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function canonical(field: string, value: Json | undefined): Json | undefined {
  if (Array.isArray(value) && UNORDERED.has(field)) {
    return [...value].sort((a, b) => stableJson(a).localeCompare(stableJson(b)));
  }
  return value;
}

/** Every difference between the views that is not a known one, as `collection id field: neutron → octonet`. */
export function compareClouds(neutron: CloudView, octonet: CloudView, known: readonly KnownDifference[]): string[] {
  const knownFor = (collection: string, field: string) =>
    known.find((k) => (k.collection === collection || k.collection === '*') && k.field === field);
  const differences: string[] = [];
  for (const [collection, objects] of Object.entries(neutron)) {
    const theirs = octonet[collection] ?? new Map<string, Obj>();
    for (const [id, object] of objects) {
      const other = theirs.get(id);
      if (!other) {
        differences.push(`${collection} ${id}: missing in octonet`);
        continue;
      }
      for (const field of new Set([...Object.keys(object), ...Object.keys(other)])) {
        const difference = knownFor(collection, field);
        if (difference && !difference.neutronValue) continue;
        const a = canonical(field, difference?.neutronValue ? difference.neutronValue(object[field]) : object[field]);
        const b = canonical(field, other[field]);
        if (!isDeepStrictEqual(a, b)) {
          differences.push(`${collection} ${id} ${field}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`);
        }
      }
    }
    for (const id of theirs.keys()) if (!objects.has(id)) differences.push(`${collection} ${id}: only in octonet`);
  }
  return differences;
}

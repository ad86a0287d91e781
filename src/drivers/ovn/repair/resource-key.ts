/**
 * The unit the repair works in: one Neutron resource (or the shared drop group), named by a key
 * that the queue serialises on and the drift checks are kept under.
 */
type ResourceKind = 'network' | 'subnet' | 'port' | 'security_group' | 'router';
export type ResourceKey = `${ResourceKind}:${string}` | 'drop';

export const keyOf = (kind: ResourceKind, id: string): ResourceKey => `${kind}:${id}`;

export function parseKey(key: ResourceKey): { kind: ResourceKind | 'drop'; id: string } {
  if (key === 'drop') return { kind: 'drop', id: '' };
  const i = key.indexOf(':');
  return { kind: key.slice(0, i) as ResourceKind, id: key.slice(i + 1) };
}

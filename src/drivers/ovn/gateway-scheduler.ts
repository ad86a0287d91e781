/**
 * Which chassis carry a router's gateway, most preferred first (ML2/OVN's `get_candidates_for_
 * scheduling` + its `leastloaded` scheduler, emulating the L3 agent scheduler for operators):
 * gateway chassis (`enable-chassis-as-gw`) that can reach the external network (its physnet in
 * their bridge mappings) and sit in one of the router's availability zones. Pure.
 *
 * A router already scheduled keeps its order (a reconcile must not move traffic); new candidates
 * join at the end, least loaded first. An operator's pins (`openstack network agent add router
 * --l3`) replace the automatic choice.
 */
import { MAX_GATEWAY_CHASSIS } from './router-mapping.js';

export interface GatewayCandidate {
  readonly name: string;
  readonly gateway: boolean;
  readonly physnets: ReadonlySet<string>;
  readonly availabilityZones: readonly string[];
}

export interface SchedulingRequest {
  readonly candidates: readonly GatewayCandidate[];
  /** The external network's physnet; null for a tunnelled external network. */
  readonly physnet: string | null;
  readonly azHints: readonly string[];
  /** Chassis the operator pinned the router to, in order; empty for automatic scheduling. */
  readonly pinned: readonly string[];
  /** The router's chassis as the NB has them now, by priority. */
  readonly current: readonly string[];
  /** Chassis name → how many gateways it already carries at the top priority. */
  readonly load: ReadonlyMap<string, number>;
}

export function eligibleChassis(request: Pick<SchedulingRequest, 'candidates' | 'physnet' | 'azHints'>): string[] {
  return request.candidates
    .filter((c) => c.gateway)
    .filter((c) => request.physnet === null || c.physnets.has(request.physnet))
    .filter((c) => request.azHints.length === 0 || c.availabilityZones.some((az) => request.azHints.includes(az)))
    .map((c) => c.name);
}

export function scheduleGateway(request: SchedulingRequest): string[] {
  const eligible = new Set(eligibleChassis(request));
  if (request.pinned.length > 0)
    return request.pinned.filter((name) => eligible.has(name)).slice(0, MAX_GATEWAY_CHASSIS);
  const kept = request.current.filter((name) => eligible.has(name));
  const added = [...eligible]
    .filter((name) => !kept.includes(name))
    .sort((a, b) => (request.load.get(a) ?? 0) - (request.load.get(b) ?? 0) || a.localeCompare(b));
  return [...kept, ...added].slice(0, MAX_GATEWAY_CHASSIS);
}

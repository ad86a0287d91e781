/**
 * A router's extra routes (`extraroute`, `extraroute-atomic`; `neutron/db/extraroute_db.py`):
 * each nexthop must sit on a subnet the router is attached to and must not be one of the router's
 * own addresses (how many is the `router_route` quota's to say). The atomic actions merge and
 * remove by (destination, nexthop) pairs.
 */
import { InvalidRoutes } from '../errors.js';
import { containsAddress, parseIp, parseNetwork } from '../ip.js';
import type { RouterRoute } from '../../store/routers.js';

/** Where the router is: the subnets of its ports and its own addresses on them. */
export interface RouterReach {
  readonly cidrs: readonly string[];
  readonly addresses: readonly string[];
}

/** `_validate_routes`: refuses the first route whose nexthop the router cannot reach or is itself. */
export function validateRoutes(routes: readonly RouterRoute[], reach: RouterReach): void {
  const networks = reach.cidrs.map((c) => parseNetwork(c)!).filter(Boolean);
  for (const route of routes) {
    const nexthop = parseIp(route.nexthop);
    const connected = nexthop && networks.some((n) => containsAddress(n, nexthop.version, nexthop.value));
    if (!connected) throw InvalidRoutes({ routes, reason: 'the nexthop is not connected with router' });
    if (reach.addresses.includes(route.nexthop))
      throw InvalidRoutes({ routes, reason: 'the nexthop is used by router' });
  }
}

const key = (r: RouterRoute) => `${r.destination} ${r.nexthop}`;

/** `_add_extra_routes`: the union, exact duplicates once. */
export function addRoutes(old: readonly RouterRoute[], add: readonly RouterRoute[]): RouterRoute[] {
  const seen = new Map<string, RouterRoute>();
  for (const r of [...old, ...add]) seen.set(key(r), { destination: r.destination, nexthop: r.nexthop });
  return [...seen.values()];
}

/** `_remove_extra_routes`: the old ones not named; naming a missing route is not an error. */
export function removeRoutes(old: readonly RouterRoute[], remove: readonly RouterRoute[]): RouterRoute[] {
  const gone = new Set(remove.map(key));
  return old.filter((r) => !gone.has(key(r)));
}

/** Whether a route's nexthop lies in `cidr` (the interface on it cannot go: RouterInterfaceInUseByRoute). */
export function routeUsesCidr(route: RouterRoute, cidr: string): boolean {
  const net = parseNetwork(cidr);
  const nexthop = parseIp(route.nexthop);
  return !!net && !!nexthop && containsAddress(net, nexthop.version, nexthop.value);
}

/**
 * A router's desired rows (`router-mapping.ts`) + the NB replica → the operations that make the NB
 * match: the Logical_Router, its ports, NAT rules and static routes (rows that live only inside the
 * router, added and removed through its set columns), and the gateway LRP's `Gateway_Chassis`
 * rows. Rows inside the router are matched by their identity: LRPs by name, NAT by (type, external
 * IP, logical IP), routes by (prefix, next hop), gateway chassis by name.
 *
 * An NB written by an older octonet holds the gateway as an `HA_Chassis_Group` named after the
 * router: the plan clears the LRP's reference and deletes the group (its `HA_Chassis` go with it),
 * in the transaction that writes the `Gateway_Chassis` rows, so the gateway is never unscheduled.
 */
import { namedUuid, type NamedUuid, type Condition, type Operation } from './ovsdb/index.js';
import type { GatewayChassisSpec, NatSpec, RouterPortSpec, RouterRows, StaticRouteSpec } from './router-mapping.js';
import type { NbView } from './nb-view.js';
import { changedColumns, type Plan } from './planner.js';

const byUuid = (uuid: string): Condition => ['_uuid', '==', uuid];
const uuidName = (prefix: string, id: string): string => `${prefix}_${id.replace(/[^A-Za-z0-9_]/g, '_')}`;
const natKey = (n: { type: string; external_ip: string; logical_ip: string }) =>
  `${n.type}|${n.external_ip}|${n.logical_ip}`;
const routeKey = (r: { ip_prefix: string; nexthop: string }) => `${r.ip_prefix}|${r.nexthop}`;

/**
 * The port's `Gateway_Chassis` rows, written before the LRP that points at them: a row found by
 * its name (unique in the schema) is kept and corrected, a missing one inserted. Rows the LRP
 * stops pointing at are not deleted: the table is not a root, so ovsdb-server collects them.
 */
function planGatewayChassis(
  nb: NbView,
  specs: readonly GatewayChassisSpec[],
  ops: Operation[],
): (string | NamedUuid)[] {
  return specs.map((spec) => {
    const actual = nb.gatewayChassisByName(spec.name);
    if (!actual) {
      const ref = uuidName('gwc', spec.name);
      ops.push({ op: 'insert', table: 'Gateway_Chassis', row: { ...spec }, uuidName: ref });
      return namedUuid(ref);
    }
    const changed = changedColumns({ chassis_name: spec.chassis_name, priority: spec.priority }, actual);
    if (Object.keys(changed).length > 0)
      ops.push({ op: 'update', table: 'Gateway_Chassis', where: [byUuid(actual._uuid)], row: changed });
    return actual._uuid;
  });
}

function lrpRow(spec: RouterPortSpec, gatewayChassis: (string | NamedUuid)[]): Record<string, unknown> {
  return {
    name: spec.name,
    mac: spec.mac,
    networks: spec.networks,
    external_ids: spec.external_ids,
    options: spec.options,
    ipv6_ra_configs: spec.ipv6_ra_configs,
    gateway_chassis: gatewayChassis,
    ha_chassis_group: null,
  };
}

/**
 * A router; `desired` undefined deletes it (its ports, NAT, routes and gateway chassis go with it)
 * and any HA group an older octonet left for it.
 */
export function planRouter(nb: NbView, routerName: string, desired: RouterRows | undefined): Plan {
  const actual = nb.logicalRouter(routerName);
  const legacyGroup = nb.haChassisGroup(routerName);
  const dropLegacyGroup = (ops: Operation[]) => {
    if (legacyGroup) ops.push({ op: 'delete', table: 'HA_Chassis_Group', where: [byUuid(legacyGroup._uuid)] });
  };
  if (!desired) {
    const ops: Operation[] = [];
    if (actual) ops.push({ op: 'delete', table: 'Logical_Router', where: [byUuid(actual._uuid)] });
    dropLegacyGroup(ops);
    return { ops, outcome: ops.length > 0 ? 'deleted' : 'unchanged' };
  }
  const ops: Operation[] = [];
  const lrRef: string | NamedUuid = actual?._uuid ?? namedUuid(uuidName('lr', routerName));
  const routerWhere = [byUuid(typeof lrRef === 'string' ? lrRef : '')];
  const addToRouter = (column: 'ports' | 'nat' | 'static_routes', refs: (string | NamedUuid)[]) => {
    if (refs.length > 0 && actual)
      ops.push({ op: 'mutate', table: 'Logical_Router', where: routerWhere, mutations: [[column, 'insert', refs]] });
  };
  const removeFromRouter = (column: 'ports' | 'nat' | 'static_routes', uuids: string[]) => {
    if (uuids.length > 0 && actual)
      ops.push({ op: 'mutate', table: 'Logical_Router', where: routerWhere, mutations: [[column, 'delete', uuids]] });
  };

  // Ports.
  const portRefs: (string | NamedUuid)[] = [];
  const newPorts: NamedUuid[] = [];
  const wantedPorts = new Set(desired.ports.map((p) => p.name));
  for (const spec of desired.ports) {
    const existing = nb.routerPort(spec.name);
    const row = lrpRow(spec, planGatewayChassis(nb, spec.gatewayChassis, ops));
    if (existing) {
      portRefs.push(existing._uuid);
      // A new Gateway_Chassis (a named uuid) never equals a stored uuid, so the column is rewritten.
      const changed = changedColumns(row, existing);
      if (Object.keys(changed).length > 0)
        ops.push({ op: 'update', table: 'Logical_Router_Port', where: [byUuid(existing._uuid)], row: changed });
      if (actual && !actual.ports.includes(existing._uuid)) addToRouter('ports', [existing._uuid]);
    } else {
      const ref = uuidName('lrp', spec.name);
      ops.push({ op: 'insert', table: 'Logical_Router_Port', row, uuidName: ref });
      portRefs.push(namedUuid(ref));
      newPorts.push(namedUuid(ref));
    }
  }
  const stalePorts = (actual?.ports ?? []).filter((uuid) => !wantedPorts.has(nb.routerPortByUuid(uuid)?.name ?? ''));

  // NAT rules.
  const natRefs: (string | NamedUuid)[] = [];
  const newNats: NamedUuid[] = [];
  const existingNats = new Map<string, string>();
  for (const uuid of actual?.nat ?? []) {
    const row = nb.nat(uuid);
    if (row && !existingNats.has(natKey(row))) existingNats.set(natKey(row), uuid);
  }
  desired.nats.forEach((spec: NatSpec, i) => {
    const uuid = existingNats.get(natKey(spec));
    if (uuid) {
      natRefs.push(uuid);
      const changed = changedColumns(spec, nb.nat(uuid));
      if (Object.keys(changed).length > 0)
        ops.push({ op: 'update', table: 'NAT', where: [byUuid(uuid)], row: changed });
    } else {
      const ref = uuidName('nat', `${routerName}_${i}`);
      ops.push({ op: 'insert', table: 'NAT', row: spec, uuidName: ref });
      natRefs.push(namedUuid(ref));
      newNats.push(namedUuid(ref));
    }
  });
  const wantedNats = new Set(desired.nats.map(natKey));
  const staleNats = (actual?.nat ?? []).filter((uuid) => {
    const row = nb.nat(uuid);
    return !row || !wantedNats.has(natKey(row)) || existingNats.get(natKey(row)) !== uuid;
  });

  // Static routes.
  const routeRefs: (string | NamedUuid)[] = [];
  const newRoutes: NamedUuid[] = [];
  const existingRoutes = new Map<string, string>();
  for (const uuid of actual?.static_routes ?? []) {
    const row = nb.staticRoute(uuid);
    if (row && !existingRoutes.has(routeKey(row))) existingRoutes.set(routeKey(row), uuid);
  }
  desired.routes.forEach((spec: StaticRouteSpec, i) => {
    const uuid = existingRoutes.get(routeKey(spec));
    if (uuid) {
      routeRefs.push(uuid);
      const changed = changedColumns(spec, nb.staticRoute(uuid));
      if (Object.keys(changed).length > 0)
        ops.push({ op: 'update', table: 'Logical_Router_Static_Route', where: [byUuid(uuid)], row: changed });
    } else {
      const ref = uuidName('route', `${routerName}_${i}`);
      ops.push({ op: 'insert', table: 'Logical_Router_Static_Route', row: spec, uuidName: ref });
      routeRefs.push(namedUuid(ref));
      newRoutes.push(namedUuid(ref));
    }
  });
  const wantedRoutes = new Set(desired.routes.map(routeKey));
  const staleRoutes = (actual?.static_routes ?? []).filter((uuid) => {
    const row = nb.staticRoute(uuid);
    return !row || !wantedRoutes.has(routeKey(row)) || existingRoutes.get(routeKey(row)) !== uuid;
  });

  if (!actual) {
    ops.push({
      op: 'insert',
      table: 'Logical_Router',
      row: { ...desired.router, ports: portRefs, nat: natRefs, static_routes: routeRefs },
      uuidName: (lrRef as NamedUuid).name,
    });
  } else {
    const changed = changedColumns(desired.router, actual);
    if (Object.keys(changed).length > 0)
      ops.push({ op: 'update', table: 'Logical_Router', where: routerWhere, row: changed });
    addToRouter('ports', newPorts);
    addToRouter('nat', newNats);
    addToRouter('static_routes', newRoutes);
    removeFromRouter('ports', stalePorts);
    removeFromRouter('nat', staleNats);
    removeFromRouter('static_routes', staleRoutes);
  }
  // After the LRP update above has dropped its reference (one transaction: checked at commit).
  dropLegacyGroup(ops);
  return { ops, outcome: ops.length === 0 ? 'unchanged' : actual ? 'updated' : 'created' };
}

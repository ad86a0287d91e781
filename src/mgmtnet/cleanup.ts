/**
 * Deleting what the spec owns, in reverse dependency order: node ports, the router's interface, the
 * router and its port, subnets, networks, security groups. What Neutron refuses to delete because
 * something else still uses it (an amphora port on the network, a security group on a port) is
 * orphaned: renamed `<name>-orphaned` and its owner tag replaced, so a later deployment neither
 * collides with it nor adopts it. Both apply (ports of nodes that left, parts of another topology)
 * and `deleteSpec` (everything) go through here.
 */
import type { Collection, NeutronClient, NeutronObject } from './neutron-client.js';
import { NeutronApiError, SINGULAR } from './neutron-client.js';
import { nodeOf, orphan, roleOf, type Role } from './ownership.js';
import type { MgmtNetSpec } from './spec.js';
import type { ObjectReport } from './report.js';

export interface Deletion {
  readonly collection: Exclude<Collection, 'agents'>;
  readonly object: NeutronObject;
}

interface ObservedOwned {
  networks: NeutronObject[];
  subnets: NeutronObject[];
  securityGroups: NeutronObject[];
  routers: NeutronObject[];
  ports: NeutronObject[];
}

/**
 * The owned objects that must go, in deletion order. Kept: roles in `keepRoles` (and for node ports,
 * nodes in `keepNodes`). An object without a role tag is ours by owner tag but plays no known part:
 * it goes too.
 */
export function collectDeletions(
  spec: MgmtNetSpec,
  observed: ObservedOwned,
  keep: { keepNodes: ReadonlySet<string>; keepRoles: ReadonlySet<Role> },
): Deletion[] {
  void spec;
  const goes = (o: NeutronObject) => {
    const role = roleOf(o);
    if (role === undefined || !keep.keepRoles.has(role)) return true;
    if (role === 'hm-port') return !keep.keepNodes.has(nodeOf(o) ?? '');
    return false;
  };
  // Within a kind, by name: reports come out the same whatever order the server lists in.
  const byName = (list: NeutronObject[]) => [...list].sort((a, b) => String(a.name).localeCompare(String(b.name)));
  const ports = byName(observed.ports.filter(goes));
  const hmPorts = ports.filter((p) => roleOf(p) !== 'router-port');
  const routerPorts = ports.filter((p) => roleOf(p) === 'router-port');
  return [
    ...hmPorts.map((object) => ({ collection: 'ports' as const, object })),
    ...byName(observed.routers.filter(goes)).map((object) => ({ collection: 'routers' as const, object })),
    ...routerPorts.map((object) => ({ collection: 'ports' as const, object })),
    ...byName(observed.subnets.filter(goes)).map((object) => ({ collection: 'subnets' as const, object })),
    ...byName(observed.networks.filter(goes)).map((object) => ({ collection: 'networks' as const, object })),
    ...byName(observed.securityGroups.filter(goes)).map((object) => ({
      collection: 'security-groups' as const,
      object,
    })),
  ];
}

/** Neutron's answer to deleting something still in use. */
function inUse(error: unknown): error is NeutronApiError {
  return error instanceof NeutronApiError && error.status === 409;
}

export async function deleteObjects(
  client: NeutronClient,
  spec: MgmtNetSpec,
  deletions: readonly Deletion[],
  log: (message: string, fields?: Record<string, unknown>) => void,
): Promise<ObjectReport[]> {
  const reports: ObjectReport[] = [];
  for (const { collection, object } of deletions) {
    const kind: ObjectReport['kind'] = SINGULAR[collection];
    if (collection === 'routers') {
      // Interfaces first: Neutron refuses to delete a router that has any.
      const interfaces = await client.list('ports', { device_id: object.id, device_owner: 'network:router_interface' });
      for (const port of interfaces) {
        await client.removeRouterInterface(object.id, { port_id: port.id });
        reports.push({
          kind: 'router_interface',
          name: `${object.name} ${port.fixed_ips?.[0]?.ip_address ?? ''}`.trim(),
          id: port.id,
          action: 'deleted',
        });
      }
    }
    try {
      if (await client.delete(collection, object.id)) {
        reports.push({ kind, name: String(object.name ?? ''), id: object.id, action: 'deleted' });
      }
    } catch (error) {
      if (!inUse(error)) throw error;
      const name = await orphan(client, spec, collection, object);
      log('still in use: orphaned instead of deleted', { kind, id: object.id, name, reason: error.message });
      reports.push({ kind, name, id: object.id, action: 'orphaned', detail: error.message });
    }
  }
  return reports;
}

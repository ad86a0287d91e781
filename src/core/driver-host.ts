/**
 * Core's side of `drivers/host.ts`: the database as drivers read it (admin views in typed shapes)
 * and the writes they report back. Everything goes through the services, so a driver's reads see
 * exactly what the API shows and its writes obey the same rules and hooks.
 */
import type { DriverHost, PortState, ResourceReader } from '../drivers/host.js';
import { getNetworkRecord, listNetworkRecords } from '../store/networks.js';
import { prepareResource } from './attributes.js';
import { adminContext } from './context.js';
import { floatingIpState, networkState, portState, securityGroupState, subnetState } from './driver-states.js';
import { NeutronError } from './errors.js';
import { EMPTY_LIST_QUERY, type ListQuery } from './list-query.js';
import type { NetworkRecord } from '../store/networks.js';
import type { Services } from './services.js';
import { TRUE } from '../store/list.js';
import { loadQosRules, portIdsUsingQosPolicy } from '../store/qos.js';
import { qosRuleState } from './qos/rules.js';

const METADATA_OWNER = 'network:distributed';

/** A service's `show`, with its 404 as undefined. */
async function orMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NeutronError && error.status === 404) return undefined;
    throw error;
  }
}

const query = (filters: ListQuery['filters']): ListQuery => ({ ...EMPTY_LIST_QUERY, filters });

export function createResourceReader(services: Services): ResourceReader {
  const ctx = adminContext('driver-read');
  const db = services.deps.store.db;
  const networkOf = (record: NetworkRecord) => networkState(services.networks.view(record, ctx), record.segments);
  const ports = async (filters: ListQuery['filters']): Promise<PortState[]> =>
    (await services.ports.list(ctx, query(filters))).map(portState);
  const subnets = async (filters: ListQuery['filters']) =>
    (await services.subnets.list(ctx, query(filters))).map(subnetState);
  return {
    async network(id) {
      const record = await getNetworkRecord(db, id);
      return record ? networkOf(record) : undefined;
    },
    async subnet(id) {
      const view = await orMissing(services.subnets.show(ctx, id));
      return view ? subnetState(view) : undefined;
    },
    subnetsOfNetwork: (networkId) => subnets({ network_id: [networkId] }),
    subnets: async (ids) => (ids.length === 0 ? [] : subnets({ id: ids })),
    async port(id) {
      const view = await orMissing(services.ports.show(ctx, id));
      return view ? portState(view) : undefined;
    },
    portsOfNetwork: (networkId, subnetId) =>
      ports(
        subnetId ? { network_id: [networkId], fixed_ips: [{ subnet_id: [subnetId] }] } : { network_id: [networkId] },
      ),
    metadataPort: async (networkId) => (await ports({ network_id: [networkId], device_owner: [METADATA_OWNER] }))[0],
    async securityGroup(id) {
      const view = await orMissing(services.securityGroups.show(ctx, id));
      return view ? securityGroupState(view) : undefined;
    },
    router: (id) => services.routers.stateOf(id),
    portsOfRouter: (id) =>
      ports({ device_id: [id], device_owner: ['network:router_interface', 'network:router_gateway'] }),
    async floatingIp(id) {
      const view = await orMissing(services.floatingIps.show(ctx, id));
      return view ? floatingIpState(view) : undefined;
    },
    floatingIpsOfRouter: (routerId) => services.floatingIps.statesOfRouter(routerId),
    floatingIpsOfPort: async (portId) =>
      (await services.floatingIps.list(ctx, query({ port_id: [portId] }))).map(floatingIpState),
    async addressPairHolders(networkId, addresses) {
      const holders = new Map<string, string[]>();
      if (addresses.length === 0) return holders;
      const rows = await db
        .selectFrom('allowed_address_pairs')
        .innerJoin('ports', 'ports.id', 'allowed_address_pairs.port_id')
        .select(['allowed_address_pairs.port_id', 'allowed_address_pairs.ip_address'])
        .where('ports.network_id', '=', networkId)
        .where('allowed_address_pairs.ip_address', 'in', [...addresses])
        .orderBy('allowed_address_pairs.port_id')
        .execute();
      for (const row of rows) {
        const list = holders.get(row.ip_address) ?? [];
        if (!list.includes(row.port_id)) list.push(row.port_id);
        holders.set(row.ip_address, list);
      }
      return holders;
    },
    portsWithAddresses: async (networkId, addresses) =>
      addresses.length === 0 ? [] : ports({ network_id: [networkId], fixed_ips: [{ ip_address: [...addresses] }] }),
    async qosRules(policyIds) {
      const rules = await loadQosRules(db, policyIds);
      return new Map([...rules].map(([id, list]) => [id, list.map(qosRuleState)]));
    },
    portIdsUsingQosPolicy: (policyId) => portIdsUsingQosPolicy(db, policyId),
    portIdsOfSecurityGroup: async (id) => (await ports({ security_groups: [id] })).map((p) => p.id),
    async snapshot() {
      const [networks, allSubnets, allPorts, groups, routers, floatingIps] = await Promise.all([
        listNetworkRecords({ store: services.deps.store, projectId: null }, EMPTY_LIST_QUERY, TRUE),
        services.subnets.list(ctx, EMPTY_LIST_QUERY),
        services.ports.allStates(),
        services.securityGroups.list(ctx, EMPTY_LIST_QUERY),
        services.routers.states(),
        services.floatingIps.states(),
      ]);
      return {
        networks: networks.records.map(networkOf),
        subnets: allSubnets.map(subnetState),
        ports: allPorts,
        securityGroups: groups.map(securityGroupState),
        routers,
        floatingIps,
      };
    },
  };
}

export function createDriverHost(services: Services): DriverHost {
  const reader = createResourceReader(services);
  const { config } = services.deps;
  return {
    reader,
    reportPortUp: (portId, up) => services.ports.reportUp(portId, up),
    async reportVirtualPortHost(portId, host) {
      const view = await services.ports.reportVirtualHost(portId, host);
      return view ? portState(view) : undefined;
    },
    reportFloatingIpStatus: (id, status) => services.floatingIps.reportStatus(id, status),
    async ensureMetadataPort(networkId) {
      if (!config.ovn.metadata_enabled) return;
      const network = await reader.network(networkId);
      if (!network) return;
      const wanted = (await reader.subnetsOfNetwork(networkId))
        .filter((s) => s.ip_version === 4 && s.enable_dhcp)
        .map((s) => s.id);
      const port = await reader.metadataPort(networkId);
      if (!port) {
        const body = prepareResource(
          adminContext('internal'),
          services.ports.spec,
          {
            network_id: networkId,
            project_id: network.project_id,
            device_owner: METADATA_OWNER,
            device_id: `ovnmeta-${networkId}`,
            fixed_ips: wanted.map((subnet_id) => ({ subnet_id })),
          },
          true,
        );
        await services.ports.createInternal([body]);
        return;
      }
      const have = port.fixed_ips.map((ip) => ip.subnet_id);
      if (have.length === wanted.length && wanted.every((id) => have.includes(id))) return;
      const fixed_ips = [
        ...port.fixed_ips.filter((ip) => wanted.includes(ip.subnet_id)),
        ...wanted.filter((id) => !have.includes(id)).map((subnet_id) => ({ subnet_id })),
      ];
      await services.ports.update(adminContext('internal'), port.id, { fixed_ips }, {});
    },
    exclusively: (name, fn) => services.deps.store.exclusively(name, fn),
  };
}

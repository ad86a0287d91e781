/**
 * The NB replica as the OVN driver reads it: typed rows of the tables it owns, found by the names
 * and `external_ids` ML2/OVN uses to recognise its rows. Read-only; writes go through the planner.
 */
import type {
  AclRow,
  DhcpOptionsRow,
  GatewayChassisRow,
  HaChassisGroupRow,
  LogicalRouterPortRow,
  LogicalRouterRow,
  LogicalRouterStaticRouteRow,
  LogicalSwitchPortRow,
  LogicalSwitchRow,
  NatRow,
  PortGroupRow,
  QosRow,
  ReplicaView,
  NbTables,
  RowChange,
} from './ovsdb/index.js';
import { DROP_PORT_GROUP } from './mapping.js';
import { INVALID_CHASSIS } from './router-mapping.js';

export type { AclRow, DhcpOptionsRow, LogicalSwitchRow, PortGroupRow } from './ovsdb/index.js';
export type SwitchPortRow = LogicalSwitchPortRow;

/** The NB tables and columns the driver monitors (everything it writes, plus LSP `up`). */
export const NB_MONITORED = {
  NB_Global: ['nb_cfg', 'external_ids', 'options'],
  Logical_Switch: ['name', 'ports', 'external_ids', 'other_config', 'qos_rules'],
  Logical_Switch_Port: [
    'name',
    'type',
    'addresses',
    'port_security',
    'enabled',
    'up',
    'tag_request',
    'parent_name',
    'tag',
    'options',
    'external_ids',
    'dhcpv4_options',
    'dhcpv6_options',
  ],
  DHCP_Options: ['cidr', 'options', 'external_ids'],
  Port_Group: ['name', 'ports', 'acls', 'external_ids'],
  ACL: ['direction', 'priority', 'match', 'action', 'log', 'name', 'severity', 'meter', 'external_ids'],
  Logical_Router: ['name', 'enabled', 'ports', 'nat', 'static_routes', 'external_ids', 'options'],
  Logical_Router_Port: [
    'name',
    'mac',
    'networks',
    'external_ids',
    'options',
    'ipv6_ra_configs',
    'gateway_chassis',
    'ha_chassis_group',
  ],
  NAT: ['type', 'external_ip', 'logical_ip', 'logical_port', 'external_mac', 'options', 'external_ids'],
  Logical_Router_Static_Route: ['ip_prefix', 'nexthop', 'external_ids'],
  Gateway_Chassis: ['name', 'chassis_name', 'priority'],
  // Read only to find the groups an older octonet wrote for gateways, and remove them.
  HA_Chassis_Group: ['name', 'external_ids', 'ha_chassis'],
  HA_Chassis: ['chassis_name', 'priority'],
  QoS: ['priority', 'direction', 'match', 'action', 'bandwidth', 'external_ids'],
} as const;

/** A Neutron port's LSP (not a localnet, router-side or hand-made one). */
export function isNeutronPort(row: Pick<LogicalSwitchPortRow, 'external_ids'>): boolean {
  return row.external_ids['neutron:port_name'] !== undefined;
}

/** DHCP_Options rows by whom they belong to (`external_ids`, a map: the replica cannot index it). */
interface DhcpIndex {
  readonly subnet: Map<string, DhcpOptionsRow>;
  readonly bySubnet: Map<string, DhcpOptionsRow[]>;
  readonly byPort: Map<string, DhcpOptionsRow[]>;
}

export class NbView {
  private dhcpIndex: DhcpIndex | undefined;

  /**
   * `follow`, when given, subscribes to the replica's changes (`OvsdbClient.onChange`) before any
   * other listener, so that the DHCP rows can be looked up by subnet and port through an index
   * dropped on every change to them; without it every lookup scans the table. At 100,000 ports in
   * 1,000 subnets, planning a port scanned 2,000 rows.
   */
  constructor(
    private readonly replica: ReplicaView<NbTables>,
    follow?: (listener: (changes: readonly RowChange<NbTables>[]) => void) => void,
  ) {
    this.indexed = follow !== undefined;
    follow?.((changes) => {
      if (this.dhcpIndex && changes.some((change) => change.table === 'DHCP_Options')) this.dhcpIndex = undefined;
    });
  }

  private readonly indexed: boolean;

  private dhcp(): DhcpIndex | undefined {
    if (!this.indexed) return undefined;
    if (this.dhcpIndex) return this.dhcpIndex;
    const index: DhcpIndex = { subnet: new Map(), bySubnet: new Map(), byPort: new Map() };
    const push = (map: Map<string, DhcpOptionsRow[]>, key: string, row: DhcpOptionsRow) => {
      const list = map.get(key);
      if (list) list.push(row);
      else map.set(key, [row]);
    };
    for (const row of this.dhcpOptions()) {
      const { subnet_id: subnetId, port_id: portId } = row.external_ids;
      if (subnetId !== undefined) push(index.bySubnet, subnetId, row);
      if (portId !== undefined) push(index.byPort, portId, row);
      else if (subnetId !== undefined && !index.subnet.has(subnetId)) index.subnet.set(subnetId, row);
    }
    return (this.dhcpIndex = index);
  }

  logicalSwitch(name: string): LogicalSwitchRow | undefined {
    return this.replica.findOne('Logical_Switch', 'name', name);
  }

  logicalSwitches(): Iterable<LogicalSwitchRow> {
    return this.replica.table('Logical_Switch').values();
  }

  switchPort(name: string): SwitchPortRow | undefined {
    return this.replica.findOne('Logical_Switch_Port', 'name', name);
  }

  switchPortByUuid(uuid: string): SwitchPortRow | undefined {
    return this.replica.get('Logical_Switch_Port', uuid);
  }

  /** The LSP uuids of these ports, leaving out ports without an LSP. */
  switchPortUuids(portIds: readonly string[]): string[] {
    return portIds.map((id) => this.switchPort(id)?._uuid).filter((uuid): uuid is string => !!uuid);
  }

  switchPorts(): Iterable<SwitchPortRow> {
    return this.replica.table('Logical_Switch_Port').values();
  }

  /** The switch whose `ports` hold this port. */
  switchOf(portUuid: string): LogicalSwitchRow | undefined {
    return this.replica.findOne('Logical_Switch', 'ports', portUuid);
  }

  dhcpOptions(): Iterable<DhcpOptionsRow> {
    return this.replica.table('DHCP_Options').values();
  }

  dhcpOptionsByUuid(uuid: string): DhcpOptionsRow | undefined {
    return this.replica.get('DHCP_Options', uuid);
  }

  /** The subnet's own row (not a port's). */
  subnetDhcp(subnetId: string): DhcpOptionsRow | undefined {
    const index = this.dhcp();
    if (index) return index.subnet.get(subnetId);
    for (const row of this.dhcpOptions()) {
      if (row.external_ids.subnet_id === subnetId && row.external_ids.port_id === undefined) return row;
    }
    return undefined;
  }

  /** Rows of a subnet: its own and its ports'. */
  dhcpOfSubnet(subnetId: string): DhcpOptionsRow[] {
    const index = this.dhcp();
    if (index) return [...(index.bySubnet.get(subnetId) ?? [])];
    return [...this.dhcpOptions()].filter((row) => row.external_ids.subnet_id === subnetId);
  }

  /** A port's own rows (from its extra DHCP options). */
  portDhcp(portId: string): DhcpOptionsRow[] {
    const index = this.dhcp();
    if (index) return [...(index.byPort.get(portId) ?? [])];
    return [...this.dhcpOptions()].filter((row) => row.external_ids.port_id === portId);
  }

  /** The QoS rows ML2/OVN keeps for a port (`external_ids:neutron:port_id`). */
  portQos(portId: string): QosRow[] {
    return [...this.replica.table('QoS').values()].filter((row) => row.external_ids['neutron:port_id'] === portId);
  }

  /** Every QoS row a Neutron port owns. */
  allPortQos(): QosRow[] {
    return [...this.replica.table('QoS').values()].filter((row) => row.external_ids['neutron:port_id'] !== undefined);
  }

  /** The switch whose `qos_rules` hold this row. */
  switchOfQos(uuid: string): LogicalSwitchRow | undefined {
    return this.replica.findOne('Logical_Switch', 'qos_rules', uuid);
  }

  portGroup(name: string): PortGroupRow | undefined {
    return this.replica.findOne('Port_Group', 'name', name);
  }

  portGroups(): Iterable<PortGroupRow> {
    return this.replica.table('Port_Group').values();
  }

  /** Groups holding the port: `neutron_pg_drop` and the security groups' `pg_*`. */
  groupsOfPort(portUuid: string): readonly PortGroupRow[] {
    return this.replica.findBy('Port_Group', 'ports', portUuid);
  }

  /** The group whose `acls` hold this ACL. */
  groupOfAcl(aclUuid: string): PortGroupRow | undefined {
    return this.replica.findOne('Port_Group', 'acls', aclUuid);
  }

  acl(uuid: string): AclRow | undefined {
    return this.replica.get('ACL', uuid);
  }

  logicalRouter(name: string): LogicalRouterRow | undefined {
    return this.replica.findOne('Logical_Router', 'name', name);
  }

  logicalRouters(): Iterable<LogicalRouterRow> {
    return this.replica.table('Logical_Router').values();
  }

  routerPort(name: string): LogicalRouterPortRow | undefined {
    return this.replica.findOne('Logical_Router_Port', 'name', name);
  }

  routerPortByUuid(uuid: string): LogicalRouterPortRow | undefined {
    return this.replica.get('Logical_Router_Port', uuid);
  }

  /** The router whose `ports` hold this LRP. */
  routerOfPort(lrpUuid: string): LogicalRouterRow | undefined {
    return this.replica.findOne('Logical_Router', 'ports', lrpUuid);
  }

  nat(uuid: string): NatRow | undefined {
    return this.replica.get('NAT', uuid);
  }

  /** The router whose `nat` holds this rule. */
  routerOfNat(natUuid: string): LogicalRouterRow | undefined {
    return this.replica.findOne('Logical_Router', 'nat', natUuid);
  }

  staticRoute(uuid: string): LogicalRouterStaticRouteRow | undefined {
    return this.replica.get('Logical_Router_Static_Route', uuid);
  }

  /** The router whose `static_routes` hold this route. */
  routerOfRoute(routeUuid: string): LogicalRouterRow | undefined {
    return this.replica.findOne('Logical_Router', 'static_routes', routeUuid);
  }

  /** A router's gateway LRP (`neutron:is_ext_gw`), if it has one. */
  gatewayPortOf(routerName: string): LogicalRouterPortRow | undefined {
    return (this.logicalRouter(routerName)?.ports ?? [])
      .map((uuid) => this.routerPortByUuid(uuid))
      .find((lrp) => lrp?.external_ids['neutron:is_ext_gw'] === 'True');
  }

  /** Routers that have a gateway LRP, by name. */
  routersWithGateway(): string[] {
    return [...this.logicalRouters()].filter((lr) => this.gatewayPortOf(lr.name)).map((lr) => lr.name);
  }

  gatewayChassis(uuid: string): GatewayChassisRow | undefined {
    return this.replica.get('Gateway_Chassis', uuid);
  }

  gatewayChassisByName(name: string): GatewayChassisRow | undefined {
    return this.replica.findOne('Gateway_Chassis', 'name', name);
  }

  /** The LRP whose `gateway_chassis` hold this row. */
  routerPortOfGatewayChassis(uuid: string): LogicalRouterPortRow | undefined {
    return this.replica.findOne('Logical_Router_Port', 'gateway_chassis', uuid);
  }

  /** The `HA_Chassis_Group` of this name: octonet wrote one per gateway before it wrote Zed's form. */
  haChassisGroup(name: string): HaChassisGroupRow | undefined {
    return this.replica.findOne('HA_Chassis_Group', 'name', name);
  }

  haChassisGroups(): Iterable<HaChassisGroupRow> {
    return this.replica.table('HA_Chassis_Group').values();
  }

  /** The group whose `ha_chassis` hold this chassis entry. */
  groupOfHaChassis(uuid: string): HaChassisGroupRow | undefined {
    return this.replica.findOne('HA_Chassis_Group', 'ha_chassis', uuid);
  }

  /**
   * A router's gateway chassis with their priorities as the NB has them, highest first: the
   * gateway LRP's `Gateway_Chassis`, else (an NB an older octonet wrote, until its repair) the
   * router's `HA_Chassis_Group`. Zed's placeholder for "no chassis" is left out.
   */
  gatewayPriorities(routerName: string): { chassis_name: string; priority: number }[] {
    const lrp = this.gatewayPortOf(routerName);
    const rows: { chassis_name: string; priority: number }[] = (lrp?.gateway_chassis ?? [])
      .map((uuid) => this.gatewayChassis(uuid))
      .filter((row): row is GatewayChassisRow => row !== undefined);
    const group = this.haChassisGroup(routerName);
    if (rows.length === 0 && group)
      for (const uuid of group.ha_chassis) {
        const row = this.replica.get('HA_Chassis', uuid);
        if (row) rows.push(row);
      }
    return rows
      .filter((row) => row.chassis_name !== INVALID_CHASSIS)
      .sort((a, b) => b.priority - a.priority)
      .map(({ chassis_name, priority }) => ({ chassis_name, priority }));
  }

  /** A router's gateway chassis as the NB has them, highest priority first. */
  gatewayChassisOf(routerName: string): string[] {
    return this.gatewayPriorities(routerName).map((row) => row.chassis_name);
  }

  /** Whether a Port_Group is one octonet (or Neutron) manages. */
  static isNeutronGroup(group: PortGroupRow): boolean {
    return group.name === DROP_PORT_GROUP || group.external_ids['neutron:security_group_id'] !== undefined;
  }
}

/**
 * Decoded row types of the OVN_Southbound tables octonet reads (chassis, port bindings, MAC
 * bindings), written from `/usr/share/ovn/ovn-sb.ovsschema` (OVN 23.03, schema 20.27.0) in the
 * shapes wire.ts decodes to; see nb-types.ts for the conventions. Column meanings are in ovn-sb(5).
 *
 * This module owns types only.
 */
import type { Row } from './wire.js';

/** `SB_Global`: the one row of southbound configuration. */
export interface SbGlobalRow extends Row {
  /** Connection uuids */
  readonly connections: readonly string[];
  readonly external_ids: Readonly<Record<string, string>>;
  readonly ipsec: boolean;
  readonly nb_cfg: number;
  readonly options: Readonly<Record<string, string>>;
  /** SSL uuid */
  readonly ssl: string | null;
}

/** `Chassis`: a hypervisor or gateway that runs ovn-controller. */
export interface ChassisRow extends Row {
  /** Encap uuids */
  readonly encaps: readonly string[];
  readonly external_ids: Readonly<Record<string, string>>;
  readonly hostname: string;
  readonly name: string;
  readonly nb_cfg: number;
  readonly other_config: Readonly<Record<string, string>>;
  readonly transport_zones: readonly string[];
  readonly vtep_logical_switches: readonly string[];
}

/** `Chassis_Private`: state a chassis writes only for itself (`nb_cfg` acknowledgements). */
export interface ChassisPrivateRow extends Row {
  /** Chassis uuid */
  readonly chassis: string | null;
  readonly external_ids: Readonly<Record<string, string>>;
  readonly name: string;
  readonly nb_cfg: number;
  readonly nb_cfg_timestamp: number;
}

/** `Encap`: a tunnel endpoint of a chassis. */
export interface EncapRow extends Row {
  readonly chassis_name: string;
  readonly ip: string;
  readonly options: Readonly<Record<string, string>>;
  readonly type: 'geneve' | 'stt' | 'vxlan';
}

/** `Port_Binding`: a logical port as bound to a chassis: `chassis` and `up` say where and whether it is live. */
export interface PortBindingRow extends Row {
  /** Chassis uuids */
  readonly additional_chassis: readonly string[];
  /** Encap uuids */
  readonly additional_encap: readonly string[];
  /** Chassis uuid */
  readonly chassis: string | null;
  /** Datapath_Binding uuid */
  readonly datapath: string;
  /** Encap uuid */
  readonly encap: string | null;
  readonly external_ids: Readonly<Record<string, string>>;
  /** Gateway_Chassis uuids */
  readonly gateway_chassis: readonly string[];
  /** HA_Chassis_Group uuid */
  readonly ha_chassis_group: string | null;
  readonly logical_port: string;
  readonly mac: readonly string[];
  /** Mirror uuids */
  readonly mirror_rules: readonly string[];
  readonly nat_addresses: readonly string[];
  readonly options: Readonly<Record<string, string>>;
  readonly parent_port: string | null;
  readonly port_security: readonly string[];
  /** Chassis uuids */
  readonly requested_additional_chassis: readonly string[];
  /** Chassis uuid */
  readonly requested_chassis: string | null;
  readonly tag: number | null;
  readonly tunnel_key: number;
  readonly type: string;
  readonly up: boolean | null;
  readonly virtual_parent: string | null;
}

/** `MAC_Binding`: an IP-to-MAC binding learned by a logical router. */
export interface MacBindingRow extends Row {
  /** Datapath_Binding uuid */
  readonly datapath: string;
  readonly ip: string;
  readonly logical_port: string;
  readonly mac: string;
  readonly timestamp: number;
}

/** Table name → row type, for `OvsdbClient<SbTables>` and `operationsFor<SbTables>()`. */
export type SbTables = {
  SB_Global: SbGlobalRow;
  Chassis: ChassisRow;
  Chassis_Private: ChassisPrivateRow;
  Encap: EncapRow;
  Port_Binding: PortBindingRow;
  MAC_Binding: MacBindingRow;
};

/** The tables above, for `OvsdbClientOptions.tables` (every column of each). */
export const SB_TABLES: Readonly<Record<keyof SbTables, 'all'>> = {
  SB_Global: 'all',
  Chassis: 'all',
  Chassis_Private: 'all',
  Encap: 'all',
  Port_Binding: 'all',
  MAC_Binding: 'all',
};

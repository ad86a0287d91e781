/**
 * Neutron's own configuration (`neutron.conf`, `ml2_conf.ini`, read by `oslo-ini.ts`) mapped onto
 * octonet's config keys, so `octonet serve --config-file ...` can replace a Neutron in place.
 *
 * Owns which Neutron option becomes which octonet key, what is refused (a non-OVN mechanism driver,
 * a core plugin other than ML2) and the list of options octonet
 * does not use: every option a file sets is either mapped, accepted as what octonet does anyway, or
 * named in `ignored`, which `serve` logs once at start. It never reads files or logs itself.
 */
import { ConfigError } from './config.js';
import type { OsloConfig } from './oslo-ini.js';

export interface NeutronConfigMapping {
  /** octonet config keys (the YAML shape), only those the files set. */
  readonly values: Record<string, unknown>;
  /** `section.option` names set in the files that octonet does not use, sorted. */
  readonly ignored: readonly string[];
  /** Options octonet reads but does not follow exactly, one sentence each. */
  readonly warnings: readonly string[];
}

const ML2_PLUGINS = ['ml2', 'neutron.plugins.ml2.plugin.Ml2Plugin'];
/** Service plugins whose API octonet serves itself (routers are OVN's L3 in ML2/OVN). */
const SERVED_SERVICE_PLUGINS = [
  'router',
  'ovn-router',
  'neutron.services.ovn_l3.plugin.OVNL3RouterPlugin',
  'neutron.services.l3_router.l3_router_plugin.L3RouterPlugin',
  'segments',
  'neutron.services.segments.plugin.Plugin',
];
const TYPE_DRIVERS = ['geneve', 'vlan', 'flat'];
const QUOTA_KEYS = [
  'network',
  'subnet',
  'subnetpool',
  'port',
  'router',
  'floatingip',
  'security_group',
  'security_group_rule',
  'rbac_policy',
] as const;

/** Reads options while remembering which were used, so the rest can be listed. */
class Reader {
  readonly used = new Set<string>();
  readonly warnings: string[] = [];
  constructor(readonly conf: OsloConfig) {}

  private mark<T>(section: string, name: string, value: T | undefined): T | undefined {
    if (value !== undefined) this.used.add(`${section}.${name}`);
    return value;
  }
  str(section: string, name: string) {
    return this.mark(section, name, this.conf.get(section, name));
  }
  bool(section: string, name: string) {
    return this.mark(section, name, this.conf.getBool(section, name));
  }
  int(section: string, name: string) {
    return this.mark(section, name, this.conf.getInt(section, name));
  }
  float(section: string, name: string) {
    return this.mark(section, name, this.conf.getFloat(section, name));
  }
  list(section: string, name: string) {
    return this.mark(section, name, this.conf.getList(section, name));
  }
}

/** Sets `target[key]` only when the value is defined, creating the section object on demand. */
function put(values: Record<string, unknown>, path: string, value: unknown): void {
  if (value === undefined) return;
  const [section, key] = path.includes('.') ? path.split('.', 2) : [undefined, path];
  if (section === undefined) values[key!] = value;
  else values[section] = { ...((values[section] as Record<string, unknown> | undefined) ?? {}), [key!]: value };
}

/**
 * `[database] connection` in SQLAlchemy's form as octonet's `database` URL: `sqlite:///rel.db`
 * (relative), `sqlite:////abs.db`, `postgresql[+driver]://...`, `mysql[+driver]://...` (PyMySQL,
 * mysqlclient's `mysqldb`: octonet reads it with mysql2 whatever driver Neutron named).
 */
export function databaseUrlFromSqlAlchemy(url: string): string {
  const scheme = url.slice(0, Math.max(0, url.indexOf('://')));
  const dialect = scheme.split('+')[0];
  if (dialect === 'sqlite') {
    const path = url.slice('sqlite:///'.length);
    if (!url.startsWith('sqlite:///') || !path)
      throw new ConfigError(`[database] connection: ${url}: an in-memory SQLite database cannot serve; name a file`);
    return `sqlite:${path}`;
  }
  if (dialect === 'postgresql' || dialect === 'postgres') return 'postgresql://' + url.slice(scheme.length + 3);
  if (dialect === 'mysql' || dialect === 'mariadb') return 'mysql://' + url.slice(scheme.length + 3);
  throw new ConfigError(`[database] connection: unsupported database URL scheme "${scheme || url}"`);
}

/** Keystone's v3 root from keystonemiddleware's `auth_url` (Kolla writes it without `/v3`). */
function keystoneV3(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return /\/v3$/.test(trimmed) ? trimmed : `${trimmed}/v3`;
}

function mapDefault(r: Reader, values: Record<string, unknown>): void {
  const host = r.str('DEFAULT', 'bind_host');
  const port = r.int('DEFAULT', 'bind_port');
  if (host !== undefined || port !== undefined) {
    const h = host ?? '0.0.0.0';
    put(values, 'listen', `${h.includes(':') ? `[${h}]` : h}:${port ?? 9696}`);
  }
  const strategy = r.str('DEFAULT', 'auth_strategy');
  if (strategy !== undefined && strategy !== 'keystone' && strategy !== 'noauth')
    throw new ConfigError(`[DEFAULT] auth_strategy = ${strategy}: octonet supports keystone and noauth`);
  put(values, 'auth', strategy);
  const core = r.str('DEFAULT', 'core_plugin');
  if (core !== undefined && !ML2_PLUGINS.includes(core))
    throw new ConfigError(`[DEFAULT] core_plugin = ${core}: octonet replaces the ML2 plugin (core_plugin = ml2) only`);
  const plugins = r.list('DEFAULT', 'service_plugins') ?? [];
  const unserved = plugins.filter((p) => !SERVED_SERVICE_PLUGINS.includes(p));
  if (unserved.length)
    r.warnings.push(
      `[DEFAULT] service_plugins: octonet does not provide ${unserved.join(', ')}; their API is not served`,
    );
  if (r.bool('DEFAULT', 'debug')) put(values, 'log_level', 'debug');
  put(values, 'pagination_max_limit', r.int('DEFAULT', 'pagination_max_limit'));
  for (const key of ['global_physnet_mtu', 'max_dns_nameservers', 'max_subnet_host_routes', 'max_allowed_address_pair'])
    put(values, `network.${key}`, r.int('DEFAULT', key));
  for (const key of ['dns_domain', 'base_mac']) put(values, `network.${key}`, r.str('DEFAULT', key));
  put(values, 'network.enable_snat_by_default', r.bool('DEFAULT', 'enable_snat_by_default'));
  put(values, 'ovn.agent_down_time', r.int('DEFAULT', 'agent_down_time'));
  put(values, 'nova.notify_on_port_status_changes', r.bool('DEFAULT', 'notify_nova_on_port_status_changes'));
  put(values, 'nova.notify_on_port_data_changes', r.bool('DEFAULT', 'notify_nova_on_port_data_changes'));
  put(values, 'nova.send_events_interval', r.float('DEFAULT', 'send_events_interval'));
  put(values, 'nova.http_retries', r.int('DEFAULT', 'http_retries'));
}

function mapDatabase(r: Reader, values: Record<string, unknown>): void {
  const connection = r.str('database', 'connection');
  if (connection !== undefined) put(values, 'database', databaseUrlFromSqlAlchemy(connection));
  put(values, 'database_pool_size', r.int('database', 'max_pool_size'));
}

/** keystoneauth's `auth_type`: octonet's Keystone clients log in with a user's password only. */
function requirePasswordAuth(r: Reader, section: string): void {
  const authType = r.str(section, 'auth_type');
  if (authType !== undefined && authType !== 'password' && authType !== 'v3password')
    throw new ConfigError(`[${section}] auth_type = ${authType}: octonet authenticates with a password only`);
}

function mapKeystone(r: Reader, values: Record<string, unknown>): void {
  const s = 'keystone_authtoken';
  requirePasswordAuth(r, s);
  const authUrl = r.str(s, 'auth_url');
  put(values, 'keystone.url', authUrl === undefined ? undefined : keystoneV3(authUrl));
  put(values, 'keystone.www_authenticate_uri', r.str(s, 'www_authenticate_uri'));
  put(values, 'keystone.user', r.str(s, 'username'));
  put(values, 'keystone.password', r.str(s, 'password'));
  put(values, 'keystone.project', r.str(s, 'project_name'));
  put(values, 'keystone.user_domain', r.str(s, 'user_domain_id'));
  put(values, 'keystone.project_domain', r.str(s, 'project_domain_id'));
  put(values, 'keystone.token_cache_time', r.int(s, 'token_cache_time'));
  put(values, 'keystone.timeout', r.float(s, 'http_connect_timeout'));
}

function mapNova(r: Reader, values: Record<string, unknown>): void {
  requirePasswordAuth(r, 'nova');
  const authUrl = r.str('nova', 'auth_url');
  put(values, 'nova.auth_url', authUrl === undefined ? undefined : keystoneV3(authUrl));
  for (const key of ['username', 'password', 'project_name', 'user_domain_name', 'project_domain_name', 'region_name'])
    put(values, `nova.${key}`, r.str('nova', key));
  put(values, 'nova.endpoint_type', r.str('nova', 'endpoint_type'));
  put(values, 'nova.timeout', r.float('nova', 'timeout'));
}

function mapMl2(r: Reader, values: Record<string, unknown>): void {
  const mechanisms = r.list('ml2', 'mechanism_drivers');
  if (mechanisms !== undefined) {
    const other = mechanisms.filter((m) => m !== 'ovn');
    if (other.length || !mechanisms.includes('ovn'))
      throw new ConfigError(
        `[ml2] mechanism_drivers = ${mechanisms.join(',')}: octonet replaces ML2/OVN only; ` +
          `it cannot drive ${other.length ? other.join(', ') : 'a deployment without ovn'} (set mechanism_drivers = ovn)`,
      );
  }
  const types = r.list('ml2', 'type_drivers');
  const untyped = (types ?? []).filter((t) => !TYPE_DRIVERS.includes(t));
  if (untyped.length)
    r.warnings.push(
      `[ml2] type_drivers: octonet has no ${untyped.join(', ')} type driver; networks of that type are refused`,
    );
  const tenant = r.list('ml2', 'tenant_network_types');
  if (tenant !== undefined) {
    const bad = tenant.filter((t) => t !== 'geneve' && t !== 'vlan');
    if (bad.length)
      throw new ConfigError(
        `[ml2] tenant_network_types: octonet gives tenant networks geneve or vlan, not ${bad.join(', ')}`,
      );
    put(values, 'network.tenant_network_types', tenant);
  }
  const mtus = r.list('ml2', 'physical_network_mtus');
  if (mtus !== undefined) {
    const byPhysnet: Record<string, number> = {};
    for (const item of mtus) {
      const [physnet, mtu] = item.split(':');
      if (!physnet || !mtu || !/^\d+$/.test(mtu))
        throw new ConfigError(`[ml2] physical_network_mtus: "${item}" is not PHYSNET:MTU`);
      byPhysnet[physnet] = Number(mtu);
    }
    put(values, 'network.physical_network_mtus', byPhysnet);
  }
  put(values, 'network.geneve_vni_ranges', r.list('ml2_type_geneve', 'vni_ranges'));
  put(values, 'network.max_header_size', r.int('ml2_type_geneve', 'max_header_size'));
  put(values, 'network.network_vlan_ranges', r.list('ml2_type_vlan', 'network_vlan_ranges'));
  put(values, 'network.flat_networks', r.list('ml2_type_flat', 'flat_networks'));
}

/** `[ovn]` options whose octonet key has the same name. */
const OVN_SAME_NAME = {
  bool: ['enable_distributed_floating_ip', 'localnet_learn_fdb', 'broadcast_arps_to_all_routers'],
  int: ['dhcp_default_lease_time', 'fdb_age_threshold', 'mac_binding_age_threshold'],
} as const;

function mapOvn(r: Reader, values: Record<string, unknown>): void {
  // Neutron lists NB/SB remotes as a ListOpt; octonet takes the same, comma-separated.
  put(values, 'ovn.nb_connection', r.list('ovn', 'ovn_nb_connection')?.join(','));
  put(values, 'ovn.sb_connection', r.list('ovn', 'ovn_sb_connection')?.join(','));
  const scheduler = r.str('ovn', 'ovn_l3_scheduler');
  if (scheduler !== undefined && scheduler !== 'leastloaded')
    r.warnings.push(`[ovn] ovn_l3_scheduler = ${scheduler}: octonet schedules router gateways leastloaded`);
  put(values, 'ovn.metadata_enabled', r.bool('ovn', 'ovn_metadata_enabled'));
  put(values, 'ovn.dns_servers', r.list('ovn', 'dns_servers'));
  for (const key of OVN_SAME_NAME.bool) put(values, `ovn.${key}`, r.bool('ovn', key));
  for (const key of OVN_SAME_NAME.int) put(values, `ovn.${key}`, r.int('ovn', key));
  put(values, 'ovn.ovsdb_probe_interval', r.int('ovn', 'ovsdb_probe_interval'));
  put(values, 'ovn.ovsdb_call_timeout', r.int('ovn', 'ovsdb_connection_timeout'));
  // Neutron keeps the multicast switches in its OVS section; ML2/OVN reads them from there too.
  for (const key of ['igmp_snooping_enable', 'igmp_flood_unregistered', 'igmp_flood_reports', 'igmp_flood'])
    put(values, `ovn.${key}`, r.bool('ovs', key));
}

function mapQuotas(r: Reader, values: Record<string, unknown>): void {
  for (const key of QUOTA_KEYS) put(values, `quotas.${key}`, r.int('quotas', `quota_${key}`));
}

function mapPolicy(r: Reader, values: Record<string, unknown>): void {
  const name = r.str('oslo_policy', 'policy_file');
  const path = r.conf.findFile(name ?? 'policy.yaml');
  // oslo: a missing default policy.yaml means the defaults; a named one that is missing is an error.
  if (name !== undefined && path === undefined)
    throw new ConfigError(`[oslo_policy] policy_file = ${name}: not found beside the config files`);
  put(values, 'policy_file', path);
}

/** The octonet config the Neutron files describe, what they set that octonet ignores, and caveats. */
export function mapNeutronConfig(conf: OsloConfig): NeutronConfigMapping {
  const r = new Reader(conf);
  const values: Record<string, unknown> = {};
  // Every refusal at once, the ML2 ones first: an operator fixes the files in one go.
  const refusals: string[] = [];
  for (const map of [mapMl2, mapDefault, mapDatabase, mapKeystone, mapNova, mapOvn, mapQuotas, mapPolicy]) {
    try {
      map(r, values);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      refusals.push(error.message);
    }
  }
  if (refusals.length) throw new ConfigError(refusals.join('\n'));
  const ignored = conf
    .optionNames()
    .filter((n) => !r.used.has(n))
    .sort();
  return { values, ignored, warnings: r.warnings };
}

/**
 * The one typed, validated configuration object.
 *
 * Sources, later ones winning: built-in defaults, the YAML file (`--config` or `OCTONET_CONFIG`),
 * `OCTONET_*` environment variables (top-level keys only), command-line flags. Every option has a
 * default and a line of documentation here and in `docs/config.md`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type * as YamlModule from 'yaml';

/** `listen` as host and port; IPv6 hosts in brackets (`[::1]:9696`). */
const hostPort = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^:\s]+):\d{1,5}$/, 'expected HOST:PORT');

const networkSchema = z
  .object({
    /** Network types given to tenant networks created without provider attributes, in order of preference. */
    tenant_network_types: z.array(z.enum(['geneve', 'vlan'])).default(['geneve']),
    /** Geneve VNIs handed to tenant networks, as `MIN:MAX` ranges. */
    geneve_vni_ranges: z.array(z.string().regex(/^\d+:\d+$/)).default(['1:65536']),
    /** Physical networks allowed for flat provider networks (`*` allows any). */
    flat_networks: z.array(z.string()).default(['physnet1']),
    /** Physical networks for VLAN networks: `PHYSNET` (provider VLANs only) or `PHYSNET:MIN:MAX` (also tenant VLANs). */
    network_vlan_ranges: z.array(z.string().regex(/^[^:\s]+(:\d+:\d+)?$/)).default(['physnet1:100:199']),
    /** MTU of the underlying physical network; tunnelled networks subtract their overhead from it. */
    global_physnet_mtu: z.number().int().min(68).default(1500),
    /** Largest tunnel header (OVN uses 38 bytes for geneve with its options). */
    max_header_size: z.number().int().min(0).default(38),
    /** Per-physnet MTU overrides: `{physnet1: 9000}`. */
    physical_network_mtus: z.record(z.string(), z.number().int().min(68)).default({}),
    /** Domain of the `dns_assignment` FQDNs of ports (Neutron's `dns_domain`). */
    dns_domain: z.string().default('openstacklocal'),
    /** MAC prefix of generated port MACs; the last three octets are random. */
    base_mac: z
      .string()
      .regex(/^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/)
      .default('fa:16:3e:00:00:00'),
    /** Most DNS servers a subnet may list. */
    max_dns_nameservers: z.number().int().min(0).default(5),
    /** Most host routes a subnet may list. */
    max_subnet_host_routes: z.number().int().min(0).default(20),
    /** Most allowed address pairs a port may list. */
    max_allowed_address_pair: z.number().int().min(0).default(10),
    /** `enable_snat` of a router gateway set without one (Neutron's `enable_snat_by_default`). */
    enable_snat_by_default: z.boolean().default(true),
  })
  .strict();

const quotaSchema = z
  .object({
    network: z.number().int().min(-1).default(100),
    subnet: z.number().int().min(-1).default(100),
    subnetpool: z.number().int().min(-1).default(-1),
    port: z.number().int().min(-1).default(500),
    /** Extra routes per router (checked on the router, not counted per project). */
    router_route: z.number().int().min(-1).default(30),
    router: z.number().int().min(-1).default(10),
    floatingip: z.number().int().min(-1).default(50),
    security_group: z.number().int().min(-1).default(10),
    security_group_rule: z.number().int().min(-1).default(100),
    rbac_policy: z.number().int().min(-1).default(10),
  })
  .strict();

/**
 * The JSON texts of whole port views kept between admins' and services' lists and shows
 * (`core/ports/view-cache.ts`): the most recently used as bytes, the rest packed.
 */
const portViewCacheSchema = z
  .object({
    /**
     * Bytes of the most recently used views' texts (~1,200 a port). 16 MiB: ten times the shared
     * bench's list; at 100,000 ports, 32 MiB still held only 40 % of them and raised the API
     * server's RSS in bench:scale's read phase from 238 to 358 MiB.
     */
    text_bytes: z.number().int().min(0).default(16_777_216), // 16 MiB
    /** Bytes of the views packed behind them (~400 a port): 48 MiB keeps about 120,000 ports. */
    packed_bytes: z.number().int().min(0).default(50_331_648), // 48 MiB
  })
  .strict();

const ovnSchema = z
  .object({
    /** OVN northbound database: `unix:PATH` or `tcp:HOST:PORT`, comma-separated for a RAFT cluster; unset runs without OVN. */
    nb_connection: z.string().optional(),
    /** OVN southbound database (chassis, port bindings); same syntax. */
    sb_connection: z.string().optional(),
    /** Give every network with a DHCP subnet a `network:distributed` metadata port (a `localport` in OVN), as ML2/OVN does. */
    metadata_enabled: z.boolean().default(true),
    /** `lease_time` of OVN's DHCPv4 answers, in seconds. */
    dhcp_default_lease_time: z.number().int().min(1).default(43200),
    /** DNS servers handed out by DHCP when a subnet lists none (else the host's resolv.conf). */
    dns_servers: z.array(z.string()).default([]),
    /** `mcast_snoop` on every logical switch (Neutron's `[OVS] igmp_snooping_enable`). */
    igmp_snooping_enable: z.boolean().default(false),
    /** `mcast_flood_unregistered` on every logical switch. */
    igmp_flood_unregistered: z.boolean().default(false),
    /** `mcast_flood_reports` on localnet ports. */
    igmp_flood_reports: z.boolean().default(true),
    /** `mcast_flood` on localnet ports. */
    igmp_flood: z.boolean().default(false),
    /** `localnet_learn_fdb` on localnet ports. */
    localnet_learn_fdb: z.boolean().default(false),
    /** `fdb_age_threshold` of provider networks' logical switches, in seconds. */
    fdb_age_threshold: z.number().int().min(0).default(300),
    /** `broadcast-arps-to-all-routers` on external networks' logical switches. */
    broadcast_arps_to_all_routers: z.boolean().default(true),
    /**
     * How a load balancer's VIP (a port whose address others list as an allowed address pair)
     * follows keepalived: `virtual-port`, ML2/OVN's OVN virtual port (ovn-northd rebinds it, so a
     * failover waits for a northd pass, which grows with the NB); `learned-mac`, a plain port
     * without static addresses whose MAC the routers learn from the new master's gratuitous ARP
     * (ovn-controllers only; no northd on the failover path); `auto`, `learned-mac` unless
     * `enable_distributed_floating_ip` is on, whose NAT (and BGP announcement) must sit on the
     * chassis binding the VIP, which only a virtual port has (see `resolveVipFailover`).
     */
    vip_failover: z.enum(['auto', 'virtual-port', 'learned-mac']).default('auto'),
    /** Seconds without a heartbeat after which an OVN agent is shown as not alive. */
    agent_down_time: z.number().int().min(1).default(75),
    /** Seconds between full comparisons of the database with the NB (0: only at start); drift seen by the NB monitor is repaired at once. */
    full_sync_interval: z.number().int().min(0).default(300),
    /**
     * BFD timers OVN uses between gateway chassis (`NB_Global` `bfd-min-rx`, `bfd-min-tx`, `bfd-mult`),
     * which decide how fast a dead gateway is noticed; unset keeps OVN's defaults (1000 ms, 3).
     */
    bfd_min_rx: z.number().int().min(1).optional(),
    bfd_min_tx: z.number().int().min(1).optional(),
    bfd_mult: z.number().int().min(1).optional(),
    /**
     * ML2/OVN's `enable_distributed_floating_ip`: a floating IP's NAT row carries its port's MAC as
     * `external_mac`, so OVN does the NAT on the chassis hosting the port (traffic leaves from the
     * compute node; every node needs the provider bridge mapping) instead of the gateway chassis.
     */
    enable_distributed_floating_ip: z.boolean().default(false),
    /** `mac_binding_age_threshold` of every logical router, in seconds. */
    mac_binding_age_threshold: z.number().int().min(0).default(300),
    /**
     * Take over an NB another octonet deployment marked as its own (`NB_Global.external_ids
     * octonet:deployment_id`), once at start; for one deliberate start only (e.g. after `octonet import`).
     */
    nb_takeover: z.boolean().default(false),
    /** Seconds `serve` waits at start for OVN before opening the API anyway (it keeps connecting). */
    startup_wait: z.number().min(0).default(30),
    /** Milliseconds between OVSDB echo probes; a connection silent for two is dropped and re-made. */
    ovsdb_probe_interval: z.number().int().min(100).default(5000),
    /** Seconds an OVSDB request (transact, echo, monitor) may wait for its answer; an unanswered echo drops the connection. */
    ovsdb_call_timeout: z.number().min(1).default(60),
  })
  .strict();

/**
 * How `auth: keystone` validates tokens, with the names keystonemiddleware's `[keystone_authtoken]`
 * uses where one exists. The service user's password is read from a file so it never appears in a
 * process listing, a config dump or a shell history.
 */
const keystoneSchema = z
  .object({
    /** Keystone's v3 root, e.g. `http://keystone:5000/v3` (`auth_url`). */
    url: z.url({ protocol: /^https?$/ }).optional(),
    /** The service user octonet validates tokens as (`username`); it needs the `admin` or `service` role. */
    user: z.string().min(1).optional(),
    /** A file holding the service user's password (its trailing newline is ignored). */
    password_file: z.string().min(1).optional(),
    /** Only from Neutron's files (`[keystone_authtoken] password`); the YAML must use `password_file`. */
    password: z.string().min(1).optional(),
    /** The project the service token is scoped to (`project_name`), usually `service`. */
    project: z.string().min(1).optional(),
    /** ID of the service user's domain (`user_domain_id`). */
    user_domain: z.string().min(1).default('default'),
    /** ID of the service project's domain (`project_domain_id`). */
    project_domain: z.string().min(1).default('default'),
    /** Seconds a validated token is trusted without asking Keystone again, never past its expiry; 0 asks every time (`token_cache_time`). */
    token_cache_time: z.number().int().min(0).default(300),
    /** Where a 401 sends clients to authenticate (`WWW-Authenticate: Keystone uri="..."`); default: `url` (`www_authenticate_uri`). */
    www_authenticate_uri: z.string().min(1).optional(),
    /** Seconds to wait for an answer from Keystone before answering 503 (`http_connect_timeout`). */
    timeout: z.number().min(0.1).default(10),
  })
  .strict();

/**
 * Events to Nova (`os-server-external-events`), as Neutron's `[nova]` section and its
 * `notify_nova_*` / `send_events_interval` / `http_retries` options: off until `auth_url` is set.
 * The user needs the `admin` role (Nova's policy for external events); its password is read from
 * a file, as `keystone.password_file`.
 */
const novaSchema = z
  .object({
    /** Keystone's v3 root the Nova user authenticates at, e.g. `http://keystone:5000/v3`; unset sends Nova nothing. */
    auth_url: z.url({ protocol: /^https?$/ }).optional(),
    /** The user octonet notifies Nova as (`username`); Nova's policy wants `admin`. */
    username: z.string().min(1).default('nova'),
    /** A file holding that user's password (its trailing newline is ignored). */
    password_file: z.string().min(1).optional(),
    /** Only from Neutron's files (`[nova] password`); the YAML must use `password_file`. */
    password: z.string().min(1).optional(),
    /** The project its token is scoped to (`project_name`). */
    project_name: z.string().min(1).default('service'),
    /** Name of the user's domain (`user_domain_name`). */
    user_domain_name: z.string().min(1).default('Default'),
    /** Name of the project's domain (`project_domain_name`). */
    project_domain_name: z.string().min(1).default('Default'),
    /** Region of the compute endpoint in the catalog (`region_name`); unset takes any. */
    region_name: z.string().min(1).optional(),
    /** Which catalog endpoint of service type `compute` to use (`endpoint_type`, keystoneauth's `interface`). */
    endpoint_type: z.enum(['public', 'internal', 'admin']).default('public'),
    /** Nova's compute URL (e.g. `http://nova:8774/v2.1`), skipping the catalog (`endpoint_override`). */
    endpoint_override: z.string().min(1).optional(),
    /** Seconds between batches of events; the first event of a quiet spell goes at once (`send_events_interval`). */
    send_events_interval: z.number().min(0).default(2),
    /** Times a batch is sent again after a connection failure or a 5xx (`http_retries`). */
    http_retries: z.number().int().min(0).default(3),
    /** Seconds to wait for Keystone or Nova before counting the attempt failed. */
    timeout: z.number().min(0.1).default(10),
    /** Send `network-vif-plugged` / `-unplugged` when a compute port's status changes (`notify_nova_on_port_status_changes`). */
    notify_on_port_status_changes: z.boolean().default(true),
    /** Send `network-changed` / `network-vif-deleted` on port and floating IP changes (`notify_nova_on_port_data_changes`). */
    notify_on_port_data_changes: z.boolean().default(true),
  })
  .strict();

/**
 * What a client may hold of the HTTP server, so slow or many clients cannot lock others out: a
 * connection that sends its request too slowly is answered 408 and closed.
 */
const httpSchema = z
  .object({
    /** Seconds to receive a request's headers (Node's `headersTimeout`); 408 after. */
    headers_timeout: z.number().min(1).default(10),
    /** Seconds to receive a whole request, body included (`requestTimeout`); 408 after. Not the time to answer it. */
    request_timeout: z.number().min(1).default(30),
    /** Seconds a kept-alive connection may wait for its next request (`keepAliveTimeout`). */
    keep_alive_timeout: z.number().min(0.1).default(5),
    /** Seconds without a byte either way after which a connection is closed (`connectionTimeout`); 0 never. */
    idle_timeout: z.number().min(0).default(120),
    /** Connections open at once; beyond, new ones are closed at once. Keep it below the open-file limit (`ulimit -n`). */
    max_connections: z.number().int().min(1).default(15000),
  })
  .strict();

export const configSchema = z
  .object({
    /** Where the API listens. */
    listen: hostPort.default('127.0.0.1:9696'),
    /** Directory for octonet's own files (the default SQLite database). */
    state_dir: z.string().default(defaultStateDir()),
    /** `sqlite:PATH` or `postgres://user:password@host:port/db`; default: `sqlite:<state_dir>/octonet.db`. */
    database: z.string().optional(),
    /** Connections per process to PostgreSQL. */
    database_pool_size: z.number().int().min(1).default(10),
    /** Seconds to wait for a PostgreSQL connection (a new one, or a free one when all are busy) before answering 503. */
    database_connect_timeout: z.number().min(0.1).default(5),
    /** Seconds after which an idle PostgreSQL connection is closed. */
    database_idle_timeout: z.number().min(0.1).default(30),
    /** Seconds a PostgreSQL statement may run before it is cancelled (503); 0 for no limit. */
    database_statement_timeout: z.number().min(0).default(15),
    /** Seconds a transaction keeps retrying while the database is unavailable (restart, failover, locked file) before answering 503. */
    database_retry_budget: z.number().min(0).default(3),
    /** `noauth`: identity from trusted X-User-Id / X-Project-Id / X-Roles headers; `keystone`: from X-Auth-Token, validated by Keystone. */
    auth: z.enum(['noauth', 'keystone']).default('noauth'),
    /** Allow `auth: noauth` on a non-loopback `listen` address (anyone who reaches it can then act as admin). */
    insecure_noauth: z.boolean().default(false),
    /** Token validation for `auth: keystone`. */
    keystone: keystoneSchema.default(keystoneSchema.parse({})),
    /** noauth: the project of a caller that sends no X-Project-Id (who is then admin), as Neutron's noauth. */
    noauth_default_project_id: z.string().min(1).default('fake_project_id'),
    /** `fatal`, `error`, `warn`, `info`, `debug` or `trace`. */
    log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Largest `limit` a list may use; -1 for no limit (Neutron's `pagination_max_limit`). */
    pagination_max_limit: z.number().int().min(-1).default(-1),
    /** Memory for port views kept between requests; 0 and 0 keep none. */
    port_view_cache: portViewCacheSchema.default(portViewCacheSchema.parse({})),
    /** Largest request body accepted, in bytes. */
    max_request_body_size: z.number().int().min(1024).default(1048576),
    /** Timeouts and the connection cap of the API's HTTP server. */
    http: httpSchema.default(httpSchema.parse({})),
    network: networkSchema.default(networkSchema.parse({})),
    /** Default per-project limits; -1 is unlimited. Projects' own limits live in the database. */
    quotas: quotaSchema.default(quotaSchema.parse({})),
    /** The OVN data plane; without `nb_connection` octonet serves the API alone. */
    ovn: ovnSchema.default(ovnSchema.parse({})),
    /** Events to Nova; off without `nova.auth_url`. */
    nova: novaSchema.default(novaSchema.parse({})),
    /** A `policy.yaml` of oslo.policy rules over octonet's defaults (Neutron's `[oslo_policy] policy_file`); re-read when it changes. */
    policy_file: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((config, issues) => {
    if (config.nova.auth_url !== undefined && config.nova.password_file === undefined && !config.nova.password) {
      issues.addIssue({ code: 'custom', path: ['nova', 'password_file'], message: 'required with nova.auth_url' });
    }
    if (config.auth !== 'keystone') return;
    for (const key of ['url', 'user', 'password_file', 'project'] as const) {
      if (key === 'password_file' && config.keystone.password) continue;
      if (config.keystone[key] === undefined) {
        issues.addIssue({ code: 'custom', path: ['keystone', key], message: 'required with auth: keystone' });
      }
    }
  });

export type Config = z.infer<typeof configSchema> & { database: string };
export type NetworkConfig = Config['network'];
export type QuotaDefaults = Config['quotas'];
export type OvnConfig = Config['ovn'];
export type HttpConfig = Config['http'];
export type NovaConfig = Config['nova'];
export type PortViewCacheConfig = Config['port_view_cache'];

function defaultStateDir(): string {
  if (process.getuid?.() === 0) return '/var/lib/octonet';
  return join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'octonet');
}

/** The top-level keys that `OCTONET_<KEY>` environment variables may set. */
const ENV_KEYS = ['listen', 'state_dir', 'database', 'auth', 'log_level', 'noauth_default_project_id'] as const;

export class ConfigError extends Error {}

export interface ConfigSources {
  /** A YAML file; `OCTONET_CONFIG` when not given. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Values from Neutron's INI files (`neutron-conf.ts`), in config-key form: over the YAML file's
   * (sections merge key by key), under the environment and flags.
   */
  neutron?: Record<string, unknown>;
  /** Told each `section.key` that both the YAML file and the Neutron files set (the Neutron value wins). */
  onYamlOverridden?: (key: string) => void;
  /** Values from command-line flags, already in config-key form; objects merge into the file's sections. */
  overrides?: Record<string, unknown>;
}

/** Lays `layer` over `raw`: sections merge key by key; returns the keys both set. */
function mergeLayer(raw: Record<string, unknown>, layer: Record<string, unknown>): string[] {
  const both: string[] = [];
  for (const [key, value] of Object.entries(layer)) {
    if (value === undefined) continue;
    if (isPlainObject(value) && isPlainObject(raw[key])) {
      const section = raw[key] as Record<string, unknown>;
      for (const sub of Object.keys(value)) if (sub in section) both.push(`${key}.${sub}`);
      raw[key] = { ...section, ...value };
    } else {
      if (key in raw) both.push(key);
      raw[key] = value;
    }
  }
  return both;
}

export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env;
  const file = sources.file ?? env.OCTONET_CONFIG;
  let raw: Record<string, unknown> = {};
  if (file) {
    try {
      // The YAML parser is loaded only when there is a file: most deployments pass flags.
      const { parse } = createRequire(import.meta.url)('yaml') as typeof YamlModule;
      raw = (parse(readFileSync(file, 'utf8')) as Record<string, unknown> | null) ?? {};
    } catch (e) {
      throw new ConfigError(`cannot read config file ${file}: ${(e as Error).message}`);
    }
  }
  for (const section of ['keystone', 'nova'])
    if (isPlainObject(raw[section]) && 'password' in raw[section])
      throw new ConfigError(
        `${section}.password: give the password in a file (${section}.password_file), not in the config`,
      );
  if (sources.neutron) for (const key of mergeLayer(raw, sources.neutron)) sources.onYamlOverridden?.(key);
  for (const key of ENV_KEYS) {
    const value = env[`OCTONET_${key.toUpperCase()}`];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (const [key, value] of Object.entries(sources.overrides ?? {})) {
    if (value === undefined) continue;
    if (isPlainObject(value)) {
      const section = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
      if (Object.keys(section).length > 0)
        raw[key] = { ...(isPlainObject(raw[key]) ? (raw[key] as object) : {}), ...section };
    } else raw[key] = value;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${issues.join('\n  ')}`);
  }
  const config = parsed.data;
  return { ...config, database: config.database ?? `sqlite:${join(config.state_dir, 'octonet.db')}` };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `listen` option as what `server.listen` takes. */
export function parseListen(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(':');
  return { host: listen.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(listen.slice(i + 1)) };
}

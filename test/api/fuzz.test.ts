/**
 * Malformed and random requests at every route: bodies (broken JSON, wrong types, valid bodies
 * with one value swapped for junk), headers (content types, accept, identity, If-Match) and query
 * strings (filters, fields, sorting, paging, broken encodings), with every method. Whatever comes
 * in, octonet must answer below 500, keep running, answer an error with Neutron's body
 * `{"NeutronError": {"type", "message", "detail"}}`, and write nothing when it refuses: the
 * database (every table, every row) is compared before and after each refused request.
 *
 * Deterministic: a seeded PRNG (OCTONET_FUZZ_SEED overrides the seed; a failure names the seed
 * and the request). Runs on every backend: NUL bytes, integers beyond a column and deep JSON once
 * failed on one backend only.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { BACKENDS, useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

const SEED = Number(process.env.OCTONET_FUZZ_SEED ?? 20261122);
/** Requests per route and method. */
const ROUNDS = Number(process.env.OCTONET_FUZZ_ROUNDS ?? 20);
/** On PostgreSQL each request's before/after comparison costs a query per table: fewer rounds there. */
const roundsOn = (backend: string) => (backend === 'sqlite' ? ROUNDS : Math.ceil(ROUNDS / 4));

/** mulberry32: small, fast and good enough to pick test inputs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(SEED);
const int = (n: number) => Math.floor(random() * n);
const chance = (p: number) => random() < p;
function pick<T>(items: readonly T[]): T {
  return items[int(items.length)]!;
}
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(16)]).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
const projectId = () => hex(32);

const P1 = projectId();
const P2 = projectId();

/** Values of every JSON type, and strings that look almost right to Neutron's validators. */
function junk(depth = 0): unknown {
  const scalars: (() => unknown)[] = [
    () => null,
    () => true,
    () => false,
    () => 0,
    () => -1,
    () => 1.5,
    () => 2 ** 53 + 1,
    () => 1e308,
    () => -0,
    () => int(70000) - 5,
    () => '',
    () => ' ',
    () => 'x'.repeat(256),
    () => 'y'.repeat(5000),
    () => 'NaN',
    () => 'None',
    () => 'true',
    () => '-1',
    () => '1e3',
    () => 'ünïcødé ☃ 🚀',
    () => '\u0000\u0001\u001f',
    () => 'a\u0000b',
    () => 2147483648,
    () => 2 ** 63,
    () => -(2 ** 40),
    () => '9'.repeat(400),
    () => 'fd00:1::',
    () => '\ud800',
    () => '<script>alert(1)</script>',
    () => "'; drop table networks; --",
    () => '%s %(x)s {0}',
    () => uuid(),
    () => uuid().toUpperCase(),
    () => uuid().slice(0, 35),
    () => projectId(),
    () => '*',
    () => '10.0.0.0/24',
    () => '10.0.0.0/33',
    () => '10.0.0.1',
    () => '300.1.1.1',
    () => '::/0',
    () => '2001:db8::/64',
    () => '2001:db8::1/129',
    () => 'fe80::1%eth0',
    () => 'fa:16:3e:00:00:01',
    () => 'fa:16:3e:zz:00:01',
    () => '00:00:00:00:00:00',
    () => 'ff:ff:ff:ff:ff:ff',
    () => 'geneve',
    () => 'vlan',
    () => 'flat',
    () => 'physnet1',
    () => 'ingress',
    () => 'IPv6',
    () => 'tcp',
    () => 'icmp',
    () => 'access_as_shared',
    () => 'access_as_external',
    () => 'network',
    () => 'slaac',
    () => 'dhcpv6-stateful',
    () => 'network:router_interface',
    () => 'compute:nova',
    () => 'direct',
  ];
  if (depth < 3 && chance(0.2)) {
    return chance(0.5)
      ? Array.from({ length: int(4) }, () => junk(depth + 1))
      : Object.fromEntries(Array.from({ length: int(4) }, () => [pick(KEYS), junk(depth + 1)]));
  }
  return pick(scalars)();
}

/** Attribute names of every resource, and some no resource has. */
const KEYS = [
  'id',
  'name',
  'description',
  'tenant_id',
  'project_id',
  'admin_state_up',
  'shared',
  'router:external',
  'mtu',
  'port_security_enabled',
  'provider:network_type',
  'provider:physical_network',
  'provider:segmentation_id',
  'segments',
  'availability_zone_hints',
  'dns_domain',
  'network_id',
  'cidr',
  'ip_version',
  'gateway_ip',
  'allocation_pools',
  'host_routes',
  'dns_nameservers',
  'enable_dhcp',
  'ipv6_ra_mode',
  'ipv6_address_mode',
  'subnetpool_id',
  'prefixlen',
  'service_types',
  'segment_id',
  'fixed_ips',
  'mac_address',
  'device_id',
  'device_owner',
  'allowed_address_pairs',
  'extra_dhcp_opts',
  'security_groups',
  'binding:host_id',
  'binding:profile',
  'binding:vnic_type',
  'dns_name',
  'security_group_id',
  'direction',
  'ethertype',
  'protocol',
  'port_range_min',
  'port_range_max',
  'remote_ip_prefix',
  'remote_group_id',
  'remote_address_group_id',
  'stateful',
  'object_type',
  'object_id',
  'action',
  'target_tenant',
  'network',
  'subnet',
  'port',
  'security_group',
  'security_group_rule',
  'rbac_policy',
  'quota',
  'force',
  'check_limit',
  'tags',
  'agent',
  'revision_number',
  'created_at',
  'status',
  '',
  '__proto__',
  'constructor',
  'bogus',
];

/** What the API server's seed resources are, refreshed when a request deletes one. */
interface Seeds {
  external: string;
  router: string;
  floatingip: string;
  network: string;
  subnet: string;
  port: string;
  securityGroup: string;
  rule: string;
  rbac: string;
}

/** A plausible body of each resource, one of whose values the fuzzer replaces. */
function template(resource: string, seeds: Seeds): Record<string, unknown> {
  switch (resource) {
    case 'network':
      return { name: 'f', admin_state_up: true, mtu: 1400, 'provider:network_type': 'geneve' };
    case 'subnet':
      return {
        network_id: seeds.network,
        cidr: `10.${int(250)}.${int(250)}.0/24`,
        ip_version: 4,
        allocation_pools: [{ start: '10.0.0.2', end: '10.0.0.9' }],
        host_routes: [{ destination: '10.9.0.0/16', nexthop: '10.0.0.1' }],
        dns_nameservers: ['10.0.0.53'],
      };
    case 'port':
      return {
        network_id: seeds.network,
        fixed_ips: [{ subnet_id: seeds.subnet }],
        allowed_address_pairs: [{ ip_address: '10.0.0.100' }],
        extra_dhcp_opts: [{ opt_name: 'mtu', opt_value: '1400' }],
        security_groups: [seeds.securityGroup],
        'binding:vnic_type': 'normal',
      };
    case 'security_group':
      return { name: 'f', description: 'd', stateful: true };
    case 'security_group_rule':
      return {
        security_group_id: seeds.securityGroup,
        direction: 'ingress',
        ethertype: 'IPv4',
        protocol: 'tcp',
        port_range_min: 1000 + int(1000),
        port_range_max: 3000,
        remote_ip_prefix: '10.0.0.0/8',
      };
    case 'rbac_policy':
      return { object_type: 'network', object_id: seeds.network, action: 'access_as_shared', target_tenant: P2 };
    case 'quota':
      return { network: 50, port: 100 + int(100) };
    case 'agent':
      return { description: 'd' };
    case 'router':
      return {
        name: 'r',
        admin_state_up: true,
        external_gateway_info: { network_id: seeds.external, enable_snat: true },
        routes: [{ destination: '10.99.0.0/16', nexthop: '10.0.0.99' }],
      };
    case 'floatingip':
      return { floating_network_id: seeds.external, port_id: seeds.port, description: 'd' };
    case 'interface':
      return { subnet_id: seeds.subnet, port_id: seeds.port };
    case 'router_id':
      return { router_id: seeds.router };
    default:
      return {};
  }
}

/** A valid-looking body with one value (or key) replaced by junk, or junk outright; sometimes a valid one. */
function fuzzBody(resource: string | undefined, seeds: Seeds, method: string): string | undefined {
  if (resource && resource !== 'tags' && chance(0.15)) {
    const valid = method === 'PUT' ? { name: `n${int(100)}`, description: 'd' } : template(resource, seeds);
    if (resource === 'quota') return JSON.stringify({ quota: template('quota', seeds) });
    if (resource === 'interface' || resource === 'router_id') return JSON.stringify(template(resource, seeds));
    return JSON.stringify({ [resource]: valid });
  }
  const roll = random();
  if (roll < 0.05) return undefined;
  if (roll < 0.2) {
    return pick([
      '{',
      '}',
      '{"network": ',
      '[]',
      'null',
      '1',
      '"x"',
      '{"a":1,}',
      "{'a': 1}",
      '{"a": NaN}',
      '{"a": Infinity}',
      '\u0000',
      '\ufeff{}',
      '{"a": "\\ud800"}',
      '['.repeat(5000) + ']'.repeat(5000),
      '{"network": {"name": ' + '['.repeat(5000) + ']'.repeat(5000) + '}}',
      '{"port": {"binding:profile": ' + '{"a": '.repeat(5000) + '1' + '}'.repeat(5000) + '}}',
      '{"network": {"name": "' + 'z'.repeat(2_000_000) + '"}}',
      JSON.stringify({ [resource ?? 'network']: null }),
      JSON.stringify({ [resource ?? 'network']: [] }),
      JSON.stringify({ [`${resource ?? 'network'}s`]: [{}, 1] }),
      JSON.stringify({ a: 1, b: 2 }),
    ]);
  }
  if (roll < 0.3 || !resource) return JSON.stringify(junk());
  const item = template(resource, seeds);
  const mutations = 1 + int(2);
  for (let i = 0; i < mutations; i++) {
    if (chance(0.7)) item[pick(Object.keys(item).length ? Object.keys(item) : KEYS)] = junk();
    else item[pick(KEYS)] = junk();
  }
  if (resource === 'tags') return JSON.stringify(chance(0.5) ? { tags: junk() } : { tags: [junk(), 'ok'] });
  // Router interfaces and L3 scheduling take their fields at the top level.
  if (resource === 'interface' || resource === 'router_id') return JSON.stringify(item);
  const bulk = chance(0.1);
  return JSON.stringify(bulk ? { [`${resource}s`]: [item, junk()] } : { [resource]: item });
}

/** Percent-encoding; a lone surrogate (no UTF-8 form) goes out as the bytes of one, which is invalid UTF-8. */
function enc(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ed%a0%80';
  }
}

/** A query string of filters, fields, sorting and paging, valid and not. */
function fuzzQuery(): string {
  if (chance(0.3)) return '';
  const parts: string[] = [];
  for (let i = 0, n = 1 + int(4); i < n; i++) {
    const key = pick([
      ...KEYS,
      'fields',
      'sort_key',
      'sort_dir',
      'limit',
      'marker',
      'page_reverse',
      'tags',
      'tags-any',
      'not-tags',
      'not-tags-any',
      'fixed_ips',
      'ip_address',
      'ip_address_substr',
      'subnet_id',
    ]);
    const value = pick([
      () => enc(String(junk())),
      () => pick(['asc', 'desc', 'sideways', '0', '-1', '1', 'abc', '1000000000000', 'True', 'false', '']),
      () => pick(['2147483648', '9223372036854775808', '1'.padEnd(400, '0'), '-9223372036854775809']),
      () => pick(['%zz', '%', '%e2%82', '%00', '+', '&', '=']),
      () => `ip_address%3D10.0.0.${int(300)}`,
      () => `subnet_id%3D${uuid()}`,
    ])();
    parts.push(chance(0.9) ? `${enc(key)}=${value}` : pick([key, '=', '&', `${key}[x]=1`]));
  }
  return '?' + parts.join('&');
}

type Headers = Record<string, string>;

/** Identity (noauth), content type, accept and If-Match, each sometimes odd. */
function fuzzHeaders(): Headers {
  const headers: Headers = {};
  const who = random();
  if (who < 0.5) {
    headers['x-project-id'] = pick([P1, P1, P2, projectId()]);
    headers['x-roles'] = pick(['member,reader', 'reader', 'admin', 'service', 'member', '', ' , ,', 'ADMIN', 'advsvc']);
  } else if (who < 0.6) {
    headers['x-project-id'] = pick(['', ' ', '*', 'x'.repeat(300), 'ünï', '\t']);
    headers['x-roles'] = pick(['member', 'admin']);
  }
  if (chance(0.3)) headers['x-user-id'] = pick(['u', '', 'x'.repeat(500)]);
  if (chance(0.8)) {
    headers['content-type'] = pick([
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      '',
      'garbage',
    ]);
  }
  if (chance(0.3))
    headers.accept = pick([
      'application/json',
      '*/*',
      'text/html',
      'application/xml',
      '',
      'application/*;q=0.1',
      'x/y, application/json',
    ]);
  if (chance(0.2))
    headers['if-match'] = pick([
      'revision_number=1',
      'revision_number=abc',
      'revision_number=-1',
      '*',
      'W/"x"',
      'revision_number=',
    ]);
  if (chance(0.1)) headers['x-openstack-request-id'] = pick(['req-x', '', '\u00ff']);
  if (chance(0.1)) headers['transfer-encoding'] = 'chunked';
  return headers;
}

interface Route {
  path: (seeds: Seeds) => string;
  /** The body key of the resource the route takes, to fuzz plausible bodies. */
  resource?: string;
}

const ID_JUNK = [
  '',
  'x',
  '..',
  '%2e%2e',
  '%00',
  'a'.repeat(2000),
  '%zz',
  'ünï',
  '00000000-0000-0000-0000-000000000000',
];
function idOr(real: string): string {
  const roll = random();
  if (roll < 0.6) return real;
  if (roll < 0.8) return uuid();
  // Raw non-ASCII in a path is refused by Node's HTTP parser itself (the raw-HTTP test covers that).
  const id = pick(ID_JUNK);
  return /^[\x21-\x7e]*$/.test(id) ? id : enc(id);
}

const ROUTES: Route[] = [
  { path: () => '/' },
  { path: () => '/v2.0' },
  { path: () => '/v2.0/' },
  { path: () => '/v2.0/extensions' },
  { path: () => `/v2.0/extensions/${pick(['agent', 'router', 'quotas', 'x', '%zz'])}` },
  { path: () => '/v2.0/networks', resource: 'network' },
  { path: (s) => `/v2.0/networks/${idOr(s.network)}`, resource: 'network' },
  { path: (s) => `/v2.0/networks/${idOr(s.network)}.json`, resource: 'network' },
  { path: () => '/v2.0/subnets', resource: 'subnet' },
  { path: (s) => `/v2.0/subnets/${idOr(s.subnet)}`, resource: 'subnet' },
  { path: () => '/v2.0/ports', resource: 'port' },
  { path: (s) => `/v2.0/ports/${idOr(s.port)}`, resource: 'port' },
  { path: () => '/v2.0/security-groups', resource: 'security_group' },
  { path: (s) => `/v2.0/security-groups/${idOr(s.securityGroup)}`, resource: 'security_group' },
  { path: () => '/v2.0/security-group-rules', resource: 'security_group_rule' },
  { path: (s) => `/v2.0/security-group-rules/${idOr(s.rule)}`, resource: 'security_group_rule' },
  { path: () => '/v2.0/rbac-policies', resource: 'rbac_policy' },
  { path: (s) => `/v2.0/rbac-policies/${idOr(s.rbac)}`, resource: 'rbac_policy' },
  { path: () => '/v2.0/quotas', resource: 'quota' },
  { path: () => `/v2.0/quotas/${pick(['project', 'tenant'])}`, resource: 'quota' },
  { path: () => `/v2.0/quotas/${idOr(P1)}`, resource: 'quota' },
  { path: () => `/v2.0/quotas/${idOr(P1)}/default`, resource: 'quota' },
  { path: () => `/v2.0/quotas/${idOr(P1)}/details`, resource: 'quota' },
  {
    path: (s) => {
      const [collection, id] = pick([
        ['networks', s.network],
        ['subnets', s.subnet],
        ['ports', s.port],
        ['security-groups', s.securityGroup],
        ['routers', s.router],
        ['floatingips', s.floatingip],
      ] as const);
      return `/v2.0/${collection}/${idOr(id)}/tags`;
    },
    resource: 'tags',
  },
  {
    path: (s) => `/v2.0/${pick(['networks', 'ports'])}/${idOr(pick([s.network, s.port]))}/tags/${enc(String(junk()))}`,
  },
  { path: () => '/v2.0/availability_zones' },
  { path: () => `/v2.0/availability_zones/${idOr('nova')}` },
  { path: () => '/v2.0/routers', resource: 'router' },
  { path: (s) => `/v2.0/routers/${idOr(s.router)}`, resource: 'router' },
  {
    path: (s) => `/v2.0/routers/${idOr(s.router)}/${pick(['add_router_interface', 'remove_router_interface'])}`,
    resource: 'interface',
  },
  {
    path: (s) => `/v2.0/routers/${idOr(s.router)}/${pick(['add_extraroutes', 'remove_extraroutes'])}`,
    resource: 'router',
  },
  { path: (s) => `/v2.0/routers/${idOr(s.router)}/l3-agents` },
  { path: () => `/v2.0/agents/${idOr('gateway1')}/l3-routers`, resource: 'router_id' },
  { path: (s) => `/v2.0/agents/${idOr('gateway1')}/l3-routers/${idOr(s.router)}` },
  { path: () => '/v2.0/floatingips', resource: 'floatingip' },
  { path: (s) => `/v2.0/floatingips/${idOr(s.floatingip)}`, resource: 'floatingip' },
  { path: () => '/v2.0/agents', resource: 'agent' },
  { path: () => `/v2.0/agents/${idOr('compute1')}`, resource: 'agent' },
  { path: () => '/v2.0/network-ip-availabilities' },
  { path: (s) => `/v2.0/network-ip-availabilities/${idOr(s.network)}` },
  { path: () => `/v2.0/${pick(['subnetpools', 'trunks', 'nope', '%zz'])}` },
  {
    path: () =>
      pick(['/v3', '/v2.0//networks', '/v2.0/networks/', '//', '/v2.0/networks?', '/metrics', '/v2.0/networks/x/y/z']),
  },
];

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

for (const backend of BACKENDS)
  describe(`fuzz: malformed and random requests at every route (${backend})`, () => {
    const api = useApi(backend, { config: { max_request_body_size: 1_048_576 } });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    after(() => agent.destroy());

    async function send(method: string, path: string, headers: Headers, body: string | undefined): Promise<Answer> {
      try {
        return await sendOnce(method, path, headers, body);
      } catch (error) {
        // A kept-alive socket the server closed after its last answer (a 413 closes the connection):
        // the request never reached it, so it is sent again on a new one, as Node's docs advise.
        if ((error as { reusedSocket?: boolean }).reusedSocket) return sendOnce(method, path, headers, body);
        throw error;
      }
    }

    function sendOnce(method: string, path: string, headers: Headers, body: string | undefined): Promise<Answer> {
      const url = new URL(api.url);
      return new Promise((resolve, reject) => {
        const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
          );
        });
        req.on('error', (error: NodeJS.ErrnoException) =>
          reject(
            Object.assign(
              new Error(`${method} ${path} ${JSON.stringify(headers)} ${body?.slice(0, 200)}: ${error.message}`),
              {
                reusedSocket: req.reusedSocket && error.code === 'ECONNRESET',
              },
            ),
          ),
        );
        if (body !== undefined && method !== 'HEAD') {
          // Node sends no length for a DELETE's or OPTIONS' body unless told: the request must stay
          // well-formed HTTP (malformed HTTP has its own test below).
          if (!headers['transfer-encoding']) req.setHeader('content-length', Buffer.byteLength(body));
          req.end(body);
        } else req.end();
      });
    }

    /** Every row of every table, in a stable order: the state a refused request must not change. */
    async function snapshot(): Promise<string> {
      const db = api.server.store.db;
      const tables = (await db.introspection.getTables()).map((t) => t.name).sort();
      const dumps: string[] = [];
      for (const table of tables) {
        const { rows } = await sql.raw(`select * from "${table}"`).execute(db);
        dumps.push(
          `${table}:${rows
            .map((row) => JSON.stringify(row))
            .sort()
            .join()}`,
        );
      }
      return dumps.join('\n');
    }

    async function seed(): Promise<Seeds> {
      const admin = api.admin;
      const post = async (path: string, key: string, body: object) => {
        const r = await admin.post(path, { [key]: body });
        assert.equal(r.status, 201, `${path}: ${r.text}`);
        return r.body[key].id as string;
      };
      const network = await post('/v2.0/networks', 'network', { name: 'seed', tenant_id: P1 });
      const subnet = await post('/v2.0/subnets', 'subnet', {
        network_id: network,
        cidr: '10.0.0.0/24',
        ip_version: 4,
        tenant_id: P1,
      });
      const port = await post('/v2.0/ports', 'port', { network_id: network, tenant_id: P1 });
      const securityGroup = await post('/v2.0/security-groups', 'security_group', { name: 'seed', tenant_id: P1 });
      const rule = await post('/v2.0/security-group-rules', 'security_group_rule', {
        security_group_id: securityGroup,
        direction: 'ingress',
        protocol: 'tcp',
        port_range_min: 22,
        port_range_max: 22,
        tenant_id: P1,
      });
      const rbac = await post('/v2.0/rbac-policies', 'rbac_policy', {
        object_type: 'network',
        object_id: network,
        action: 'access_as_shared',
        target_tenant: P2,
        tenant_id: P1,
      });
      const external = await post('/v2.0/networks', 'network', { name: 'public', 'router:external': true });
      await post('/v2.0/subnets', 'subnet', {
        network_id: external,
        cidr: '172.24.4.0/24',
        ip_version: 4,
        enable_dhcp: false,
      });
      const router = await post('/v2.0/routers', 'router', {
        name: 'seed',
        tenant_id: P1,
        external_gateway_info: { network_id: external },
      });
      const floatingip = await post('/v2.0/floatingips', 'floatingip', {
        floating_network_id: external,
        tenant_id: P1,
      });
      return { external, router, floatingip, network, subnet, port, securityGroup, rule, rbac };
    }

    /** Re-creates the seeds when a request deleted one of them. */
    async function freshSeeds(seeds: Seeds): Promise<Seeds> {
      const paths = [
        `/v2.0/networks/${seeds.network}`,
        `/v2.0/subnets/${seeds.subnet}`,
        `/v2.0/ports/${seeds.port}`,
        `/v2.0/security-groups/${seeds.securityGroup}`,
        `/v2.0/security-group-rules/${seeds.rule}`,
        `/v2.0/rbac-policies/${seeds.rbac}`,
        `/v2.0/networks/${seeds.external}`,
        `/v2.0/routers/${seeds.router}`,
        `/v2.0/floatingips/${seeds.floatingip}`,
      ];
      for (const path of paths) if ((await api.admin.get(path)).status !== 200) return seed();
      return seeds;
    }

    /** Writes `raw` on a new connection and returns everything the server answers until it closes. */
    function sendRaw(raw: string): Promise<string> {
      const url = new URL(api.url);
      return new Promise((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.end(raw));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', (error: NodeJS.ErrnoException) =>
          error.code === 'ECONNRESET' ? resolve(text) : reject(error),
        );
        socket.on('close', () => resolve(text));
      });
    }

    it('answers HTTP its parser refuses with a NeutronError body, and keeps serving', async () => {
      const cases = [
        'GARBAGE\r\n\r\n',
        'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
        'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
        'POST /v2.0/networks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
        'GET /v2.0/networks HTTP/1.1\r\nHost: x\r\nX-Bad Header: 1\r\n\r\n',
        `GET /v2.0/networks HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        'GET /v2.0/networks HTTP/9.9\r\nHost: x\r\n\r\n',
        'DELETE /v2.0/networks/x HTTP/1.1\r\nHost: x\r\n\r\n{"network": {}}',
      ];
      for (const raw of cases) {
        const answer = await sendRaw(raw);
        // The last (or only) answer on the connection is the refusal.
        const last = answer.slice(answer.lastIndexOf('HTTP/1.1 '));
        const [head, body] = [last.slice(0, last.indexOf('\r\n\r\n')), last.slice(last.indexOf('\r\n\r\n') + 4)];
        const status = Number(head.split(' ')[1]);
        assert.ok(status >= 400 && status < 500, `${JSON.stringify(raw.slice(0, 80))}: ${head}`);
        const parsed = JSON.parse(body);
        assert.deepEqual(Object.keys(parsed.NeutronError).sort(), ['detail', 'message', 'type'], body);
      }
      assert.equal((await api.admin.get('/')).status, 200);
    });

    it(`no 500, no crash, Neutron's error body and nothing written on a refusal (seed ${SEED})`, async () => {
      {
        let seeds = await seed();
        let state = await snapshot();
        const problems: string[] = [];
        let sent = 0;
        const statuses = new Map<number, number>();
        for (const route of ROUTES) {
          for (const method of METHODS) {
            for (let round = 0; round < roundsOn(backend); round++) {
              const path = route.path(seeds) + fuzzQuery();
              const headers = fuzzHeaders();
              const body =
                (method === 'GET' && chance(0.8)) || method === 'HEAD'
                  ? undefined
                  : fuzzBody(route.resource, seeds, method);
              const answer = await send(method, path, headers, body);
              sent++;
              statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
              const what = `seed ${SEED}: ${method} ${path} ${JSON.stringify(headers)} ${body?.slice(0, 300)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
              // 501 is Neutron's own answer to POST /v2.0/quotas; any other 5xx is a bug.
              const notImplemented = answer.status === 501 && answer.text.includes('"HTTPNotImplemented"');
              if (answer.status >= 500 && !notImplemented) problems.push(`5xx: ${what}`);
              const after = await snapshot();
              if (answer.status >= 400) {
                if (after !== state) problems.push(`a refused request wrote: ${what}`);
                if (method !== 'HEAD') {
                  let parsed: Json;
                  try {
                    parsed = JSON.parse(answer.text);
                  } catch {
                    parsed = undefined;
                  }
                  const error = parsed?.NeutronError;
                  const shaped =
                    parsed &&
                    Object.keys(parsed).length === 1 &&
                    error &&
                    Object.keys(error).sort().join() === 'detail,message,type' &&
                    ['type', 'message', 'detail'].every((k) => typeof error[k] === 'string');
                  if (!shaped) problems.push(`not a NeutronError body: ${what}`);
                  if (answer.headers['content-type'] !== 'application/json') problems.push(`content type: ${what}`);
                }
              }
              state = after;
              if (problems.length >= 10) break;
            }
            if (sent % 50 === 0 || method === 'DELETE') {
              seeds = await freshSeeds(seeds);
              state = await snapshot();
            }
          }
        }
        if (process.env.OCTONET_FUZZ_STATS)
          process.stderr.write(`fuzz: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`);
        assert.deepEqual(problems, []);
        // Still serving, and the seeds are still what they were made as.
        const root = await api.admin.get('/');
        assert.equal(root.status, 200);
        assert.ok(sent > ROUTES.length * METHODS.length * roundsOn(backend) * 0.99, `sent ${sent}`);
      }
    });
  });

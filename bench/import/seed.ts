/**
 * A Neutron database with many ports, made fast: one network, subnet and port through the real
 * Neutron's API, then the port copied N times by SQL in Neutron's own tables (standard attributes,
 * port, IP allocation, ML2 binding, port security, security group binding), each copy with its own
 * id, MAC and address. Through the API alone, 10,000 ports take this machine the better part of an
 * hour; the rows an import reads are the same. (Neutron's IPAM tables are not filled: Neutron is
 * stopped before the import and never sees these ports.) The same SQL on PostgreSQL and on MariaDB,
 * but for the table of copies.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { parseMysqlUrl } from '../../src/store/mysql/url.js';

interface Created {
  id: string;
}

async function create(base: string, path: string, kind: string, body: object): Promise<Created> {
  const response = await fetch(`${base}/v2.0${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ [kind]: body }),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as Record<string, Created>)[kind] as Created;
}

/** Builds the template through the API, then copies its port `ports - 1` times. */
export async function seedPorts(apiUrl: string, databaseUrl: string, ports: number): Promise<void> {
  const network = await create(apiUrl, '/networks', 'network', { name: 'bench', project_id: 'benchproject' });
  const subnet = await create(apiUrl, '/subnets', 'subnet', {
    network_id: network.id,
    cidr: '10.64.0.0/16',
    // The API's ports (template, metadata) stay in 10.64.0.x; the copies take 10.64.1.1 onwards.
    allocation_pools: [{ start: '10.64.0.2', end: '10.64.0.254' }],
    ip_version: 4,
    project_id: 'benchproject',
  });
  const template = await create(apiUrl, '/ports', 'port', {
    network_id: network.id,
    project_id: 'benchproject',
    name: 'bench-0',
    device_owner: 'compute:nova',
    'binding:host_id': 'host-1',
  });
  const run = await openSeedConnection(databaseUrl);
  try {
    await run('BEGIN');
    await run(copiesTable(run.kind), [ports - 1]);
    await run(
      `INSERT INTO standardattributes (id, resource_type, created_at, updated_at, description, revision_number)
         SELECT c.sa, s.resource_type, s.created_at, s.updated_at, s.description, s.revision_number
         FROM copies c, ports p JOIN standardattributes s ON s.id = p.standard_attr_id WHERE p.id = ?`,
      [template.id],
    );
    await run(
      `INSERT INTO ports (project_id, id, name, network_id, mac_address, admin_state_up, status, device_id, device_owner, standard_attr_id, ip_allocation)
         SELECT p.project_id, c.id, CONCAT('bench-', c.i), p.network_id, c.mac, p.admin_state_up, p.status, c.id, p.device_owner, c.sa, p.ip_allocation
         FROM copies c, ports p WHERE p.id = ?`,
      [template.id],
    );
    await run(
      `INSERT INTO ipallocations (port_id, ip_address, subnet_id, network_id) SELECT c.id, c.ip, ?, ? FROM copies c`,
      [subnet.id, network.id],
    );
    for (const [table, columns] of [
      ['ml2_port_bindings', 'host, vif_type, vnic_type, profile, vif_details, status'],
      ['portsecuritybindings', 'port_security_enabled'],
      ['securitygroupportbindings', 'security_group_id'],
      [
        'portdnses',
        'current_dns_name, current_dns_domain, previous_dns_name, previous_dns_domain, dns_name, dns_domain',
      ],
    ] as const) {
      const source = columns
        .split(', ')
        .map((c) => `t.${c}`)
        .join(', ');
      await run(
        `INSERT INTO ${table} (port_id, ${columns}) SELECT c.id, ${source} FROM copies c, ${table} t WHERE t.port_id = ?`,
        [template.id],
      );
    }
    await run('COMMIT');
  } finally {
    await run.close();
  }
}

/** One row per copy: its new id and standard attribute id, and an address counted from 10.64.1.0. */
function copiesTable(kind: 'postgresql' | 'mysql'): string {
  if (kind === 'postgresql') {
    return `CREATE TEMP TABLE copies AS
      SELECT gen_random_uuid()::text AS id, i,
             nextval(pg_get_serial_sequence('standardattributes', 'id')) AS sa,
             '10.64.' || (1 + i / 250) || '.' || (1 + i % 250) AS ip,
             'fa:16:3e:' || lpad(to_hex((i >> 16) & 255), 2, '0') || ':' || lpad(to_hex((i >> 8) & 255), 2, '0')
               || ':' || lpad(to_hex(i & 255), 2, '0') AS mac
      FROM generate_series(1, $1::int) AS i`;
  }
  // MariaDB: its sequence engine's seq_1_to_N table; ids after the highest one (an explicit
  // AUTO_INCREMENT value moves the counter past it, as nextval does).
  return `CREATE TEMPORARY TABLE copies AS
    SELECT UUID() AS id, n.seq AS i, (SELECT MAX(id) FROM standardattributes) + n.seq AS sa,
           CONCAT('10.64.', 1 + n.seq DIV 250, '.', 1 + n.seq % 250) AS ip,
           CONCAT('fa:16:3e:', LPAD(LOWER(HEX((n.seq >> 16) & 255)), 2, '0'), ':',
                  LPAD(LOWER(HEX((n.seq >> 8) & 255)), 2, '0'), ':', LPAD(LOWER(HEX(n.seq & 255)), 2, '0')) AS mac
    FROM (SELECT seq FROM seq_1_to_1000000 WHERE seq <= ?) AS n`;
}

type SeedConnection = ((sql: string, params?: unknown[]) => Promise<void>) & {
  kind: 'postgresql' | 'mysql';
  close(): Promise<void>;
};

/** Neutron's database by its `[database] connection` URL; `?` placeholders on both kinds. */
async function openSeedConnection(databaseUrl: string): Promise<SeedConnection> {
  if (/^mysql/.test(databaseUrl)) {
    const connection = await mysql.createConnection(parseMysqlUrl(databaseUrl));
    return Object.assign(
      async (statement: string, params: unknown[] = []) => {
        await connection.query(statement, params);
      },
      { kind: 'mysql' as const, close: () => connection.end() },
    );
  }
  const client = new pg.Client({ connectionString: databaseUrl.replace(/^postgresql\+\w+:/, 'postgresql:') });
  await client.connect();
  return Object.assign(
    async (statement: string, params: unknown[] = []) => {
      let n = 0;
      await client.query(
        statement.replace(/\?/g, () => `$${++n}`),
        params,
      );
    },
    { kind: 'postgresql' as const, close: () => client.end() },
  );
}

/**
 * The MySQL/MariaDB reader of a Neutron database (src/import/source.ts) against a real MariaDB
 * (fixtures/mariadb.ts): the column types Neutron's schema has there (TINYINT(1) booleans, DATETIME
 * without zone, BIGINT standard attribute ids, utf8 case-insensitive and binary collations) come
 * out in the shapes the PostgreSQL reader hands over, and every read sees one snapshot.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import { planImport } from '../../src/import/import.js';
import { readSnapshot } from '../../src/import/snapshot.js';
import { openNeutronSource } from '../../src/import/source.js';
import { createMariadbTestDatabase } from '../fixtures/mariadb.js';

const NETWORK = '6f1c7a4e-0d1b-4a4e-9c61-1e2f3a4b5c6d';
const LATER = '7a2d8b5f-1e2c-4b5f-8d72-2f3a4b5c6d7e';

/** The columns as neutron-db-manage makes them on MySQL (a subset of Zed's tables). */
const SCHEMA = [
  `CREATE TABLE standardattributes (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
     resource_type VARCHAR(255) NOT NULL, description VARCHAR(255), revision_number BIGINT NOT NULL DEFAULT 0,
     created_at DATETIME NOT NULL, updated_at DATETIME)`,
  `CREATE TABLE networks (project_id VARCHAR(255), id VARCHAR(36) NOT NULL PRIMARY KEY, name VARCHAR(255),
     status VARCHAR(16), admin_state_up TINYINT(1), vlan_transparent TINYINT(1), mtu INT NOT NULL DEFAULT 1500,
     availability_zone_hints VARCHAR(255), standard_attr_id BIGINT NOT NULL)`,
  `CREATE TABLE networksecuritybindings (network_id VARCHAR(36) NOT NULL PRIMARY KEY,
     port_security_enabled TINYINT(1) NOT NULL)`,
  // A binary-collated column (Neutron's tags are utf8_bin on MySQL) and a JSON one (a deployment's own).
  `CREATE TABLE tags (standard_attr_id BIGINT NOT NULL, tag VARCHAR(255) CHARACTER SET utf8 COLLATE utf8_bin NOT NULL,
     PRIMARY KEY (standard_attr_id, tag))`,
  `CREATE TABLE extra_json (id VARCHAR(36) PRIMARY KEY, doc JSON, raw VARBINARY(64))`,
];

describe('the MariaDB reader of a Neutron database', { skip: !existsSync('/usr/sbin/mariadbd') }, () => {
  let database: { url: string; drop: () => Promise<void> };
  let writer: mysql.Connection;
  let neutronUrl: string;

  before(async () => {
    database = await createMariadbTestDatabase();
    const { hostname, port, pathname } = new URL(database.url.replace(/^mysql:/, 'http:'));
    const name = pathname.slice(1);
    writer = await mysql.createConnection({ host: hostname, port: Number(port), user: 'root', database: name });
    await writer.query(`ALTER DATABASE \`${name}\` CHARACTER SET utf8 COLLATE utf8_general_ci`);
    for (const statement of SCHEMA) await writer.query(statement);
    // A session in another zone than UTC: DATETIME stores what is written, Neutron writes UTC.
    await writer.query("SET time_zone = '+05:00'");
    await writer.query(
      `INSERT INTO standardattributes (id, resource_type, description, revision_number, created_at, updated_at)
       VALUES (9007199254740993, 'networks', NULL, 4, '2026-11-26 00:42:01', '2026-11-26 01:02:03')`,
    );
    await writer.query(
      `INSERT INTO networks VALUES ('p1', ?, 'net-ä', 'ACTIVE', 1, 0, 1442, '["nova"]', 9007199254740993)`,
      [NETWORK],
    );
    await writer.query('INSERT INTO networksecuritybindings VALUES (?, 0)', [NETWORK]);
    await writer.query("INSERT INTO tags VALUES (9007199254740993, 'Blue'), (9007199254740993, 'blue')");
    await writer.query(`INSERT INTO extra_json VALUES ('j1', '{"a": [1, 2]}', 'bytes')`);
    neutronUrl = `mysql+pymysql://neutron:neutron@${hostname}:${port}/${name}?charset=utf8`;
  });

  after(async () => {
    await writer?.end();
    await database?.drop();
  });

  it('hands rows over as the PostgreSQL reader does: UTC text timestamps, BIGINT strings, JSON and bytes as text', async () => {
    const source = await openNeutronSource(neutronUrl);
    try {
      assert.equal(source.kind, 'mysql');
      assert.deepEqual([...(await source.tables())].sort(), [
        'extra_json',
        'networks',
        'networksecuritybindings',
        'standardattributes',
        'tags',
      ]);
      const [attributes] = await source.rows('standardattributes');
      assert.deepEqual(attributes, {
        id: '9007199254740993',
        resource_type: 'networks',
        description: null,
        revision_number: '4',
        created_at: '2026-11-26 00:42:01',
        updated_at: '2026-11-26 01:02:03',
      });
      assert.deepEqual(await source.rows('extra_json'), [{ id: 'j1', doc: '{"a":[1,2]}', raw: 'bytes' }]);
      const tags = (await source.rows('tags')).map((r) => r.tag).sort();
      assert.deepEqual(tags, ['Blue', 'blue']);
    } finally {
      await source.close();
    }
  });

  it('maps the rows as from PostgreSQL: TINYINT booleans, timestamps unchanged, the id exact', async () => {
    const source = await openNeutronSource(neutronUrl);
    let snapshot;
    try {
      snapshot = await readSnapshot(source);
    } finally {
      await source.close();
    }
    const plan = planImport(snapshot);
    assert.deepEqual(plan.networks, [
      {
        id: NETWORK,
        project_id: 'p1',
        name: 'net-ä',
        admin_state_up: true,
        status: 'ACTIVE',
        mtu: 1442,
        port_security_enabled: false,
        dns_domain: '',
        availability_zone_hints: ['nova'],
        description: '',
        revision_number: 4,
        created_at: '2026-11-26T00:42:01Z',
        updated_at: '2026-11-26T01:02:03Z',
      },
    ]);
    assert.deepEqual(plan.tags.map((t) => t.tag).sort(), ['Blue', 'blue']);
  });

  it('reads one snapshot: a row committed after the import began is not seen', async () => {
    const source = await openNeutronSource(neutronUrl);
    try {
      assert.equal((await source.rows('networks')).length, 1);
      await writer.query(
        `INSERT INTO standardattributes (id, resource_type, revision_number, created_at) VALUES (2, 'networks', 0, NOW())`,
      );
      await writer.query(`INSERT INTO networks VALUES ('p1', ?, 'later', 'ACTIVE', 1, 0, 1500, NULL, 2)`, [LATER]);
      assert.equal((await source.rows('networks')).length, 1);
      assert.equal((await source.rows('standardattributes')).length, 1);
    } finally {
      await source.close();
    }
    const again = await openNeutronSource(neutronUrl);
    try {
      assert.equal((await again.rows('networks')).length, 2);
    } finally {
      await again.close();
    }
  });
});

/** The MySQL compiler's translations of what the store writes in PostgreSQL's and SQLite's shared form. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, type Generated } from 'kysely';
import { OctonetMysqlQueryCompiler } from './compiler.js';

interface Db {
  tags: { resource_id: string; tag: string };
  quotas: { project_id: string; resource: string; limit: number };
  ports: { id: Generated<string>; name: string; dns_name: string | null };
}

const db = new Kysely<Db>({
  dialect: {
    createAdapter: () => new MysqlAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new MysqlIntrospector(k),
    createQueryCompiler: () => new OctonetMysqlQueryCompiler(() => 'utf8mb4_nopad_bin'),
  },
});

describe('OctonetMysqlQueryCompiler', () => {
  it('turns "on conflict do nothing" into a no-op "on duplicate key update"', () => {
    const { sql } = db
      .insertInto('tags')
      .values({ resource_id: 'r', tag: 't' })
      .onConflict((oc) => oc.columns(['resource_id', 'tag']).doNothing())
      .compile();
    assert.equal(
      sql,
      'insert into `tags` (`resource_id`, `tag`) values (?, ?) on duplicate key update `resource_id` = `resource_id`',
    );
  });

  it('turns "do update set c = excluded.c" into "c = values(c)"', () => {
    const { sql } = db
      .insertInto('quotas')
      .values({ project_id: 'p', resource: 'port', limit: 5 })
      .onConflict((oc) =>
        oc.columns(['project_id', 'resource']).doUpdateSet((eb) => ({ limit: eb.ref('excluded.limit') })),
      )
      .compile();
    assert.match(sql, /on duplicate key update `limit` = values\(`limit`\)$/);
  });

  it('drops "nulls first/last" where it is MySQL’s own order, and sorts on "is null" where it is not', () => {
    const natural = db
      .selectFrom('ports')
      .select('id')
      .orderBy('dns_name', (ob) => ob.asc().nullsFirst())
      .orderBy('name', (ob) => ob.desc().nullsLast())
      .compile();
    assert.equal(natural.sql, 'select `id` from `ports` order by `dns_name` asc, `name` desc');
    const reversed = db
      .selectFrom('ports')
      .select('id')
      .orderBy('dns_name', (ob) => ob.asc().nullsLast())
      .compile();
    assert.equal(reversed.sql, 'select `id` from `ports` order by (`dns_name`) is null asc, `dns_name` asc');
  });

  it('declares the collation and makes column references table-level foreign keys', () => {
    const { sql } = db.schema
      .createTable('ports')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('network_id', 'varchar(36)', (c) => c.notNull().references('networks.id').onDelete('cascade'))
      .compile();
    assert.equal(
      sql,
      'create table `ports` (`id` varchar(36) primary key, `network_id` varchar(36) not null, ' +
        'foreign key (`network_id`) references `networks` (`id`) on delete cascade) ' +
        'default character set utf8mb4 collate utf8mb4_nopad_bin',
    );
  });
});

/**
 * Indexes for many ports: `GET /v2.0/ports?network_id=` (and every per-network port read: the
 * network's delete, its DHCP and OVN reconciles) found its ports by scanning the whole table, a
 * cost that grew with every port of every network (issue 18's 100,000 ports). The index holds the
 * id too, so a filtered list comes back in the id order pagination wants without a sort.
 * (MySQL/MariaDB made an index for the foreign key already; this one is the same on every backend.)
 */
import { MysqlAdapter, type Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('ports_network_id').on('ports').columns(['network_id', 'id']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  // MySQL names an index's table in DROP INDEX; PostgreSQL and SQLite refuse it there.
  const drop = db.schema.dropIndex('ports_network_id');
  await (db.getExecutor().adapter instanceof MysqlAdapter ? drop.on('ports') : drop).execute();
}

/**
 * Port indexes for many ports (issue 18's 100,000). `GET /v2.0/ports?network_id=` (and every
 * per-network port read: the network's delete, its DHCP and OVN reconciles) scanned the whole
 * table. A project's paginated list (`project_id = ? and id > marker order by id limit N`) was
 * served from `ports_project_id` and sorted all the project's ports for every page, so walking
 * the list grew with the square of its length. Both indexes end in `id`, the order every list
 * and its pagination want, so a page is a range read. (`ports_project_id` is a prefix of the
 * new one and goes; MySQL/MariaDB had made an index for `network_id`'s foreign key already.)
 */
import { MysqlAdapter, type Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.createIndex('ports_network_id').on('ports').columns(['network_id', 'id']).execute();
  await db.schema.createIndex('ports_project_id_id').on('ports').columns(['project_id', 'id']).execute();
  await dropIndex(db, 'ports_project_id');
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.createIndex('ports_project_id').on('ports').column('project_id').execute();
  await dropIndex(db, 'ports_project_id_id');
  await dropIndex(db, 'ports_network_id');
}

/** MySQL names an index's table in DROP INDEX; PostgreSQL and SQLite refuse it there. */
async function dropIndex(db: AnyDb, name: string): Promise<void> {
  const drop = db.schema.dropIndex(name);
  await (db.getExecutor().adapter instanceof MysqlAdapter ? drop.on('ports') : drop).execute();
}

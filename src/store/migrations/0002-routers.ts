/**
 * Routers and floating IPs: the routers with their extra routes and the operator's gateway pins
 * (`/v2.0/agents/<id>/l3-routers`), and the floating IPs. Same conventions as 0001 (see
 * `store/schema.ts`), with one deliberate exception: a floating IP's `fixed_port_id` and
 * `fixed_ip_address` are NULL when it is not associated, so that the uniqueness of an association
 * (one floating IP per fixed address and external network, Neutron's
 * `uniq_floatingips0floatingnetworkid0fixedportid0fixedipaddress`) leaves unassociated ones alone.
 */
import type { CreateTableBuilder, Kysely } from 'kysely';

// The migration must not depend on the evolving Schema type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

function standardColumns<T extends string>(t: CreateTableBuilder<T>): CreateTableBuilder<T> {
  return t
    .addColumn('description', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'varchar(20)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(20)', (c) => c.notNull());
}

export async function up(db: AnyDb): Promise<void> {
  await standardColumns(
    db.schema
      .createTable('routers')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('name', 'varchar(255)', (c) => c.notNull())
      .addColumn('admin_state_up', 'boolean', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('enable_snat', 'boolean', (c) => c.notNull())
      // The gateway port: a port cannot go while a router still names it as its gateway.
      .addColumn('gw_port_id', 'varchar(36)', (c) => c.references('ports.id'))
      .addColumn('availability_zone_hints', 'varchar(255)', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('routers_project_id').on('routers').column('project_id').execute();

  await db.schema
    .createTable('router_routes')
    .addColumn('router_id', 'varchar(36)', (c) => c.notNull().references('routers.id').onDelete('cascade'))
    .addColumn('destination', 'varchar(64)', (c) => c.notNull())
    .addColumn('nexthop', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('router_routes_pk', ['router_id', 'destination', 'nexthop'])
    .execute();

  // Where an operator pinned a router's gateway, most preferred (lowest position) first.
  await db.schema
    .createTable('router_l3_agents')
    .addColumn('router_id', 'varchar(36)', (c) => c.notNull().references('routers.id').onDelete('cascade'))
    .addColumn('agent_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('router_l3_agents_pk', ['router_id', 'agent_id'])
    .execute();

  await standardColumns(
    db.schema
      .createTable('floatingips')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('floating_network_id', 'varchar(36)', (c) => c.notNull().references('networks.id'))
      // The floating IP's own `network:floatingip` port holds the address; they go together.
      .addColumn('floating_port_id', 'varchar(36)', (c) => c.notNull().references('ports.id').onDelete('cascade'))
      .addColumn('floating_ip_address', 'varchar(64)', (c) => c.notNull())
      // Disassociated explicitly when the port goes; SET NULL only guards against a missed path.
      .addColumn('fixed_port_id', 'varchar(36)', (c) => c.references('ports.id').onDelete('set null'))
      .addColumn('fixed_ip_address', 'varchar(64)')
      .addColumn('router_id', 'varchar(36)')
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('dns_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('dns_domain', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addUniqueConstraint('floatingips_association', ['floating_network_id', 'fixed_port_id', 'fixed_ip_address']),
  ).execute();
  await db.schema.createIndex('floatingips_project_id').on('floatingips').column('project_id').execute();
  await db.schema.createIndex('floatingips_fixed_port_id').on('floatingips').column('fixed_port_id').execute();
  await db.schema.createIndex('floatingips_router_id').on('floatingips').column('router_id').execute();
  await db.schema.createIndex('floatingips_floating_port_id').on('floatingips').column('floating_port_id').execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ['floatingips', 'router_l3_agents', 'router_routes', 'routers']) {
    await db.schema.dropTable(table).execute();
  }
}

/**
 * The first schema: networks, segments, subnets, ports and their children, security groups,
 * quotas and tags. Written with Kysely's schema builder so the same migration runs on SQLite and
 * PostgreSQL; see `store/schema.ts` for the column conventions.
 */
import type { CreateTableBuilder, Kysely } from 'kysely';

// The migration must not depend on the evolving Schema type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

function standardColumns<T extends string>(
  t: CreateTableBuilder<T>,
  nullableDescription = false,
): CreateTableBuilder<T> {
  return (
    t
      // Rules copied from the default-rule templates keep Neutron's null description.
      .addColumn('description', 'varchar(255)', (c) => (nullableDescription ? c : c.notNull().defaultTo('')))
      .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'varchar(20)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(20)', (c) => c.notNull())
  );
}

export async function up(db: AnyDb): Promise<void> {
  await standardColumns(
    db.schema
      .createTable('networks')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('name', 'varchar(255)', (c) => c.notNull())
      .addColumn('admin_state_up', 'boolean', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('mtu', 'integer', (c) => c.notNull())
      .addColumn('port_security_enabled', 'boolean', (c) => c.notNull())
      .addColumn('dns_domain', 'varchar(255)', (c) => c.notNull())
      .addColumn('availability_zone_hints', 'varchar(255)', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('networks_project_id').on('networks').column('project_id').execute();

  await db.schema
    .createTable('external_networks')
    .addColumn('network_id', 'varchar(36)', (c) => c.primaryKey().references('networks.id').onDelete('cascade'))
    .addColumn('is_default', 'boolean', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('network_rbacs')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('object_id', 'varchar(36)', (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('target_project', 'varchar(255)', (c) => c.notNull())
    .addColumn('action', 'varchar(255)', (c) => c.notNull())
    .addUniqueConstraint('network_rbacs_object_target_action', ['object_id', 'target_project', 'action'])
    .execute();
  await db.schema
    .createIndex('network_rbacs_target')
    .on('network_rbacs')
    .columns(['target_project', 'action'])
    .execute();

  await db.schema
    .createTable('network_segments')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('network_id', 'varchar(36)', (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('network_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('physical_network', 'varchar(64)', (c) => c.notNull())
    .addColumn('segmentation_id', 'integer', (c) => c.notNull())
    .addColumn('segment_index', 'integer', (c) => c.notNull())
    // The last line against handing out one VNI, VLAN or flat physnet twice.
    .addUniqueConstraint('network_segments_allocation', ['network_type', 'physical_network', 'segmentation_id'])
    .execute();
  await db.schema.createIndex('network_segments_network_id').on('network_segments').column('network_id').execute();

  await standardColumns(
    db.schema
      .createTable('subnets')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('network_id', 'varchar(36)', (c) => c.notNull().references('networks.id').onDelete('cascade'))
      .addColumn('name', 'varchar(255)', (c) => c.notNull())
      .addColumn('ip_version', 'integer', (c) => c.notNull())
      .addColumn('cidr', 'varchar(64)', (c) => c.notNull())
      .addColumn('gateway_ip', 'varchar(64)')
      .addColumn('enable_dhcp', 'boolean', (c) => c.notNull())
      .addColumn('ipv6_ra_mode', 'varchar(16)')
      .addColumn('ipv6_address_mode', 'varchar(16)')
      .addColumn('allocation_pools', 'text', (c) => c.notNull())
      .addColumn('dns_nameservers', 'text', (c) => c.notNull())
      .addColumn('host_routes', 'text', (c) => c.notNull())
      .addColumn('service_types', 'text', (c) => c.notNull())
      .addColumn('dns_publish_fixed_ip', 'boolean', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('subnets_network_id').on('subnets').column('network_id').execute();
  await db.schema.createIndex('subnets_project_id').on('subnets').column('project_id').execute();

  await standardColumns(
    db.schema
      .createTable('ports')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('network_id', 'varchar(36)', (c) => c.notNull().references('networks.id'))
      .addColumn('name', 'varchar(255)', (c) => c.notNull())
      .addColumn('mac_address', 'varchar(32)', (c) => c.notNull())
      .addColumn('admin_state_up', 'boolean', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('device_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('device_owner', 'varchar(255)', (c) => c.notNull())
      .addColumn('port_security_enabled', 'boolean', (c) => c.notNull())
      .addColumn('dns_name', 'varchar(255)', (c) => c.notNull())
      .addColumn('dns_domain', 'varchar(255)', (c) => c.notNull())
      .addColumn('ip_allocation', 'varchar(16)', (c) => c.notNull())
      .addColumn('binding_host_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('binding_vnic_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('binding_profile', 'text', (c) => c.notNull())
      .addColumn('binding_vif_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('binding_vif_details', 'text', (c) => c.notNull())
      // Neutron's uniq_ports0network_id0mac_address.
      .addUniqueConstraint('ports_network_mac', ['network_id', 'mac_address']),
  ).execute();
  await db.schema.createIndex('ports_project_id').on('ports').column('project_id').execute();
  await db.schema.createIndex('ports_device_id').on('ports').column('device_id').execute();
  await db.schema.createIndex('ports_device_owner').on('ports').column('device_owner').execute();

  await db.schema
    .createTable('ip_allocations')
    .addColumn('port_id', 'varchar(36)', (c) => c.notNull().references('ports.id').onDelete('cascade'))
    .addColumn('network_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('subnet_id', 'varchar(36)', (c) => c.notNull().references('subnets.id'))
    .addColumn('ip_address', 'varchar(64)', (c) => c.notNull())
    // The last line against handing out one address twice (subnets of a network never overlap).
    .addPrimaryKeyConstraint('ip_allocations_pk', ['network_id', 'ip_address'])
    .execute();
  await db.schema.createIndex('ip_allocations_port_id').on('ip_allocations').column('port_id').execute();
  await db.schema.createIndex('ip_allocations_subnet_id').on('ip_allocations').column('subnet_id').execute();
  await db.schema.createIndex('ip_allocations_ip_address').on('ip_allocations').column('ip_address').execute();

  await db.schema
    .createTable('allowed_address_pairs')
    .addColumn('port_id', 'varchar(36)', (c) => c.notNull().references('ports.id').onDelete('cascade'))
    .addColumn('mac_address', 'varchar(32)', (c) => c.notNull())
    .addColumn('ip_address', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('allowed_address_pairs_pk', ['port_id', 'mac_address', 'ip_address'])
    .execute();

  await db.schema
    .createTable('extra_dhcp_opts')
    .addColumn('port_id', 'varchar(36)', (c) => c.notNull().references('ports.id').onDelete('cascade'))
    .addColumn('opt_name', 'varchar(64)', (c) => c.notNull())
    .addColumn('opt_value', 'varchar(255)', (c) => c.notNull())
    .addColumn('ip_version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('extra_dhcp_opts_pk', ['port_id', 'opt_name', 'ip_version'])
    .execute();

  await standardColumns(
    db.schema
      .createTable('security_groups')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('name', 'varchar(255)', (c) => c.notNull())
      .addColumn('stateful', 'boolean', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('security_groups_project_id').on('security_groups').column('project_id').execute();

  await db.schema
    .createTable('default_security_groups')
    .addColumn('project_id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('security_group_id', 'varchar(36)', (c) =>
      c.notNull().references('security_groups.id').onDelete('cascade'),
    )
    .execute();

  await standardColumns(
    db.schema
      .createTable('security_group_rules')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('security_group_id', 'varchar(36)', (c) =>
        c.notNull().references('security_groups.id').onDelete('cascade'),
      )
      .addColumn('remote_group_id', 'varchar(36)', (c) => c.references('security_groups.id').onDelete('cascade'))
      .addColumn('direction', 'varchar(16)', (c) => c.notNull())
      .addColumn('ethertype', 'varchar(8)', (c) => c.notNull())
      .addColumn('protocol', 'varchar(40)')
      .addColumn('port_range_min', 'integer')
      .addColumn('port_range_max', 'integer')
      .addColumn('remote_ip_prefix', 'varchar(64)'),
    true,
  ).execute();
  await db.schema
    .createIndex('security_group_rules_sg')
    .on('security_group_rules')
    .column('security_group_id')
    .execute();
  await db.schema
    .createIndex('security_group_rules_remote')
    .on('security_group_rules')
    .column('remote_group_id')
    .execute();

  // Ports hold their security groups; a group still bound to a port cannot go (SecurityGroupInUse).
  await db.schema
    .createTable('port_security_groups')
    .addColumn('port_id', 'varchar(36)', (c) => c.notNull().references('ports.id').onDelete('cascade'))
    .addColumn('security_group_id', 'varchar(36)', (c) => c.notNull().references('security_groups.id'))
    .addPrimaryKeyConstraint('port_security_groups_pk', ['port_id', 'security_group_id'])
    .execute();
  await db.schema
    .createIndex('port_security_groups_sg')
    .on('port_security_groups')
    .column('security_group_id')
    .execute();

  await db.schema
    .createTable('quotas')
    .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('resource', 'varchar(255)', (c) => c.notNull())
    .addColumn('limit', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('quotas_pk', ['project_id', 'resource'])
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('resource_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('resource_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('tag', 'varchar(255)', (c) => c.notNull())
    .addPrimaryKeyConstraint('tags_pk', ['resource_id', 'tag'])
    .execute();
  await db.schema.createIndex('tags_type_tag').on('tags').columns(['resource_type', 'tag']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of [
    'tags',
    'quotas',
    'port_security_groups',
    'security_group_rules',
    'default_security_groups',
    'security_groups',
    'extra_dhcp_opts',
    'allowed_address_pairs',
    'ip_allocations',
    'ports',
    'subnets',
    'network_segments',
    'network_rbacs',
    'external_networks',
    'networks',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}

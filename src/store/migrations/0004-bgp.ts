/**
 * Address scopes and neutron-dynamic-routing's BGP tables: `address_scopes` and the subnet pools'
 * `address_scope_id`; `bgp_speakers`, `bgp_peers` and their bindings (speaker ↔ peer, speaker ↔
 * gateway network, speaker ↔ DR agent), as n-d-r's `bgp_db.py` and `bgp_dragentscheduler_db.py`
 * model them. AS numbers are `bigint`: a 4-byte ASN does not fit PostgreSQL's `integer`.
 */
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('address_scopes')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('shared', 'boolean', (c) => c.notNull())
    .addColumn('ip_version', 'integer', (c) => c.notNull())
    .execute();
  // A scope with pools cannot go (AddressScopeInUse is checked first; the reference is the backstop).
  await db.schema
    .alterTable('subnetpools')
    .addColumn('address_scope_id', 'varchar(36)', (c) => c.references('address_scopes.id'))
    .execute();

  await db.schema
    .createTable('bgp_speakers')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('local_as', 'bigint', (c) => c.notNull())
    .addColumn('ip_version', 'integer', (c) => c.notNull())
    .addColumn('advertise_floating_ip_host_routes', 'boolean', (c) => c.notNull())
    .addColumn('advertise_tenant_networks', 'boolean', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('bgp_peers')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('peer_ip', 'varchar(64)', (c) => c.notNull())
    .addColumn('remote_as', 'bigint', (c) => c.notNull())
    .addColumn('auth_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('password', 'varchar(255)')
    .execute();
  await db.schema
    .createTable('bgp_speaker_peer_bindings')
    .addColumn('bgp_speaker_id', 'varchar(36)', (c) => c.notNull().references('bgp_speakers.id').onDelete('cascade'))
    .addColumn('bgp_peer_id', 'varchar(36)', (c) => c.notNull().references('bgp_peers.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('bgp_speaker_peer_bindings_pk', ['bgp_speaker_id', 'bgp_peer_id'])
    .execute();
  await db.schema
    .createTable('bgp_speaker_network_bindings')
    .addColumn('bgp_speaker_id', 'varchar(36)', (c) => c.notNull().references('bgp_speakers.id').onDelete('cascade'))
    .addColumn('network_id', 'varchar(36)', (c) => c.notNull().references('networks.id').onDelete('cascade'))
    .addColumn('ip_version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('bgp_speaker_network_bindings_pk', ['bgp_speaker_id', 'network_id', 'ip_version'])
    .execute();
  // One speaker per agent (the primary key), as n-d-r: a second one is DrAgentAssociationError.
  // Agents are not rows here (they are SB chassis), so the agent id has no foreign key.
  await db.schema
    .createTable('bgp_speaker_dragent_bindings')
    .addColumn('agent_id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('bgp_speaker_id', 'varchar(36)', (c) => c.notNull().references('bgp_speakers.id').onDelete('cascade'))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('bgp_speaker_dragent_bindings').execute();
  await db.schema.dropTable('bgp_speaker_network_bindings').execute();
  await db.schema.dropTable('bgp_speaker_peer_bindings').execute();
  await db.schema.dropTable('bgp_peers').execute();
  await db.schema.dropTable('bgp_speakers').execute();
  await db.schema.alterTable('subnetpools').dropColumn('address_scope_id').execute();
  await db.schema.dropTable('address_scopes').execute();
}

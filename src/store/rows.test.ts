/**
 * The shared row writes (`rows.ts`), on SQLite and on a real PostgreSQL: booleans and JSON values
 * go in as such and come back as the dialect stores them, a patch encodes only what it names,
 * the row lock returns the row on both dialects, and a revision bump adds one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { BACKENDS, createBackendDatabase, type TestDatabase } from '../../test/fixtures/databases.js';
import { openStore, type Store } from './database.js';
import { bumpRevision, insertRow, lockRow, storedRow, updateRow, type RowValues } from './rows.js';
import { toBool } from './schema.js';

function network(overrides: Partial<RowValues<'networks'>> = {}): RowValues<'networks'> {
  return {
    id: randomUUID(),
    project_id: 'p1',
    name: 'n',
    admin_state_up: true,
    status: 'ACTIVE',
    mtu: 1442,
    port_security_enabled: false,
    dns_domain: '',
    availability_zone_hints: ['az1', 'az2'],
    description: '',
    revision_number: 1,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
    ...overrides,
  };
}

for (const backend of BACKENDS) {
  describe(`row writes (${backend})`, () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await createBackendDatabase(backend);
      store = await openStore(database.url);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    const read = (id: string) =>
      store.db.selectFrom('networks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    it('an inserted row is stored encoded, and insertRow returns it as a read does', async () => {
      const values = network();
      const returned = await store.transaction((tx) => insertRow(store, tx, 'networks', values));
      const row = await read(values.id);
      assert.deepEqual(returned, row);
      assert.equal(row.availability_zone_hints, '["az1","az2"]');
      assert.equal(toBool(row.admin_state_up), true);
      assert.equal(toBool(row.port_security_enabled), false);
      assert.equal(row.admin_state_up, store.bool(true));
      assert.deepEqual(storedRow(store, 'networks', values), row);
    });

    it('a patch writes only the columns it names, encoded', async () => {
      const values = network();
      await store.transaction((tx) => insertRow(store, tx, 'networks', values));
      await store.transaction((tx) =>
        updateRow(store, tx, 'networks', values.id, { admin_state_up: false, availability_zone_hints: [] }),
      );
      const row = await read(values.id);
      assert.equal(toBool(row.admin_state_up), false);
      assert.equal(row.availability_zone_hints, '[]');
      assert.equal(toBool(row.port_security_enabled), false);
      assert.equal(row.name, 'n');
    });

    it('a dict column (the binding profile) is stored as JSON text', async () => {
      const networkValues = network();
      await store.transaction((tx) => insertRow(store, tx, 'networks', networkValues));
      const id = randomUUID();
      await store.transaction((tx) =>
        insertRow(store, tx, 'ports', {
          id,
          project_id: 'p1',
          network_id: networkValues.id,
          name: '',
          mac_address: 'fa:16:3e:00:00:01',
          admin_state_up: true,
          status: 'DOWN',
          device_id: '',
          device_owner: '',
          port_security_enabled: true,
          dns_name: '',
          dns_domain: '',
          ip_allocation: 'immediate',
          binding_host_id: '',
          binding_vnic_type: 'normal',
          binding_profile: { migrating_to: 'h2' },
          binding_vif_type: 'unbound',
          binding_vif_details: {},
          description: '',
          revision_number: 1,
          created_at: '2024-01-01T00:00:00Z',
          updated_at: '2024-01-01T00:00:00Z',
        }),
      );
      const row = await store.db.selectFrom('ports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.binding_profile, '{"migrating_to":"h2"}');
      assert.equal(row.binding_vif_details, '{}');
    });

    it('lockRow returns the row (locked where the dialect has row locks), undefined when absent', async () => {
      const values = network({ name: 'locked' });
      await store.transaction((tx) => insertRow(store, tx, 'networks', values));
      const locked = await store.transaction((tx) => lockRow(store, tx, 'networks', values.id));
      assert.equal(locked?.name, 'locked');
      assert.equal(await store.transaction((tx) => lockRow(store, tx, 'networks', randomUUID())), undefined);
    });

    it('bumpRevision adds one to the revision and stamps updated_at', async () => {
      const values = network({ revision_number: 4 });
      await store.transaction((tx) => insertRow(store, tx, 'networks', values));
      await store.transaction((tx) => bumpRevision(tx, 'networks', values.id, '2025-02-02T00:00:00Z'));
      const row = await read(values.id);
      assert.equal(row.revision_number, 5);
      assert.equal(row.updated_at, '2025-02-02T00:00:00Z');
    });
  });
}

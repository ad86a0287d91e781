/**
 * The store's own contract, on SQLite and on a real PostgreSQL: migrations (idempotent, safe for
 * replicas starting together), transactions (rollback, the retry on a concurrent writer's unique
 * violation, giving up), error classification and boolean columns.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { BACKENDS, createBackendDatabase, type TestDatabase } from '../../test/fixtures/databases.js';
import { migrate, openStore, type Store } from './database.js';
import { deploymentIdentity } from './identity.js';
import { toBool, type NetworkSegmentTable, type NetworkTable } from './schema.js';

/** Every migration, in the order they apply. */
const MIGRATION_NAMES = [
  '0001-initial',
  '0002-routers',
  '0003-subnetpools',
  '0004-bgp',
  '0005-port-bindings',
  '0006-qos',
  '0007-deployment-identity',
  '0008-qos-policy-rbacs',
  '0009-port-list-indexes',
];

const TABLES = [
  'address_scopes',
  'allowed_address_pairs',
  'bgp_peers',
  'bgp_speaker_dragent_bindings',
  'bgp_speaker_network_bindings',
  'bgp_speaker_peer_bindings',
  'bgp_speakers',
  'default_security_groups',
  'external_networks',
  'extra_dhcp_opts',
  'floatingips',
  'ip_allocations',
  'network_rbacs',
  'network_segments',
  'networks',
  'octonet_deployment',
  'octonet_migrations',
  'octonet_migrations_lock',
  'port_bindings',
  'port_security_groups',
  'ports',
  'qos_network_policy_bindings',
  'qos_policies',
  'qos_policy_defaults',
  'qos_policy_rbacs',
  'qos_port_policy_bindings',
  'qos_rules',
  'quotas',
  'router_l3_agents',
  'router_routes',
  'routers',
  'security_group_rules',
  'security_groups',
  'subnetpool_prefixes',
  'subnetpools',
  'subnets',
  'tags',
];

function networkRow(store: Store, overrides: Partial<NetworkTable> = {}): NetworkTable {
  return {
    id: randomUUID(),
    project_id: 'p1',
    name: 'n',
    admin_state_up: store.bool(true),
    status: 'ACTIVE',
    mtu: 1442,
    port_security_enabled: store.bool(true),
    dns_domain: '',
    availability_zone_hints: '[]',
    description: '',
    revision_number: 1,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
    ...overrides,
  };
}

function geneveSegment(networkId: string, vni: number): NetworkSegmentTable {
  return {
    id: randomUUID(),
    network_id: networkId,
    network_type: 'geneve',
    physical_network: '',
    segmentation_id: vni,
    segment_index: 0,
  };
}

async function segmentIds(store: Store): Promise<number[]> {
  const rows = await store.db
    .selectFrom('network_segments')
    .select('segmentation_id')
    .orderBy('segmentation_id')
    .execute();
  return rows.map((r) => r.segmentation_id);
}

/** Runs `fn`, expecting it to reject, and returns what it rejected with. */
async function rejection(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

for (const backend of BACKENDS) {
  describe(`store (${backend})`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function freshDatabase(): Promise<TestDatabase> {
      const database = await createBackendDatabase(backend);
      cleanups.push(() => database.drop());
      return database;
    }

    async function open(url: string): Promise<Store> {
      const store = await openStore(url, { poolSize: 4 });
      cleanups.push(() => store.close());
      return store;
    }

    async function freshStore(): Promise<Store> {
      return open((await freshDatabase()).url);
    }

    it('gives each database one deployment identity, kept across opens and shared by its stores', async () => {
      const { url } = await freshDatabase();
      const first = await deploymentIdentity(await open(url));
      assert.match(first, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(await deploymentIdentity(await open(url)), first);
      assert.notEqual(await deploymentIdentity(await freshStore()), first);
    });

    it('migrates a new database, and opening it again changes nothing', async () => {
      const { url } = await freshDatabase();
      const first = await openStore(url);
      const tables = (await first.db.introspection.getTables()).map((t) => t.name).sort();
      // MySQL's `lockKey` locks rows of a table of its own (GET_LOCK outlives the transaction).
      assert.deepEqual(tables, backend === 'mysql' ? [...TABLES, 'octonet_lock_keys'].sort() : TABLES);
      const kept = networkRow(first);
      await first.db.insertInto('networks').values(kept).execute();
      await first.close();

      const second = await open(url);
      await migrate(second.db);
      const applied = await sql<{ name: string }>`select name from octonet_migrations`.execute(second.db);
      assert.deepEqual(
        applied.rows.map((r) => r.name),
        MIGRATION_NAMES,
      );
      const rows = await second.db.selectFrom('networks').select('id').execute();
      assert.deepEqual(rows, [{ id: kept.id }]);
    });

    it("refuses Neutron's own database, creating nothing in it", async () => {
      const { url } = await freshDatabase();
      const neutron = await openStore(url, { migrate: false });
      await sql`create table standardattributes (id integer primary key)`.execute(neutron.db);
      await assert.rejects(migrate(neutron.db), /Neutron's .*octonet import/);
      const tables = (await neutron.db.introspection.getTables()).map((t) => t.name);
      assert.ok(!tables.includes('octonet_migrations') && !tables.includes('networks'), tables.join(', '));
      await neutron.close();
    });

    if (backend !== 'sqlite') {
      it('lets several stores opened at once on one new database migrate it (the migrator lock)', async () => {
        const { url } = await freshDatabase();
        const stores = await Promise.all([1, 2, 3, 4].map(() => open(url)));
        const applied = await sql<{ name: string }>`select name from octonet_migrations`.execute(stores[0]!.db);
        assert.deepEqual(
          applied.rows.map((r) => r.name),
          MIGRATION_NAMES,
        );
        for (const store of stores) {
          await store.db.insertInto('networks').values(networkRow(store)).execute();
        }
        const count = await stores[3]!.db
          .selectFrom('networks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(count.n), 4);
      });
    }

    if (backend === 'postgres') {
      it('keeps working after PostgreSQL terminates its idle connections (no uncaught pool error)', async () => {
        const { url } = await freshDatabase();
        const store = await open(url);
        await sql`select 1`.execute(store.db);
        const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
        await admin.connect();
        try {
          const terminated = await admin.query(
            'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
            [new URL(url).pathname.slice(1)],
          );
          assert.ok((terminated.rowCount ?? 0) >= 1, 'the store held a connection');
        } finally {
          await admin.end();
        }
        // The pool learns of the closed connection asynchronously; until then a query may still
        // pick it up and fail. What must not happen is an unhandled 'error' event.
        let answered = false;
        for (let i = 0; i < 50 && !answered; i++) {
          try {
            await sql`select 1`.execute(store.db);
            answered = true;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
        assert.ok(answered, 'the store connects afresh');
      });
    }

    if (backend === 'mysql') {
      it('keeps working after MariaDB kills its connections (no uncaught pool error)', async () => {
        const { url } = await freshDatabase();
        const store = await open(url);
        await sql`select 1`.execute(store.db);
        const database = new URL(url.replace(/^mysql:/, 'http:')).pathname.slice(1);
        const other = await open(url);
        const victims = await sql<{
          id: number;
        }>`select id from information_schema.processlist where db = ${database} and id <> connection_id()`.execute(
          other.db,
        );
        assert.ok(victims.rows.length >= 1, 'the store held a connection');
        for (const { id } of victims.rows) await sql`kill ${sql.raw(String(Number(id)))}`.execute(other.db);
        let answered = false;
        for (let i = 0; i < 50 && !answered; i++) {
          try {
            await sql`select 1`.execute(store.db);
            answered = true;
          } catch (error) {
            assert.equal(store.classifyError(error)?.kind, 'connection-lost', String(error));
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
        assert.ok(answered, 'the store connects afresh');
      });
    }

    it('rolls a failed transaction back and leaves nothing', async () => {
      const store = await freshStore();
      const network = networkRow(store);
      const failure = new Error('boom');
      let calls = 0;
      const error = await rejection(() =>
        store.transaction(async (tx) => {
          calls++;
          await tx.insertInto('networks').values(network).execute();
          await tx.insertInto('network_segments').values(geneveSegment(network.id, 5)).execute();
          throw failure;
        }),
      );
      assert.equal(error, failure, "the function's own error comes out unchanged");
      assert.equal(calls, 1, "an error that is not the database's is not retried");
      assert.deepEqual(await store.db.selectFrom('networks').selectAll().execute(), []);
      assert.deepEqual(await segmentIds(store), []);
    });

    it('runs a transaction again after a concurrent writer took its key, and then commits', async () => {
      const { url } = await freshDatabase();
      const store = await open(url);
      const other = await open(url);
      const mine = networkRow(store);
      const theirs = networkRow(store);
      await store.db.insertInto('networks').values([mine, theirs]).execute();

      // SQLite write transactions begin IMMEDIATE, holding the write lock from the start: there
      // the concurrent writer can only commit just before, not inside, the first attempt.
      const concurrentInsert = () =>
        other.db.insertInto('network_segments').values(geneveSegment(theirs.id, 1)).execute();
      if (backend === 'sqlite') await concurrentInsert();
      const seen: (string | undefined)[] = [];
      let attempts = 0;
      const vni = await store.transaction(async (tx) => {
        attempts++;
        // The first attempt guesses the lowest VNI without looking, as IPAM guesses an address;
        // a concurrent writer commits the same VNI before the insert lands.
        let candidate = 1;
        if (attempts === 1) {
          if (backend !== 'sqlite') await concurrentInsert();
        } else {
          const taken = await tx.selectFrom('network_segments').select('segmentation_id').execute();
          while (taken.some((t) => t.segmentation_id === candidate)) candidate++;
        }
        try {
          await tx.insertInto('network_segments').values(geneveSegment(mine.id, candidate)).execute();
        } catch (error) {
          seen.push(store.classifyError(error)?.kind);
          throw error;
        }
        return candidate;
      });
      assert.deepEqual(seen, ['unique-violation']);
      assert.equal(attempts, 2);
      assert.equal(vni, 2);
      const rows = await store.db
        .selectFrom('network_segments')
        .select(['network_id', 'segmentation_id'])
        .orderBy('segmentation_id')
        .execute();
      assert.deepEqual(rows, [
        { network_id: theirs.id, segmentation_id: 1 },
        { network_id: mine.id, segmentation_id: 2 },
      ]);
    });

    if (backend !== 'sqlite') {
      it('retries a writer that collided with another transaction still in flight', async () => {
        const { url } = await freshDatabase();
        const store = await open(url);
        const other = await open(url);
        const mine = networkRow(store);
        const theirs = networkRow(store);
        await store.db.insertInto('networks').values([mine, theirs]).execute();

        // The other transaction inserts VNI 1 and holds it uncommitted until ours has sent the same insert.
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let inserted!: () => void;
        const otherInserted = new Promise<void>((resolve) => (inserted = resolve));
        const otherTx = other.db.transaction().execute(async (tx) => {
          await tx.insertInto('network_segments').values(geneveSegment(theirs.id, 1)).execute();
          inserted();
          await released;
        });
        await otherInserted;

        const seen: (string | undefined)[] = [];
        let attempts = 0;
        const vni = await store.transaction(async (tx) => {
          attempts++;
          const taken = await tx.selectFrom('network_segments').select('segmentation_id').execute();
          let candidate = 1;
          while (taken.some((t) => t.segmentation_id === candidate)) candidate++;
          const insert = tx.insertInto('network_segments').values(geneveSegment(mine.id, candidate)).execute();
          release();
          try {
            await insert;
          } catch (error) {
            seen.push(store.classifyError(error)?.kind);
            throw error;
          }
          return candidate;
        });
        await otherTx;
        assert.deepEqual(seen, ['unique-violation']);
        assert.equal(vni, 2);
        assert.equal(attempts, 2);
        assert.deepEqual(await segmentIds(store), [1, 2]);
      });
    }

    it('gives up after maxAttempts and surfaces the database error', async () => {
      const store = await freshStore();
      const network = networkRow(store);
      await store.db.insertInto('networks').values(network).execute();
      await store.db.insertInto('network_segments').values(geneveSegment(network.id, 7)).execute();
      let calls = 0;
      const error = await rejection(() =>
        store.transaction(
          async (tx) => {
            calls++;
            await tx.insertInto('network_segments').values(geneveSegment(network.id, 7)).execute();
          },
          { maxAttempts: 3 },
        ),
      );
      assert.equal(calls, 3);
      assert.equal(store.classifyError(error)?.kind, 'unique-violation', String(error));
      assert.deepEqual(await segmentIds(store), [7]);
    });

    it('retries a foreign-key violation too (a parent deleted underneath), and surfaces it when it persists', async () => {
      const store = await freshStore();
      let calls = 0;
      const error = await rejection(() =>
        store.transaction(
          async (tx) => {
            calls++;
            await tx.insertInto('network_segments').values(geneveSegment(randomUUID(), 9)).execute();
          },
          { maxAttempts: 2 },
        ),
      );
      assert.equal(calls, 2);
      assert.equal(store.classifyError(error)?.kind, 'foreign-key-violation', String(error));
      assert.deepEqual(await segmentIds(store), []);
    });

    it('classifies unique and foreign-key violations, and nothing else', async () => {
      const store = await freshStore();
      const network = networkRow(store);
      await store.db.insertInto('networks').values(network).execute();
      await store.db.insertInto('network_segments').values(geneveSegment(network.id, 3)).execute();

      const duplicateKey = await rejection(() =>
        store.db
          .insertInto('networks')
          .values(networkRow(store, { id: network.id }))
          .execute(),
      );
      assert.equal(store.classifyError(duplicateKey)?.kind, 'unique-violation', String(duplicateKey));

      const duplicateVni = await rejection(() =>
        store.db.insertInto('network_segments').values(geneveSegment(network.id, 3)).execute(),
      );
      const info = store.classifyError(duplicateVni);
      assert.equal(info?.kind, 'unique-violation', String(duplicateVni));
      if (backend !== 'sqlite') assert.equal(info?.constraint, 'network_segments_allocation');
      else assert.match(info?.constraint ?? '', /network_segments\.segmentation_id/);

      const missingParent = await rejection(() =>
        store.db.insertInto('network_segments').values(geneveSegment(randomUUID(), 4)).execute(),
      );
      assert.equal(store.classifyError(missingParent)?.kind, 'foreign-key-violation', String(missingParent));

      // ports.network_id has no cascade: a network with a port cannot be deleted underneath it.
      await store.db
        .insertInto('ports')
        .values({
          id: randomUUID(),
          project_id: 'p1',
          network_id: network.id,
          name: '',
          mac_address: 'fa:16:3e:00:00:01',
          admin_state_up: store.bool(true),
          status: 'DOWN',
          device_id: '',
          device_owner: '',
          port_security_enabled: store.bool(true),
          dns_name: '',
          dns_domain: '',
          ip_allocation: 'immediate',
          binding_host_id: '',
          binding_vnic_type: 'normal',
          binding_profile: '{}',
          binding_vif_type: 'unbound',
          binding_vif_details: '{}',
          description: '',
          revision_number: 1,
          created_at: '2024-01-01T00:00:00Z',
          updated_at: '2024-01-01T00:00:00Z',
        })
        .execute();
      const childExists = await rejection(() => store.db.deleteFrom('networks').where('id', '=', network.id).execute());
      assert.equal(store.classifyError(childExists)?.kind, 'foreign-key-violation', String(childExists));

      const syntax = await rejection(() => sql`select * from no_such_table`.execute(store.db));
      assert.equal(store.classifyError(syntax), null);
      assert.equal(store.classifyError(new Error('not a database error')), null);
      assert.equal(store.classifyError(null), null);
      assert.equal(store.classifyError({ code: 23505 }), null);
    });

    it('round-trips booleans through bool() and toBool', async () => {
      const store = await freshStore();
      const up = networkRow(store, { admin_state_up: store.bool(true), port_security_enabled: store.bool(false) });
      const down = networkRow(store, { admin_state_up: store.bool(false), port_security_enabled: store.bool(true) });
      await store.db.insertInto('networks').values([up, down]).execute();

      const rows = await store.db
        .selectFrom('networks')
        .select(['id', 'admin_state_up', 'port_security_enabled'])
        .execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      assert.equal(toBool(byId.get(up.id)!.admin_state_up), true);
      assert.equal(toBool(byId.get(up.id)!.port_security_enabled), false);
      assert.equal(toBool(byId.get(down.id)!.admin_state_up), false);
      assert.equal(toBool(byId.get(down.id)!.port_security_enabled), true);
      assert.equal(typeof byId.get(up.id)!.admin_state_up, backend === 'postgres' ? 'boolean' : 'number');

      const filtered = await store.db
        .selectFrom('networks')
        .select('id')
        .where('admin_state_up', '=', store.bool(true))
        .execute();
      assert.deepEqual(filtered, [{ id: up.id }]);

      assert.equal(toBool(true), true);
      assert.equal(toBool(1), true);
      assert.equal(toBool(false), false);
      assert.equal(toBool(0), false);
      assert.equal(toBool(null), false);
      assert.equal(toBool(undefined), false);
    });
  });
}

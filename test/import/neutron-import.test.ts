/**
 * `octonet import` against a real Neutron Zed (a private one: see fixtures/neutron-private.ts):
 * a cloud with every resource kind is built through Neutron's API, Neutron is stopped, the database
 * is imported into octonet's, and `octonet serve` on it answers with the same objects field by
 * field, minus the differences docs/moving-from-neutron.md lists. Twice: a Zed with its database on
 * PostgreSQL (imported into every test backend) and a Zed on MariaDB through PyMySQL, as most
 * deployment tools run it (imported into SQLite and MariaDB, the move most operators make: the
 * source side is what differs, and a second Neutron with its cloud already doubles this file's time).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importNeutron } from '../../src/import/import.js';
import { ImportRefused } from '../../src/import/writer.js';
import { openStore } from '../../src/store/database.js';
import { BACKENDS, createBackendDatabase, type Backend } from '../fixtures/databases.js';
import {
  neutronAvailable,
  startPrivateNeutron,
  type NeutronDatabaseKind,
  type PrivateNeutron,
} from '../fixtures/neutron-private.js';
import { startServeProcess } from '../fixtures/serve-process.js';
import { compareClouds, type CloudView, type KnownDifference } from './compare.js';
import { buildCloud, PROJECT_A, readCloud } from './neutron-cloud.js';

/** The documented differences (docs/moving-from-neutron.md), each with its reason. */
const KNOWN: KnownDifference[] = [
  { collection: 'networks', field: 'l2_adjacency', reason: 'octonet does not offer the l2_adjacency extension' },
  { collection: 'subnets', field: 'segment_id', reason: 'no routed networks (standard-attr-segment)' },
  { collection: 'subnets', field: 'dns_publish_fixed_ip', reason: 'octonet always prints it; Zed omits it on a list' },
  { collection: 'subnets', field: 'router:external', reason: 'octonet prints the subnet-external-network attribute' },
  {
    collection: 'ports',
    field: 'binding:vif_details',
    reason: "octonet's details carry no bound_drivers (ML2's binding levels)",
    neutronValue: (value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      const { bound_drivers: _, ...rest } = value;
      return rest;
    },
  },
  { collection: 'ports', field: 'resource_request', reason: 'no placement resource requests (port-resource-request)' },
  { collection: 'security_groups', field: 'shared', reason: 'no security group RBAC (rbac-security-groups)' },
  {
    collection: 'security_groups',
    field: 'security_group_rules',
    reason: 'embedded rules: compared one by one under security_group_rules instead',
  },
  { collection: 'security_group_rules', field: 'belongs_to_default_sg', reason: 'octonet has the 2023.2 attribute' },
  { collection: 'floatingips', field: 'qos_policy_id', reason: 'no QoS on floating IPs (qos-fip)' },
  { collection: 'floatingips', field: 'port_forwardings', reason: 'no floating IP port forwarding' },
  { collection: 'subnetpools', field: 'default_prefixlen', reason: 'Zed prints the prefix lengths as strings' },
  { collection: 'subnetpools', field: 'min_prefixlen', reason: 'Zed prints the prefix lengths as strings' },
  { collection: 'subnetpools', field: 'max_prefixlen', reason: 'Zed prints the prefix lengths as strings' },
  { collection: 'quotas', field: 'trunk', reason: 'no trunk extension' },
  { collection: 'quotas', field: 'router_route', reason: 'octonet has the 2023.1 extraroute quota; Zed has none' },
];

const requireNeutron = process.env.CI === 'true';

/** ovn-common's NB client (scripts/setup installs it). */
const OVN_NBCTL = '/usr/bin/ovn-nbctl';

/** The NB ports OVN reports up (router ports: ovn-northd marks them up at once). */
function portsUpInOvn(neutron: PrivateNeutron): Set<string> {
  const out = execFileSync(
    OVN_NBCTL,
    [`--db=${neutron.nb}`, '--bare', '--columns=name', 'find', 'Logical_Switch_Port', 'up=true'],
    { encoding: 'utf8' },
  );
  return new Set(out.split('\n').filter(Boolean));
}

/**
 * Neutron's view as its database held it when the server stopped. Neutron marks a port ACTIVE
 * when an NB event says OVN has it up, and it handles that event on its own time (a worker that
 * connects late sees it in its first dump, seconds later on a loaded machine): a router port can
 * turn ACTIVE after the view was read, and the import, reading the database, rightly carries
 * that. Such a port (up in OVN, DOWN in the view, ACTIVE one revision later in octonet) is taken
 * as octonet shows it; any other difference in it still counts.
 */
function withLateStatusUps(neutronView: CloudView, octonetView: CloudView, up: ReadonlySet<string>): CloudView {
  const ports = new Map(neutronView.ports);
  for (const [id, theirs] of neutronView.ports ?? []) {
    const ours = octonetView.ports?.get(id);
    if (!ours || !up.has(id) || theirs.status !== 'DOWN' || ours.status !== 'ACTIVE') continue;
    if (ours.revision_number !== Number(theirs.revision_number) + 1) continue;
    ports.set(id, {
      ...theirs,
      status: ours.status,
      revision_number: ours.revision_number,
      updated_at: ours.updated_at,
    });
  }
  return { ...neutronView, ports };
}

const SOURCES: { database: NeutronDatabaseKind; backends: readonly Backend[]; available: boolean }[] = [
  { database: 'postgresql', backends: BACKENDS, available: true },
  { database: 'mariadb', backends: ['sqlite', 'mysql'], available: existsSync('/usr/sbin/mariadbd') },
];

for (const source of SOURCES) {
  describe(
    `octonet import from a real Neutron Zed on ${source.database}`,
    { skip: !(neutronAvailable() && source.available) && !requireNeutron },
    () => {
      let neutron: PrivateNeutron;
      let neutronView: CloudView;
      let trunkId: string;

      before(async () => {
        neutron = await startPrivateNeutron({ database: source.database });
        await buildCloud(neutron.url);
        // A trunk (an extension octonet does not implement), for the refusal test; deleted before the comparison.
        const parent = await fetch(`${neutron.url}/v2.0/ports`, {
          method: 'POST',
          body: JSON.stringify({
            port: { network_id: await firstNetwork(neutron.url, 'vlan-b'), name: 'trunk-parent' },
          }),
        }).then((r) => r.json() as Promise<{ port: { id: string } }>);
        const trunk = await fetch(`${neutron.url}/v2.0/trunks`, {
          method: 'POST',
          body: JSON.stringify({ trunk: { port_id: parent.port.id, name: 't1' } }),
        }).then((r) => r.json() as Promise<{ trunk: { id: string } }>);
        trunkId = trunk.trunk.id;
      });

      after(async () => {
        await neutron?.stop();
      });

      it('refuses a database with rows it cannot carry, naming them, and writes nothing', async () => {
        const target = await createBackendDatabase('sqlite');
        const store = await openStore(target.url);
        try {
          await assert.rejects(importNeutron(neutron.databaseUrl, store), (error: Error) => {
            assert.ok(error instanceof ImportRefused);
            assert.match(error.message, /trunk ports \(trunk\) are not implemented \(trunks: 1 row: /);
            assert.ok(error.message.includes(trunkId));
            return true;
          });
          assert.equal((await store.db.selectFrom('networks').selectAll().execute()).length, 0);
          const skipped = await importNeutron(neutron.databaseUrl, store, { skipUnsupported: true });
          assert.equal(skipped.outcome, 'imported');
          assert.deepEqual(
            skipped.skipped.map((r) => r.table),
            ['trunks'],
          );
        } finally {
          await store.close();
          await target.drop();
        }
      });

      it('stops Neutron once the trunk is gone, keeping its database', async () => {
        const response = await fetch(`${neutron.url}/v2.0/trunks/${trunkId}`, { method: 'DELETE' });
        assert.equal(response.status, 204);
        neutronView = await readCloud(neutron.url);
        await neutron.stopServer();
        assert.ok(neutronView.ports!.size >= 10);
      });

      for (const backend of source.backends) {
        it(`imports into ${backend}, then serves every object as Neutron did (minus the documented differences)`, async () => {
          const target = await createBackendDatabase(backend);
          try {
            const store = await openStore(target.url);
            try {
              const first = await importNeutron(neutron.databaseUrl, store);
              assert.equal(first.outcome, 'imported');
              assert.equal(first.counts.ports, neutronView.ports!.size);
              const second = await importNeutron(neutron.databaseUrl, store);
              assert.equal(second.outcome, 'unchanged', 'a second import of the same source is a no-op');
            } finally {
              await store.close();
            }
            const serve = await startServeProcess(target.url, {
              config: { network: { dns_domain: 'openstackgate.local.' } },
            });
            try {
              const octonetView = await readCloud(serve.url);
              const asStopped = withLateStatusUps(neutronView, octonetView, portsUpInOvn(neutron));
              assert.deepEqual(compareClouds(asStopped, octonetView, KNOWN), []);
            } finally {
              await serve.stop();
            }
          } finally {
            await target.drop();
          }
        });
      }

      it('refuses a target holding something else, and overwrites it with --replace', async () => {
        const target = await createBackendDatabase('sqlite');
        const store = await openStore(target.url);
        try {
          await importNeutron(neutron.databaseUrl, store);
          await store.db.updateTable('networks').set({ revision_number: 99 }).execute();
          await assert.rejects(importNeutron(neutron.databaseUrl, store), ImportRefused);
          assert.equal(
            (await store.db.selectFrom('networks').select('revision_number').executeTakeFirst())?.revision_number,
            99,
          );
          const replaced = await importNeutron(neutron.databaseUrl, store, { replace: true });
          assert.equal(replaced.outcome, 'replaced');
          const quota = await store.db.selectFrom('quotas').selectAll().where('project_id', '=', PROJECT_A).execute();
          assert.deepEqual(quota.map((q) => [q.resource, q.limit]).sort(), [
            ['network', 20],
            ['port', 200],
          ]);
        } finally {
          await store.close();
          await target.drop();
        }
      });
    },
  );
}

async function firstNetwork(base: string, name: string): Promise<string> {
  const body = (await (await fetch(`${base}/v2.0/networks?name=${name}`)).json()) as { networks: { id: string }[] };
  const id = body.networks[0]?.id;
  if (!id) throw new Error(`no network ${name}`);
  return id;
}

/**
 * Writes an import plan into octonet's database in ONE transaction: into an empty database; as a
 * no-op when the database already holds exactly this import (same resources, same revisions);
 * over whatever is there with `replace`. Anything else is refused before a row is written.
 *
 * This module owns the target side; it knows nothing of Neutron's tables.
 */
import type { Store, Tx } from '../store/database.js';
import { storedRow, type ResourceTable } from '../store/rows.js';
import { INSERT_ORDER, type ImportPlan } from './plan.js';

/** The resource tables whose ids and revisions say which cloud a database holds. */
const FINGERPRINT_TABLES = [
  'networks',
  'subnets',
  'ports',
  'security_groups',
  'security_group_rules',
  'routers',
  'floatingips',
  'subnetpools',
  'qos_policies',
] as const satisfies readonly ResourceTable[];

const RESOURCE_TABLES = new Set<string>([
  'networks',
  'subnets',
  'ports',
  'security_groups',
  'security_group_rules',
  'routers',
  'floatingips',
  'subnetpools',
  'address_scopes',
  'bgp_speakers',
  'bgp_peers',
  'qos_policies',
] satisfies ResourceTable[]);

/** Rows per insert statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const INSERT_BATCH = 200;

export class ImportRefused extends Error {}

export type WriteOutcome = 'imported' | 'unchanged' | 'replaced';

function fingerprintOf(rows: Iterable<{ id: string; revision_number?: number | undefined }>): string {
  return [...rows]
    .map((r) => `${r.id}@${r.revision_number ?? 0}`)
    .sort()
    .join(',');
}

async function holdsRows(tx: Tx): Promise<boolean> {
  for (const table of [...INSERT_ORDER].reverse()) {
    const row = await tx
      .selectFrom(table)
      .select((eb) => eb.lit(1).as('one'))
      .limit(1)
      .executeTakeFirst();
    if (row) return true;
  }
  return false;
}

async function holdsThisImport(tx: Tx, plan: ImportPlan): Promise<boolean> {
  for (const table of FINGERPRINT_TABLES) {
    const existing = await tx
      .selectFrom(table as 'networks')
      .select(['id', 'revision_number'])
      .execute();
    if (fingerprintOf(existing) !== fingerprintOf(plan[table])) return false;
  }
  return true;
}

async function deleteEverything(tx: Tx): Promise<void> {
  // Routers name their gateway ports: let go of them before the ports go.
  await tx.updateTable('routers').set({ gw_port_id: null }).execute();
  for (const table of [...INSERT_ORDER].reverse()) await tx.deleteFrom(table).execute();
}

async function insertPlan(store: Store, tx: Tx, plan: ImportPlan): Promise<void> {
  for (const table of INSERT_ORDER) {
    const rows = plan[table] as readonly object[];
    const stored = RESOURCE_TABLES.has(table)
      ? rows.map((row) => storedRow(store, table as ResourceTable, row as never))
      : rows.map((row) =>
          Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'boolean' ? store.bool(v) : v])),
        );
    for (let i = 0; i < stored.length; i += INSERT_BATCH) {
      await tx
        .insertInto(table)
        .values(stored.slice(i, i + INSERT_BATCH) as never)
        .execute();
    }
  }
}

export async function writePlan(
  store: Store,
  plan: ImportPlan,
  options: { replace?: boolean } = {},
): Promise<WriteOutcome> {
  return store.transaction(
    async (tx) => {
      const occupied = await holdsRows(tx);
      if (occupied && !options.replace) {
        if (await holdsThisImport(tx, plan)) return 'unchanged';
        throw new ImportRefused(
          'the target database already holds another cloud (or this one, changed since it was imported); ' +
            'import into an empty database, or pass --replace to overwrite it',
        );
      }
      if (occupied) await deleteEverything(tx);
      await insertPlan(store, tx, plan);
      return occupied ? 'replaced' : 'imported';
    },
    // A conflict here is not a concurrent writer's to retry around: the import is one writer.
    { maxAttempts: 1 },
  );
}

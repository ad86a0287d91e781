/**
 * Reads compiled once per database handle, then run again with new parameter values. Kysely builds
 * and compiles a query on every call; for the one-row reads of a port show (four statements) that
 * cost about as much as SQLite running them. Kept per `Db` object: the store's handle compiles each
 * query once; a transaction is a Kysely instance of its own, so reads inside one compile afresh, as
 * before (the entry goes with the transaction).
 */
import type { CompiledQuery, Compilable } from 'kysely';
import type { Db } from './database.js';

/** Stands for parameter `i` while the query is compiled; replaced by the caller's value on each run. */
const SLOT = '\u0000octonet-slot-';

interface Entry<R> {
  readonly compiled: CompiledQuery<R>;
  /** For each compiled parameter, the index of the caller's value it takes, or -1 (a constant). */
  readonly slots: readonly number[];
}

export function preparedRead<R>(
  build: (db: Db, param: (index: number) => string) => Compilable<R>,
): (db: Db, ...values: unknown[]) => Promise<R[]> {
  const cache = new WeakMap<Db, Entry<R>>();
  return async (db, ...values) => {
    let entry = cache.get(db);
    if (!entry) {
      const compiled = build(db, (index) => SLOT + index).compile();
      const slots = compiled.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(SLOT) ? Number(p.slice(SLOT.length)) : -1,
      );
      entry = { compiled, slots };
      cache.set(db, entry);
    }
    const { compiled, slots } = entry;
    const parameters = slots.map((slot, i) => (slot < 0 ? compiled.parameters[i] : values[slot]));
    return (await db.executeQuery<R>({ ...compiled, parameters })).rows;
  };
}

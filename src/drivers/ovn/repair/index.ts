/**
 * Repair: how the OVN northbound database is made to match octonet's database, and kept so.
 * The database is the truth; the NB is derived from it, never the other way round.
 *
 *   loop.ts           the repair loop: full passes (start, reconnect, periodic, large drift), one replica at a time
 *   nb-watch.ts       watch: NB monitor changes → which resources drifted
 *   nb-sync.ts        one resource: read it from the database, plan against the NB replica, transact;
 *                     keeps each resource's drift check; the API's postcommit hooks write through it too
 *   full-sync.ts      the whole database against the whole NB, in dependency order and large batches
 *   desired-state.ts  what the NB should hold for a resource (mapping + what OVN chose that must stay)
 *   retry.ts          writes that failed after commit, retried by key with backoff until one succeeds
 *   resource-key.ts   the unit of repair (`port:<id>`, ..., `drop`); keyed-queue.ts serialises per key
 *
 * The pure pieces it uses sit one level up: `mapping.ts` / `router-mapping.ts` (resource → rows) and
 * `planner.ts` / `router-planner.ts` (rows vs. replica → operations).
 */
export { DesiredState } from './desired-state.js';
export { RepairLoop } from './loop.js';
export { NbSync } from './nb-sync.js';
export { PostcommitRetries } from './retry.js';
export { keyOf, type ResourceKey } from './resource-key.js';

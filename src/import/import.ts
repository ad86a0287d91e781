/**
 * `octonet import`: reads a Neutron database, refuses what octonet cannot carry (unless told to
 * leave it out), and writes the cloud into octonet's database with every id, revision number and
 * timestamp unchanged.
 */
import type { Store } from '../store/database.js';
import { mapNetworks, mapSubnets } from './map-networks.js';
import { mapBgp, mapQos, mapSubnetPools } from './map-pools-qos.js';
import { mapPorts } from './map-ports.js';
import { mapFloatingIps, mapRouters } from './map-routers.js';
import { mapSecurityGroups } from './map-security-groups.js';
import { mapQuotas, mapTags } from './map-tags-quotas.js';
import { emptyPlan, INSERT_ORDER, type ImportPlan } from './plan.js';
import { describeRefusals, findRefusals, portsBoundElsewhere, type Refusal } from './refusals.js';
import type { NeutronSnapshot } from './snapshot.js';
import { readSnapshot } from './snapshot.js';
import { openNeutronSource } from './source.js';
import { ImportRefused, writePlan, type WriteOutcome } from './writer.js';

export interface ImportOptions {
  /** Leave out what octonet cannot carry (or carry it as a plain resource, attribute dropped) instead of refusing. */
  skipUnsupported?: boolean;
  /** Overwrite a target database that holds something else. */
  replace?: boolean;
  /** Read, check and map, but write nothing. */
  dryRun?: boolean;
}

export interface ImportReport {
  outcome: WriteOutcome | 'dry-run';
  /** Rows written (or that would be) per octonet table. */
  counts: Record<string, number>;
  /** What was left out or carried plainly (with `skipUnsupported`, each saying which); empty otherwise. */
  skipped: Refusal[];
}

export function planImport(snapshot: NeutronSnapshot): ImportPlan {
  const plan = emptyPlan();
  mapSubnetPools(snapshot, plan);
  mapNetworks(snapshot, plan);
  mapSubnets(snapshot, plan);
  mapQos(snapshot, plan);
  mapSecurityGroups(snapshot, plan);
  mapPorts(snapshot, plan, portsBoundElsewhere(snapshot));
  mapRouters(snapshot, plan);
  mapFloatingIps(snapshot, plan);
  mapBgp(snapshot, plan);
  mapQuotas(snapshot, plan);
  mapTags(snapshot, plan);
  return plan;
}

export async function importNeutron(
  sourceUrl: string,
  store: Store,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const source = await openNeutronSource(sourceUrl);
  let snapshot: NeutronSnapshot;
  try {
    snapshot = await readSnapshot(source);
  } finally {
    await source.close();
  }
  const refusals = findRefusals(snapshot);
  if (refusals.length > 0 && !options.skipUnsupported) {
    throw new ImportRefused(
      `the Neutron database holds what octonet cannot carry (pass --skip-unsupported to leave it out):\n${describeRefusals(refusals)}`,
    );
  }
  const plan = planImport(snapshot);
  const counts = Object.fromEntries(INSERT_ORDER.map((table) => [table, plan[table].length]));
  const outcome = options.dryRun ? 'dry-run' : await writePlan(store, plan, { replace: options.replace });
  return { outcome, counts, skipped: refusals };
}

/**
 * The deployment's identity (migration 0006): a UUID made when the database was created, the same
 * for every replica sharing it. The OVN driver marks the NB it owns with it.
 */
import type { Store } from './database.js';

export async function deploymentIdentity(store: Store): Promise<string> {
  const row = await store.db
    .selectFrom('octonet_deployment')
    .select('deployment_id')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return row.deployment_id;
}

/** Tags of any resource (Neutron's standard-attr-tag), kept in one table keyed by resource id. */
import type { Db } from './database.js';
import { chunks } from './list.js';

/** Tags per resource id, each list sorted (Neutron's order is the database's; sorted is stable). */
export async function loadTags(db: Db, ids: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  if (ids.length === 0) return result;
  for (const part of chunks(ids)) {
    const rows = await db
      .selectFrom('tags')
      .select(['resource_id', 'tag'])
      .where('resource_id', 'in', part)
      .orderBy('tag')
      .execute();
    for (const row of rows) {
      const list = result.get(row.resource_id);
      if (list) list.push(row.tag);
      else result.set(row.resource_id, [row.tag]);
    }
  }
  return result;
}

export async function addTags(
  db: Db,
  resourceType: string,
  resourceId: string,
  tags: readonly string[],
): Promise<void> {
  if (tags.length === 0) return;
  await db
    .insertInto('tags')
    .values(tags.map((tag) => ({ resource_type: resourceType, resource_id: resourceId, tag })))
    .onConflict((oc) => oc.columns(['resource_id', 'tag']).doNothing())
    .execute();
}

export async function removeTags(db: Db, resourceId: string, tags?: readonly string[]): Promise<number> {
  let q = db.deleteFrom('tags').where('resource_id', '=', resourceId);
  if (tags) {
    if (tags.length === 0) return 0;
    q = q.where('tag', 'in', tags);
  }
  const result = await q.executeTakeFirst();
  return Number(result.numDeletedRows);
}

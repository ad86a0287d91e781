/**
 * A subnet pool's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';

/** What a create and an update may both carry (absent: not given). */
const changeable = {
  name: z.string(),
  description: z.string(),
  prefixes: z.array(z.string()),
  default_quota: z.number(),
  /** null: no scope. */
  address_scope_id: z.string().nullable(),
};

/** Absent: from the IP version (create) or the pool as it is (update). */
const bounds = {
  default_prefixlen: z.number().optional(),
  min_prefixlen: z.number().optional(),
  max_prefixlen: z.number().optional(),
};

const createSchema = z.object({
  ...changeable,
  ...bounds,
  project_id: z.string(),
  default_quota: changeable.default_quota.optional(),
  address_scope_id: changeable.address_scope_id.optional(),
  tags: z.array(z.string()).optional(),
});
const updateSchema = z.object({ ...changeable, ...bounds }).partial();

export const { create: subnetPoolCreate, update: subnetPoolUpdate } = bodyReaders(
  'subnet pool',
  createSchema,
  updateSchema,
);

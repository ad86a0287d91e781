/**
 * An RBAC policy's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';

const createSchema = z.object({
  project_id: z.string(),
  object_id: z.string(),
  target_tenant: z.string(),
  action: z.string(),
});
const updateSchema = z.object({ target_tenant: z.string().optional() });

export const { create: rbacCreate, update: rbacUpdate } = bodyReaders('RBAC policy', createSchema, updateSchema);

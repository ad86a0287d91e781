/**
 * A security group's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';

const changeable = { name: z.string(), description: z.string(), stateful: z.boolean() };

const createSchema = z.object({ ...changeable, project_id: z.string() });
const updateSchema = z.object(changeable).partial();

export const { create: securityGroupCreate, update: securityGroupUpdate } = bodyReaders(
  'security group',
  createSchema,
  updateSchema,
);

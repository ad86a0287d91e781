/**
 * A security group's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { parsePrepared } from '../prepared-body.js';
import type { Body } from '../resource.js';

const changeable = { name: z.string(), description: z.string(), stateful: z.boolean() };

const securityGroupCreateSchema = z.object({ ...changeable, project_id: z.string() });
const securityGroupUpdateSchema = z.object(changeable).partial();

export type SecurityGroupCreate = z.infer<typeof securityGroupCreateSchema>;
export type SecurityGroupUpdate = z.infer<typeof securityGroupUpdateSchema>;

export const securityGroupCreate = (body: Body): SecurityGroupCreate =>
  parsePrepared(securityGroupCreateSchema, body, 'security group create');
export const securityGroupUpdate = (body: Body): SecurityGroupUpdate =>
  parsePrepared(securityGroupUpdateSchema, body, 'security group update');

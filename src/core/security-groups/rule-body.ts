/**
 * A security group rule's POST body as a typed value, read once the rule service has validated
 * and canonicalised it (`validate`: remote ids are existing groups or null). Rules have no PUT.
 */
import { z } from 'zod';
import { parsePrepared } from '../prepared-body.js';
import type { Body } from '../resource.js';

const ruleCreateSchema = z.object({
  project_id: z.string(),
  security_group_id: z.string(),
  remote_group_id: z.string().nullable(),
  direction: z.string(),
  ethertype: z.string(),
  protocol: z.string().nullable(),
  port_range_min: z.number().nullable(),
  port_range_max: z.number().nullable(),
  remote_ip_prefix: z.string().nullable(),
  description: z.string(),
});

export const ruleCreate = (body: Body) => parsePrepared(ruleCreateSchema, body, 'security group rule create');

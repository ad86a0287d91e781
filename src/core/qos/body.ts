/**
 * A QoS rule's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`). One schema serves every rule type: each type's map allows only its own
 * attributes, so the others are simply absent.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';

const ruleSchema = z
  .object({
    max_kbps: z.number(),
    max_burst_kbps: z.number(),
    dscp_mark: z.number(),
    min_kbps: z.number(),
    direction: z.string(),
  })
  .partial();

export type QosRuleBody = z.infer<typeof ruleSchema>;

export const { create: qosRuleCreate, update: qosRuleUpdate } = bodyReaders('QoS rule', ruleSchema, ruleSchema);

/**
 * A network's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';

/** What a create and an update may both carry (absent: not given). */
const changeable = {
  name: z.string(),
  description: z.string(),
  dns_domain: z.string(),
  admin_state_up: z.boolean(),
  port_security_enabled: z.boolean(),
  shared: z.boolean(),
  'router:external': z.boolean(),
  is_default: z.boolean(),
  mtu: z.number(),
  'provider:network_type': z.string(),
  'provider:physical_network': z.string(),
  'provider:segmentation_id': z.number(),
  qos_policy_id: z.string().nullable(),
};

const createSchema = z.object({
  ...changeable,
  project_id: z.string(),
  availability_zone_hints: z.array(z.string()),
  // Not specified (no default in the map): a tenant network of the configured types.
  'provider:network_type': changeable['provider:network_type'].optional(),
  'provider:physical_network': changeable['provider:physical_network'].optional(),
  'provider:segmentation_id': changeable['provider:segmentation_id'].optional(),
});

const updateSchema = z.object(changeable).partial();

export type NetworkUpdate = z.infer<typeof updateSchema>;

export const { create: networkCreate, update: networkUpdate } = bodyReaders('network', createSchema, updateSchema);

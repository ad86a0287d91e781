/**
 * A floating IP's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { parsePrepared } from '../prepared-body.js';
import type { Body } from '../resource.js';

/** The association a body asks for; absent `port_id` on an update keeps the current port. */
const association = {
  port_id: z.string().nullable().optional(),
  fixed_ip_address: z.string().nullable().optional(),
};

const floatingIpCreateSchema = z.object({
  ...association,
  project_id: z.string(),
  floating_network_id: z.string(),
  subnet_id: z.string().nullable(),
  floating_ip_address: z.string().nullable(),
  dns_name: z.string(),
  dns_domain: z.string(),
  description: z.string(),
});

const floatingIpUpdateSchema = z.object({ ...association, description: z.string().optional() });

export type FloatingIpCreate = z.infer<typeof floatingIpCreateSchema>;
export type FloatingIpAssociationRequest = z.infer<typeof floatingIpUpdateSchema>;

export const floatingIpCreate = (body: Body): FloatingIpCreate =>
  parsePrepared(floatingIpCreateSchema, body, 'floating IP create');
export const floatingIpUpdate = (body: Body): FloatingIpAssociationRequest =>
  parsePrepared(floatingIpUpdateSchema, body, 'floating IP update');

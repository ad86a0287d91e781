/**
 * A floating IP's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';

/** The association a body asks for; absent `port_id` on an update keeps the current port. */
const association = {
  port_id: z.string().nullable().optional(),
  fixed_ip_address: z.string().nullable().optional(),
};

const createSchema = z.object({
  ...association,
  project_id: z.string(),
  floating_network_id: z.string(),
  tags: z.array(z.string()).optional(),
  subnet_id: z.string().nullable(),
  floating_ip_address: z.string().nullable(),
  dns_name: z.string(),
  dns_domain: z.string(),
  description: z.string(),
});

const updateSchema = z.object({ ...association, description: z.string().optional() });

export type FloatingIpAssociationRequest = z.infer<typeof updateSchema>;

export const { create: floatingIpCreate, update: floatingIpUpdate } = bodyReaders(
  'floating IP',
  createSchema,
  updateSchema,
);

/**
 * A port's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';

const fixedIps = z.array(z.object({ subnet_id: z.string().optional(), ip_address: z.string().optional() }));
const addressPairs = z.array(z.object({ ip_address: z.string(), mac_address: z.string().optional() }));
const extraDhcpOpts = z
  .array(z.object({ opt_name: z.string(), opt_value: z.string().nullable(), ip_version: z.number().optional() }))
  .nullable();

/** What a create and an update may both carry (absent: not given). */
const changeable = {
  name: z.string(),
  description: z.string(),
  device_id: z.string(),
  device_owner: z.string(),
  admin_state_up: z.boolean(),
  mac_address: z.string().nullable(),
  fixed_ips: fixedIps,
  allowed_address_pairs: addressPairs,
  security_groups: z.array(z.string()),
  port_security_enabled: z.boolean(),
  extra_dhcp_opts: extraDhcpOpts,
  'binding:host_id': z.string().nullable(),
  'binding:vnic_type': z.string(),
  'binding:profile': z.record(z.string(), z.unknown()).nullable(),
  dns_name: z.string(),
  dns_domain: z.string(),
  qos_policy_id: z.string().nullable(),
};

const createSchema = z.object({
  ...changeable,
  project_id: z.string(),
  network_id: z.string(),
  // Not specified (no default in the map): the port gets what the network or the IPAM gives.
  mac_address: changeable.mac_address.optional(),
  fixed_ips: fixedIps.optional(),
  allowed_address_pairs: addressPairs.optional(),
  security_groups: changeable.security_groups.optional(),
  port_security_enabled: z.boolean().optional(),
  'binding:host_id': changeable['binding:host_id'].optional(),
  'binding:profile': changeable['binding:profile'].optional(),
  tags: z.array(z.string()),
});

const updateSchema = z.object(changeable).partial();

export type PortCreate = z.infer<typeof createSchema>;
export type PortUpdate = z.infer<typeof updateSchema>;

export const { create: portCreate, update: portUpdate } = bodyReaders('port', createSchema, updateSchema);

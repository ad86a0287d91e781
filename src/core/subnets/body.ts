/**
 * A subnet's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 * `service_types` and `dns_nameservers` are read from the body with `isStringList`: their
 * converters turn what Neutron's Python accepts (a falsy value, a string, a dict) into lists first.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';

const pools = z.array(z.object({ start: z.string(), end: z.string() }));

/** What a create and an update may both carry (absent: not given). */
const changeable = {
  name: z.string(),
  description: z.string(),
  gateway_ip: z.string().nullable(),
  enable_dhcp: z.boolean(),
  host_routes: z.array(z.object({ destination: z.string(), nexthop: z.string() })),
  allocation_pools: pools.nullable(),
  dns_publish_fixed_ip: z.boolean(),
};

const createSchema = z.object({
  ...changeable,
  project_id: z.string(),
  network_id: z.string(),
  ip_version: z.union([z.literal(4), z.literal(6)]),
  // Not specified (no default in the map): from the pool, the IPAM or nothing.
  cidr: z.string().nullable().optional(),
  prefixlen: z.number().optional(),
  subnetpool_id: z.string().nullable().optional(),
  gateway_ip: changeable.gateway_ip.optional(),
  host_routes: changeable.host_routes.optional(),
  allocation_pools: pools.optional(),
  ipv6_ra_mode: z.string().optional(),
  ipv6_address_mode: z.string().optional(),
});

const updateSchema = z.object(changeable).partial();

export type SubnetCreate = z.infer<typeof createSchema>;

export const { create: subnetCreate, update: subnetUpdate } = bodyReaders('subnet', createSchema, updateSchema);

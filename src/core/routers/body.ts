/**
 * A router's POST and PUT bodies as typed values, read once from the prepared body (see
 * `prepared-body.ts`); the attribute map (`attributes.ts`) is what validated them.
 */
import { z } from 'zod';
import { bodyReaders } from '../prepared-body.js';
import { isPlainObject } from '../validators.js';

/**
 * `external_gateway_info`: any falsy value passes the map's validator and means "no gateway", as
 * `{}` does; a non-empty dict has been checked (`network_id` required).
 */
const gatewayInfo = z.preprocess(
  (value) => (isPlainObject(value) ? value : null),
  z
    .object({
      network_id: z.string().optional(),
      external_fixed_ips: z
        .array(z.object({ subnet_id: z.string().optional(), ip_address: z.string().optional() }))
        .optional(),
      enable_snat: z.boolean().optional(),
    })
    .nullable(),
);

const createSchema = z.object({
  project_id: z.string(),
  name: z.string(),
  description: z.string(),
  external_gateway_info: gatewayInfo,
  availability_zone_hints: z.array(z.string()).optional(),
  tags: z.array(z.string()).optional(),
});

const updateSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    external_gateway_info: gatewayInfo,
    routes: z.array(z.object({ destination: z.string(), nexthop: z.string() })),
  })
  .partial();

export type GatewayInfoBody = z.infer<typeof gatewayInfo>;

export const { create: routerCreate, update: routerUpdate } = bodyReaders('router', createSchema, updateSchema);

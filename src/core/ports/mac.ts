/**
 * Port MAC addresses: random ones under the configured base (Neutron's `get_random_mac`), retried
 * when the network already has them.
 */
import { randomInt } from 'node:crypto';
import { define } from '../errors.js';

/** How many random MACs are tried before giving up (Neutron's `mac_generation_retries`). */
const MAC_GENERATION_RETRIES = 16;

export const MacAddressGenerationFailure = define<{ net_id: unknown }>(
  'MacAddressGenerationFailure',
  'ServiceUnavailable',
  'Unable to generate unique mac on network %(net_id)s.',
);

/** The first three octets of `baseMac` (four when its fourth is not 00), the rest random. */
export function randomMac(baseMac: string): string {
  const base = baseMac.toLowerCase().split(':');
  const octets = [base[0]!, base[1]!, base[2]!];
  octets.push(base[3] !== '00' ? base[3]! : hex(randomInt(256)));
  octets.push(hex(randomInt(256)), hex(randomInt(256)));
  return octets.join(':');
}

function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}

export async function generateUniqueMac(
  baseMac: string,
  networkId: string,
  inUse: (mac: string) => Promise<boolean>,
): Promise<string> {
  for (let i = 0; i < MAC_GENERATION_RETRIES; i++) {
    const mac = randomMac(baseMac);
    if (!(await inUse(mac))) return mac;
  }
  throw MacAddressGenerationFailure({ net_id: networkId });
}

/**
 * CIDR arithmetic the management network needs (ipaddr.js underneath): a network's family, its
 * network and first host address, containment and overlap.
 */
import ipaddr from 'ipaddr.js';

export function networkAddress(address: ipaddr.IPv4 | ipaddr.IPv6, prefix: number): string {
  const bytes = address.toByteArray();
  for (let bit = prefix; bit < bytes.length * 8; bit++) bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return ipaddr.fromByteArray(bytes).toString();
}

export function cidrFamily(cidr: string): 4 | 6 {
  return ipaddr.parseCIDR(cidr)[0].kind() === 'ipv4' ? 4 : 6;
}

export function cidrsOverlap(a: string, b: string): boolean {
  const [addrA, lenA] = ipaddr.parseCIDR(a);
  const [addrB, lenB] = ipaddr.parseCIDR(b);
  if (addrA.kind() !== addrB.kind()) return false;
  const shorter = Math.min(lenA, lenB);
  return networkAddress(addrA, shorter) === networkAddress(addrB, shorter);
}

export function cidrContains(cidr: string, ip: string): boolean {
  const [net, len] = ipaddr.parseCIDR(cidr);
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip);
  } catch {
    return false;
  }
  return addr.kind() === net.kind() && addr.match(net, len);
}

/** `bytes` as one big-endian number plus `delta` (±1), wrapping like the address space. */
function offset(bytes: number[], delta: 1 | -1): number[] {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const carry = delta === 1 ? bytes[i] === 0xff : bytes[i] === 0;
    bytes[i] = (bytes[i]! + delta) & 0xff;
    if (!carry) break;
  }
  return bytes;
}

const text = (bytes: number[]) => ipaddr.fromByteArray(bytes).toString();

/** The first host address of a CIDR (network address + 1). */
export function firstHost(cidr: string): string {
  const [net, len] = ipaddr.parseCIDR(cidr);
  return text(offset(ipaddr.parse(networkAddress(net, len)).toByteArray(), 1));
}

/** The last usable address (IPv4: before the broadcast address). */
export function lastHost(cidr: string): string {
  const [net, len] = ipaddr.parseCIDR(cidr);
  const bytes = net.toByteArray();
  for (let bit = len; bit < bytes.length * 8; bit++) bytes[bit >> 3]! |= 0x80 >> (bit & 7);
  return text(offset(bytes, -1));
}

/** The address after `ip`, and the one before it. */
export const addressAfter = (ip: string) => text(offset(ipaddr.parse(ip).toByteArray(), 1));
export const addressBefore = (ip: string) => text(offset(ipaddr.parse(ip).toByteArray(), -1));

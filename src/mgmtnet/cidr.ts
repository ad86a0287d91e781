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

/** The first host address of a CIDR (network address + 1). */
export function firstHost(cidr: string): string {
  const [net, len] = ipaddr.parseCIDR(cidr);
  const bytes = ipaddr.parse(networkAddress(net, len)).toByteArray();
  for (let i = bytes.length - 1; i >= 0; i--) {
    bytes[i] = (bytes[i]! + 1) & 0xff;
    if (bytes[i] !== 0) break;
  }
  return ipaddr.fromByteArray(bytes).toString();
}

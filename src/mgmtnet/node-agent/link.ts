/**
 * The node interface as the kernel sees it: MAC, MTU, up, static addresses and explicit routes.
 * Everything comes from the Neutron port and its subnets; nothing is learnt from the network: no
 * DHCP client (it would install routes and touch the host's resolver), no router advertisements
 * (an IPv6 address must not wait for one), no default route. Routes the agent installs carry
 * `proto static`; on this interface the agent removes any non-kernel route it did not ask for.
 */
import ipaddr from 'ipaddr.js';
import { must, type NodeHost } from './host.js';

export interface WantedAddress {
  /** `172.24.0.5/16` or `fd00::5/64`. */
  cidr: string;
  family: 4 | 6;
}

export interface WantedRoute {
  destination: string;
  nexthop: string;
  family: 4 | 6;
  /**
   * The path MTU when it is smaller than the link's: the link router forwards at most the
   * smallest MTU of its networks (OVN's gateway_mtu), and a route that says so gives TCP the right
   * MSS from the first segment instead of relying on ICMP "fragmentation needed".
   */
  mtu?: number;
}

export interface WantedLink {
  name: string;
  mac: string;
  mtu: number;
  addresses: WantedAddress[];
  routes: WantedRoute[];
}

interface IpLink {
  ifname: string;
  address: string;
  mtu: number;
  flags: string[];
}

interface IpAddr {
  family: 'inet' | 'inet6';
  local: string;
  prefixlen: number;
  scope: string;
}

interface IpRoute {
  dst: string;
  gateway?: string;
  protocol?: string;
  metrics?: { mtu?: number }[];
}

export interface LinkState {
  exists: boolean;
  mac?: string;
  mtu?: number;
  up?: boolean;
  /** Global-scope addresses, as `addr/prefix`. */
  addresses: string[];
  /** Non-kernel routes on the interface, as `dst via gw`. */
  routes: string[];
}

export const familyOf = (address: string): 4 | 6 => (ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4);

/** One spelling per address (iproute2 and Neutron may write IPv6 differently): RFC 5952's. */
export function canonicalAddress(address: string): string {
  const [ip, prefix] = address.split('/');
  const text = ipaddr.parse(ip!).toString();
  return prefix === undefined ? text : `${text}/${prefix}`;
}

/** `10.0.0.0/8 via 10.1.0.1 mtu 1442`: how a route is compared and reported. */
export function routeKey(route: { destination: string; nexthop: string; mtu?: number }): string {
  const mtu = route.mtu ? ` mtu ${route.mtu}` : '';
  return `${canonicalAddress(route.destination)} via ${canonicalAddress(route.nexthop)}${mtu}`;
}

/** iproute2 prints a host route without its prefix length and `default` for 0/0. */
function normalizeDestination(dst: string, family: 4 | 6): string {
  if (dst === 'default') return family === 4 ? '0.0.0.0/0' : '::/0';
  return dst.includes('/') ? dst : `${dst}/${family === 4 ? 32 : 128}`;
}

async function json<T>(host: NodeHost, argv: string[]): Promise<T | undefined> {
  const result = await host(argv);
  if (result.code !== 0) return undefined;
  return (result.stdout.trim() ? JSON.parse(result.stdout) : []) as T;
}

export async function readLink(host: NodeHost, name: string): Promise<LinkState> {
  const links = await json<IpLink[]>(host, ['ip', '-j', 'link', 'show', 'dev', name]);
  const link = links?.[0];
  if (!link) return { exists: false, addresses: [], routes: [] };
  const addrs = (await json<{ addr_info: IpAddr[] }[]>(host, ['ip', '-j', 'addr', 'show', 'dev', name]))?.[0];
  const routes: string[] = [];
  for (const family of [4, 6] as const) {
    const found = (await json<IpRoute[]>(host, ['ip', `-${family}`, '-j', 'route', 'show', 'dev', name])) ?? [];
    for (const r of found) {
      // Connected routes (proto kernel) and IPv6's multicast/link-local ones follow from the addresses.
      if (r.protocol === 'kernel' || !r.gateway) continue;
      const mtu = r.metrics?.find((m) => m.mtu !== undefined)?.mtu;
      routes.push(routeKey({ destination: normalizeDestination(r.dst, family), nexthop: r.gateway, mtu }));
    }
  }
  return {
    exists: true,
    mac: link.address.toLowerCase(),
    mtu: link.mtu,
    up: link.flags.includes('UP'),
    addresses: (addrs?.addr_info ?? [])
      .filter((a) => a.scope === 'global')
      .map((a) => canonicalAddress(`${a.local}/${a.prefixlen}`)),
    routes,
  };
}

/**
 * Brings the link to `wanted`; returns what it changed (empty when nothing was needed). IPv6 is
 * made static first: router advertisements off (no SLAAC address, no default route from a router)
 * and addresses added `nodad` so they are usable at once.
 */
export async function reconcileLink(host: NodeHost, wanted: WantedLink, actual: LinkState): Promise<string[]> {
  const changes: string[] = [];
  const dev = wanted.name;
  if (wanted.addresses.some((a) => a.family === 6)) {
    // RAs and autoconf off before IPv6 is switched on (hosts and containers often start with
    // disable_ipv6=1 on new interfaces), so no advertisement is ever acted on in between.
    for (const [key, value] of [
      ['accept_ra', '0'],
      ['autoconf', '0'],
      ['disable_ipv6', '0'],
    ] as const) {
      const path = `net.ipv6.conf.${dev}.${key}`;
      const now = (await host(['sysctl', '-n', path])).stdout.trim();
      if (now !== value) {
        await must(host, ['sysctl', '-q', '-w', `${path}=${value}`]);
        changes.push(`${key}=${value}`);
      }
    }
  }
  if (actual.mac !== wanted.mac.toLowerCase()) {
    await must(host, ['ip', 'link', 'set', 'dev', dev, 'address', wanted.mac]);
    changes.push(`mac ${actual.mac ?? '?'} → ${wanted.mac}`);
  }
  if (actual.mtu !== wanted.mtu) {
    await must(host, ['ip', 'link', 'set', 'dev', dev, 'mtu', String(wanted.mtu)]);
    changes.push(`mtu ${actual.mtu ?? '?'} → ${wanted.mtu}`);
  }
  if (!actual.up) {
    await must(host, ['ip', 'link', 'set', 'dev', dev, 'up']);
    changes.push('link up');
  }
  const wantedCidrs = new Set(wanted.addresses.map((a) => canonicalAddress(a.cidr)));
  for (const cidr of actual.addresses) {
    if (wantedCidrs.has(cidr)) continue;
    await must(host, ['ip', 'addr', 'del', cidr, 'dev', dev]);
    changes.push(`address ${cidr} removed`);
  }
  for (const address of wanted.addresses) {
    if (actual.addresses.includes(canonicalAddress(address.cidr))) continue;
    const extra = address.family === 6 ? ['nodad'] : [];
    await must(host, ['ip', `-${address.family}`, 'addr', 'replace', address.cidr, 'dev', dev, ...extra]);
    changes.push(`address ${address.cidr} added`);
  }
  const wantedRoutes = new Map(wanted.routes.map((r) => [routeKey(r), r]));
  for (const key of actual.routes) {
    if (wantedRoutes.has(key)) continue;
    const [destination, , nexthop] = key.split(' ');
    await must(host, ['ip', 'route', 'del', destination!, 'via', nexthop!, 'dev', dev]);
    changes.push(`route ${key} removed`);
  }
  for (const [key, route] of wantedRoutes) {
    if (actual.routes.includes(key)) continue;
    await must(host, [
      'ip',
      `-${route.family}`,
      'route',
      'replace',
      route.destination,
      'via',
      route.nexthop,
      'dev',
      dev,
      'proto',
      'static',
      ...(route.mtu ? ['mtu', String(route.mtu)] : []),
    ]);
    changes.push(`route ${key} added`);
  }
  return changes;
}

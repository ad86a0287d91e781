/**
 * The addressing step: the link gets the port's MAC and MTU, every fixed IP with its subnet's
 * prefix length, and explicit routes only (the subnets' host routes, the link router's with its
 * path MTU, and any the caller adds); never a default route. The result is the Addressed finding
 * plus what the probe needs (the addresses and the link router's gateways).
 */
import { finding, type Finding } from '../conditions.js';
import type { NodeStep } from './context.js';
import {
  canonicalAddress,
  familyOf,
  readLink,
  reconcileLink,
  routeKey,
  type WantedAddress,
  type WantedRoute,
} from './link.js';
import type { NeutronPort } from './neutron.js';
import type { PortNetwork } from './observe.js';
import { linkRouterRoutes } from './port-lookup.js';
import type { ProbeTarget } from './probe.js';

export interface Addressing {
  readonly addressed: Finding;
  readonly addresses: readonly WantedAddress[];
  /** One per destination, as installed (or wanted, when the device is missing). */
  readonly routes: readonly WantedRoute[];
  /** The link router's addresses on this network, with the path MTU through it: probe targets. */
  readonly gateways: readonly ProbeTarget[];
}

const isDefault = (cidr: string) => /\/0$/.test(cidr);

/** Every fixed IP with its subnet's prefix length. */
function wantedAddresses(port: NeutronPort, { subnets }: PortNetwork): WantedAddress[] {
  return port.fixed_ips.map((f) => {
    const prefix = subnets.get(f.subnet_id)!.cidr.split('/')[1];
    return { cidr: `${f.ip_address}/${prefix}`, family: familyOf(f.ip_address) };
  });
}

/** The port's subnets' host routes, without a default route (the interface never gets one). */
function hostRoutes(step: NodeStep, { subnets }: PortNetwork): WantedRoute[] {
  const routes: WantedRoute[] = [];
  for (const subnet of subnets.values()) {
    for (const route of subnet.host_routes ?? []) {
      if (isDefault(route.destination)) {
        step.log.warn(
          { node: step.node, subnet: subnet.id },
          'ignoring a default host route: the management interface never gets one',
        );
        continue;
      }
      routes.push({ ...route, family: familyOf(route.nexthop) });
    }
  }
  return routes;
}

export async function addressStep(
  step: NodeStep,
  port: NeutronPort,
  where: PortNetwork,
  extraRoutes: readonly { destination: string; nexthop: string }[] = [],
): Promise<Addressing> {
  const { dev } = step;
  const mtu = where.network.mtu;
  const addresses = wantedAddresses(port, where);
  const routes = hostRoutes(step, where);
  const linkRouter = await linkRouterRoutes(step.client, step.spec, port, mtu, where.subnets);
  routes.push(...linkRouter.routes);
  for (const route of extraRoutes) routes.push({ ...route, family: familyOf(route.nexthop) });
  // One route per destination: a subnet host route and the router's own (with its path MTU) may
  // name the same one; the later, more specific source wins.
  const unique = [...new Map(routes.map((r) => [canonicalAddress(r.destination), r])).values()];

  const link = await readLink(step.host, dev);
  if (!link.exists) {
    const missing = finding('False', 'DeviceMissing', `vswitchd has not created the ${dev} device`);
    return { addressed: missing, addresses, routes: unique, gateways: linkRouter.gateways };
  }
  const changes = await reconcileLink(
    step.host,
    { name: dev, mac: port.mac_address, mtu, addresses, routes: unique },
    link,
  );
  if (changes.length) step.done(`configured ${dev}: ${changes.join(', ')}`, { port: port.id });
  const routeText = unique.length ? `, routes ${unique.map(routeKey).join(', ')}` : '';
  const addressed = finding(
    'True',
    'StaticAddresses',
    `${addresses.map((a) => a.cidr).join(', ')}, MTU ${mtu}${routeText}`,
  );
  return { addressed, addresses, routes: unique, gateways: linkRouter.gateways };
}

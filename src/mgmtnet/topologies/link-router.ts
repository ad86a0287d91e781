/**
 * The link-router topology's own step: the router between the controllers' provider network and
 * the tenant `lb-mgmt-net`, with SNAT off and a fixed gateway address on the provider subnet, and its
 * interface on the tenant subnet through a tagged port at the subnet's first address (the nexthop
 * of the tenant subnet's host route back to the controllers).
 */
import { linkGatewayIp, routerAddress } from '../desired.js';
import type { NeutronObject } from '../neutron-client.js';
import { sameValue, type Pass } from '../pass.js';

export async function ensureRouter(
  pass: Pass,
  networks: Map<string, NeutronObject>,
  subnets: Map<string, NeutronObject>,
): Promise<void> {
  const s = pass.spec.spec;
  const provider = networks.get('provider-net')!;
  const providerSubnet = subnets.get('provider-subnet')!;
  const gateway = {
    network_id: provider.id,
    enable_snat: false,
    external_fixed_ips: [{ subnet_id: providerSubnet.id, ip_address: linkGatewayIp(pass.spec) }],
  };
  const current = pass.candidates('routers', 'router')[0] ?? pass.adoptable.get('router');
  // Compare the gateway by what matters; Neutron adds fields (external_fixed_ips of other subnets, qos).
  const gatewayMatches =
    current?.external_gateway_info?.network_id === gateway.network_id &&
    current?.external_gateway_info?.enable_snat === false &&
    sameValue(
      (current?.external_gateway_info?.external_fixed_ips ?? []).map((f: { ip_address: string }) => f.ip_address),
      [linkGatewayIp(pass.spec)],
    );
  const router = await pass.ensure({
    collection: 'routers',
    observed: 'routers',
    role: 'router',
    attributes: {
      name: s.linkRouter.routerName,
      description: `Octavia link router, SNAT off (octonet mgmt-net ${pass.spec.metadata.name})`,
      admin_state_up: true,
      ...(current && gatewayMatches ? {} : { external_gateway_info: gateway }),
    },
    createOnly: { external_gateway_info: gateway },
    step: 'RouterReady',
  });
  pass.ids.router = router.id;
  const tenantRole = subnets.has('mgmt-subnet-v4') ? 'mgmt-subnet-v4' : 'mgmt-subnet-v6';
  const tenantSubnet = subnets.get(tenantRole)!;
  const address = routerAddress(String(tenantSubnet.cidr));
  const port = await pass.ensure({
    collection: 'ports',
    observed: 'ports',
    role: 'router-port',
    attributes: { name: s.linkRouter.routerPortName },
    fixed: { network_id: networks.get('mgmt-net')!.id },
    createOnly: { fixed_ips: [{ subnet_id: tenantSubnet.id, ip_address: address }] },
    step: 'RouterReady',
  });
  pass.ids.routerPort = port.id;
  if (port.device_id !== router.id) {
    await pass.client.addRouterInterface(router.id, { port_id: port.id });
    pass.objects.push({ kind: 'router_interface', name: `${router.name} ${address}`, id: port.id, action: 'created' });
  } else {
    pass.objects.push({
      kind: 'router_interface',
      name: `${router.name} ${address}`,
      id: port.id,
      action: 'unchanged',
    });
  }
}

/** Each node's port: created when missing, kept in line; addresses pinned only when the spec pins them. */

/**
 * What the BGP lab tests share: a `lab up --bgp` lab (two FRR cloudgws, a core, FRR on every
 * node), octonet's API on it, `octonet bgp-agent` beside every node, and the Neutron side of the
 * seed's layout: an external network on physnet1 whose gateway is the cloudgws' VRRP address, an
 * address scope shared by the external subnet and a tenant subnet (so the tenant subnet is
 * advertised), a router without SNAT, a VM on node1, a speaker with both cloudgws as MD5 peers,
 * scheduled on every node's DR agent. Reading the cloudgws' RIB is `vtysh -c 'show bgp ipv4 json'`.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before } from 'node:test';
import { agentIdFor } from '../../src/bgp/agent-sb.js';
import { cloudgwPeerBodies, type Lab } from '../../src/lab/index.js';
import { useApi, type TestApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { created, pollUntil, useLab } from './lab-fixture.js';

const MAIN = join(import.meta.dirname, '../../dist/cli/main.js');
export const LOCAL_AS = 64999;

export interface BgpPath {
  nextHop: string;
  /** The BGP peer it was learned from (a node's address). */
  peer: string;
}

/** The cloudgw's best and other paths for `prefix` (empty when it has none). */
export async function ribPaths(lab: Lab, cloudgw: string, prefix: string, family: 4 | 6 = 4): Promise<BgpPath[]> {
  const json = JSON.parse(await lab.bgpVtysh(cloudgw, `show bgp ipv${family} json`)) as {
    routes?: Record<string, { nexthops?: { ip: string }[]; peerId?: string }[]>;
  };
  return (json.routes?.[prefix] ?? []).map((p) => ({ nextHop: p.nexthops?.[0]?.ip ?? '', peer: p.peerId ?? '' }));
}

export interface BgpWorld {
  lab: () => Lab;
  api: TestApi;
  scratch: () => string;
  external: () => Json;
  router: () => Json;
  vmPort: () => Json;
  tenantSubnet: () => Json;
  /** With `ipv6`. */
  tenantSubnet6: () => Json;
  speaker: () => Json;
  /** The router's gateway address of that family on the external network. */
  gatewayIp: (family?: 4 | 6) => string;
  /** The node whose br-ex address a route was learned from. */
  nodeOfPeer: (peer: string) => Promise<string | undefined>;
  /** The chassis holding the router's gateway now. */
  activeGateway: () => Promise<string>;
}

/** IPv6 (`ipv6: true`): a second address scope for 2001:db8:100::/64 (external) and a tenant /64. */
export const IPV6 = { external: '2001:db8:100::/64', tenantPool: '2001:db8:200::/56' } as const;

export function useBgpWorld(name: string, options: { distributed: boolean; ipv6?: boolean }): BgpWorld {
  const { lab, scratch } = useLab({ name, nodes: 3, gateways: ['node2', 'node3'], bgp: true });
  const api = useApi('sqlite', {
    config: () => ({
      ovn: {
        nb_connection: lab().nb,
        sb_connection: lab().sb,
        bfd_min_rx: 100,
        bfd_min_tx: 100,
        bfd_mult: 3,
        enable_distributed_floating_ip: options.distributed,
      },
    }),
  });
  const post = (path: string, body: unknown) => created(api.admin, path, body);
  const put = async (path: string, body: unknown) => {
    const r = await api.admin.put(path, body);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  };
  const state: Record<string, Json> = {};

  before(async () => {
    const status = await lab().status();
    const bgp = status.bgp!;
    const scope = (
      await post('/v2.0/address-scopes', { address_scope: { name: 'public', ip_version: 4, shared: true } })
    ).address_scope;
    const pool = (cidr: string, name: string) =>
      post('/v2.0/subnetpools', {
        subnetpool: { name, prefixes: [cidr], address_scope_id: scope.id, shared: true, default_prefixlen: 24 },
      }).then((b) => b.subnetpool);
    const publicPool = await pool('198.51.100.0/24', 'public');
    const tenantPool = await pool('10.10.0.0/16', 'tenant');
    state.external = (
      await post('/v2.0/networks', {
        network: {
          name: 'public',
          'router:external': true,
          'provider:network_type': 'flat',
          'provider:physical_network': 'physnet1',
        },
      })
    ).network;
    const externalV4 = await post('/v2.0/subnets', {
      subnet: {
        network_id: state.external.id,
        subnetpool_id: publicPool.id,
        cidr: '198.51.100.0/24',
        ip_version: 4,
        gateway_ip: bgp.gatewayIp,
        enable_dhcp: false,
        allocation_pools: [{ start: '198.51.100.10', end: '198.51.100.90' }],
      },
    });
    const net = (await post('/v2.0/networks', { network: { name: 'tenant' } })).network;
    state.tenantSubnet = (
      await post('/v2.0/subnets', { subnet: { network_id: net.id, subnetpool_id: tenantPool.id, ip_version: 4 } })
    ).subnet;
    const externalFixedIps = [{ subnet_id: externalV4.subnet.id }];
    if (options.ipv6) {
      const scope6 = (
        await post('/v2.0/address-scopes', { address_scope: { name: 'public6', ip_version: 6, shared: true } })
      ).address_scope;
      const pool6 = async (cidr: string, prefixlen: number) =>
        (
          await post('/v2.0/subnetpools', {
            subnetpool: { name: cidr, prefixes: [cidr], address_scope_id: scope6.id, default_prefixlen: prefixlen },
          })
        ).subnetpool;
      const external6 = await post('/v2.0/subnets', {
        subnet: {
          network_id: state.external.id,
          subnetpool_id: (await pool6(IPV6.external, 64)).id,
          cidr: IPV6.external,
          ip_version: 6,
          enable_dhcp: false,
          allocation_pools: [{ start: '2001:db8:100::10', end: '2001:db8:100::90' }],
        },
      });
      externalFixedIps.push({ subnet_id: external6.subnet.id });
      state.tenantSubnet6 = (
        await post('/v2.0/subnets', {
          subnet: { network_id: net.id, subnetpool_id: (await pool6(IPV6.tenantPool, 64)).id, ip_version: 6 },
        })
      ).subnet;
    }
    state.router = (
      await post('/v2.0/routers', {
        router: {
          name: 'r1',
          external_gateway_info: {
            network_id: state.external.id,
            enable_snat: false,
            external_fixed_ips: externalFixedIps,
          },
        },
      })
    ).router;
    await put(`/v2.0/routers/${state.router.id}/add_router_interface`, { subnet_id: state.tenantSubnet.id });
    if (state.tenantSubnet6) {
      await put(`/v2.0/routers/${state.router.id}/add_router_interface`, { subnet_id: state.tenantSubnet6.id });
    }
    state.vmPort = (
      await post('/v2.0/ports', {
        port: {
          network_id: net.id,
          name: 'vm1',
          'binding:host_id': 'node1',
          device_owner: 'compute:nova',
          port_security_enabled: false,
          security_groups: [],
        },
      })
    ).port;
    await lab().createVm({ node: 'node1', port: state.vmPort.id, name: 'vm1' });

    state.speaker = (
      await post('/v2.0/bgp-speakers', {
        bgp_speaker: {
          name: 'fabric',
          local_as: LOCAL_AS,
          ip_version: 4,
          advertise_floating_ip_host_routes: true,
          advertise_tenant_networks: true,
        },
      })
    ).bgp_speaker;
    for (const body of cloudgwPeerBodies(bgp)) {
      const peer = (await post('/v2.0/bgp-peers', { bgp_peer: body })).bgp_peer;
      await put(`/v2.0/bgp-speakers/${state.speaker.id}/add_bgp_peer`, { bgp_peer_id: peer.id });
    }
    await put(`/v2.0/bgp-speakers/${state.speaker.id}/add_gateway_network`, { network_id: state.external.id });

    // The MD5 secrets reach the agents from the API's service-only endpoint (noauth: as admin).
    for (const node of bgp.nodes) {
      const argv = [process.execPath, MAIN, 'bgp-agent', '--chassis', node.name, '--ovn-sb', lab().sb];
      argv.push('--frr-dir', node.frrDir, '--router-id', node.address, '--os-url', api.url);
      if (options.distributed) argv.push('--distributed-floating-ips');
      lab().startBesideNode(node.name, 'bgp-agent', argv);
    }
    // Each agent registers in its chassis; then the speaker is scheduled on every one of them.
    for (const node of bgp.nodes) {
      const agentId = agentIdFor(node.name);
      await pollUntil(
        async () => (await api.admin.get(`/v2.0/agents/${agentId}`)).status === 200,
        `the BGP agent of ${node.name} in /v2.0/agents`,
      );
      // The scheduler may have placed the speaker already (n-d-r schedules speakers on new agents).
      const hosted = (await api.admin.get(`/v2.0/agents/${agentId}/bgp-drinstances`)).body as Json;
      if (!(hosted.bgp_speakers as Json[]).some((s) => s.id === state.speaker!.id)) {
        await post(`/v2.0/agents/${agentId}/bgp-drinstances`, { bgp_speaker_id: state.speaker.id });
      }
    }
  });

  const world: BgpWorld = {
    lab,
    api,
    scratch,
    external: () => state.external!,
    router: () => state.router!,
    vmPort: () => state.vmPort!,
    tenantSubnet: () => state.tenantSubnet!,
    tenantSubnet6: () => state.tenantSubnet6!,
    speaker: () => state.speaker!,
    gatewayIp: (family = 4) =>
      (state.router!.external_gateway_info.external_fixed_ips as Json[]).find(
        (ip) => (String(ip.ip_address).includes(':') ? 6 : 4) === family,
      )!.ip_address as string,
    nodeOfPeer: async (peer) => (await lab().status()).bgp!.nodes.find((n) => n.address === peer)?.name,
    activeGateway: async () => {
      const gatewayPort = (
        await api.admin.get(`/v2.0/ports?device_id=${state.router!.id}&device_owner=network:router_gateway`)
      ).body.ports[0].id as string;
      return pollUntil(async () => {
        const chassis = await lab().sbctl(
          '--bare',
          '--columns=chassis',
          'find',
          'Port_Binding',
          `logical_port=cr-lrp-${gatewayPort}`,
        );
        if (!chassis) return undefined;
        return lab()
          .sbctl('get', 'Chassis', chassis, 'name')
          .then((n) => n.replace(/"/g, ''));
      }, 'the gateway to be bound');
    },
  };
  return world;
}

/** Pings from the core until one answer comes back. */
export async function coreReaches(lab: Lab, address: string): Promise<void> {
  await pollUntil(
    async () => (await lab.exec(lab.coreCommand(['ping', '-c', '1', '-W', '1', address]))).code === 0,
    `the core to reach ${address}`,
  );
}

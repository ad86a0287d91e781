/**
 * One BGP lab with octonet on it, as the BGP figures need it: `lab up --bgp` (3 nodes, gateways
 * node2 and node3, two FRR cloudgws, a core), `octonet serve` with BFD at 100 ms between gateway
 * chassis, and through the API: the flat external network (gateway: the cloudgws' VRRP address)
 * with a second, routed floating-IP subnet 100.64.0.0/20 that nothing knows but BGP, a router, a
 * tenant subnet, a VM on node1, a speaker with both cloudgws as MD5 peers, and `octonet bgp-agent`
 * beside every node. `close` removes it all.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentIdFor } from '../../src/bgp/agent-sb.js';
import { vtyRun } from '../../src/bgp/frr/vty.js';
import { cloudgwPeerBodies, downLab, upLab, type Lab } from '../../src/lab/index.js';
import { deferUndo } from '../api/teardown.js';
import { NeutronApi } from '../ovn/neutron-api.js';
import { startServe } from '../ovn/octonet-serve.js';

const FIP_POOL = '100.64.0.0/20';

export interface Fabric {
  lab: Lab;
  api: NeutronApi;
  externalNetworkId: string;
  fipSubnetId: string;
  /** The on-link subnet (198.51.100.0/24) the router's gateway address comes from. */
  gatewaySubnetId: string;
  tenantNetworkId: string;
  vmPortId: string;
  close(): Promise<void>;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 60_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export async function startFabric(options: {
  repoRoot: string;
  /** Another build's root to run the agents from (`--agent-root`, to compare with an older agent). */
  agentRoot?: string;
  labName: string;
  logsDir: string;
  say: (line: string) => void;
}): Promise<Fabric> {
  const undo: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const step of undo) await step();
  };
  const dir = mkdtempSync(join(tmpdir(), 'octonet-bench-bgp-'));
  undo.unshift(deferUndo(() => rmSync(dir, { recursive: true, force: true })));
  undo.unshift(deferUndo(async () => void (await downLab({ name: options.labName }))));
  try {
    await downLab({ name: options.labName });
    const lab = await upLab({ name: options.labName, nodes: 3, gateways: ['node2', 'node3'], bgp: true });
    const bgp = (await lab.status()).bgp!;
    const config = join(dir, 'octonet.yaml');
    writeFileSync(config, 'ovn:\n  bfd_min_rx: 100\n  bfd_min_tx: 100\n  bfd_mult: 3\n');
    const previous = process.env.OCTONET_CONFIG;
    process.env.OCTONET_CONFIG = config;
    const serve = await startServe({
      repoRoot: options.repoRoot,
      dir,
      logFile: join(options.logsDir, `serve-${options.labName}.log`),
      logLevel: 'warn',
      ovn: { nb: lab.nb, sb: lab.sb },
    }).finally(() => {
      if (previous === undefined) delete process.env.OCTONET_CONFIG;
      else process.env.OCTONET_CONFIG = previous;
    });
    undo.unshift(serve.stop);
    const stamp = `${Date.now()}`;
    // The agents' logs go with the bench's logs before the lab (and its run dir) is removed.
    undo.unshift(async () => {
      for (const node of bgp.nodes) {
        const log = join(lab.layout.runDir, node.name, 'bgp-agent.log');
        if (existsSync(log)) copyFileSync(log, join(options.logsDir, `bgp-agent-${stamp}-${node.name}.log`));
      }
    });
    const api = new NeutronApi(serve.baseUrl);
    undo.unshift(async () => api.close());
    await api.call('PUT', '/v2.0/quotas/fake_project_id', { quota: { port: -1, floatingip: -1 } });

    const externalNetworkId = (
      await api.call<{ network: { id: string } }>('POST', '/v2.0/networks', {
        network: {
          name: 'public',
          'router:external': true,
          'provider:network_type': 'flat',
          'provider:physical_network': 'physnet1',
        },
      })
    ).network.id;
    const subnet = (body: Record<string, unknown>) =>
      api.call<{ subnet: { id: string } }>('POST', '/v2.0/subnets', {
        subnet: { network_id: externalNetworkId, ip_version: 4, enable_dhcp: false, ...body },
      });
    const gatewaySubnet = await subnet({
      cidr: '198.51.100.0/24',
      gateway_ip: bgp.gatewayIp,
      allocation_pools: [{ start: '198.51.100.10', end: '198.51.100.90' }],
    });
    const fipSubnetId = (await subnet({ cidr: FIP_POOL, gateway_ip: null })).subnet.id;
    const routerId = (
      await api.call<{ router: { id: string } }>('POST', '/v2.0/routers', {
        router: {
          name: 'bench',
          external_gateway_info: {
            network_id: externalNetworkId,
            external_fixed_ips: [{ subnet_id: gatewaySubnet.subnet.id }],
          },
        },
      })
    ).router.id;
    const tenantNetworkId = await api.createNetwork('tenant');
    const tenantSubnetId = await api.createSubnet(tenantNetworkId, '10.20.0.0/16');
    await api.call('PUT', `/v2.0/routers/${routerId}/add_router_interface`, { subnet_id: tenantSubnetId });
    const vmPort = await api.createPort({
      network_id: tenantNetworkId,
      name: 'vm1',
      'binding:host_id': 'node1',
      device_owner: 'compute:nova',
      port_security_enabled: false,
      security_groups: [],
    });
    await lab.createVm({ node: 'node1', port: vmPort.id, name: 'vm1' });

    const speaker = (
      await api.call<{ bgp_speaker: { id: string } }>('POST', '/v2.0/bgp-speakers', {
        bgp_speaker: { name: 'fabric', local_as: 64999, ip_version: 4, advertise_floating_ip_host_routes: true },
      })
    ).bgp_speaker;
    for (const body of cloudgwPeerBodies(bgp)) {
      const peer = (await api.call<{ bgp_peer: { id: string } }>('POST', '/v2.0/bgp-peers', { bgp_peer: body }))
        .bgp_peer;
      await api.call('PUT', `/v2.0/bgp-speakers/${speaker.id}/add_bgp_peer`, { bgp_peer_id: peer.id });
    }
    await api.call('PUT', `/v2.0/bgp-speakers/${speaker.id}/add_gateway_network`, { network_id: externalNetworkId });
    // This build's agents take the MD5 secrets from the API; an older one (--agent-root) from a file.
    const passwords = join(dir, 'peer-passwords');
    writeFileSync(passwords, bgp.cloudgws.map((c) => `${c.addresses[0]} ${bgp.password}\n`).join(''));
    for (const node of bgp.nodes) {
      const argv = [process.execPath, join(options.agentRoot ?? options.repoRoot, 'dist/cli/main.js'), 'bgp-agent'];
      argv.push('--chassis', node.name, '--ovn-sb', lab.sb, '--frr-dir', node.frrDir, '--router-id', node.address);
      argv.push('--os-url', serve.baseUrl, ...(options.agentRoot ? ['--peer-passwords', passwords] : []));
      lab.startBesideNode(node.name, 'bgp-agent', argv);
    }
    for (const node of bgp.nodes) {
      const agent = agentIdFor(node.name);
      await until(
        async () => ((await api.raw('GET', `/v2.0/agents/${agent}`)).status === 200 ? true : undefined),
        `the BGP agent of ${node.name}`,
      );
      const hosted = await api.call<{ bgp_speakers: { id: string }[] }>('GET', `/v2.0/agents/${agent}/bgp-drinstances`);
      if (!hosted.bgp_speakers.some((s) => s.id === speaker.id)) {
        await api.call('POST', `/v2.0/agents/${agent}/bgp-drinstances`, { bgp_speaker_id: speaker.id });
      }
    }
    options.say(`lab ${options.labName}: BGP fabric, serve and 3 agents up`);
    return {
      lab,
      api,
      externalNetworkId,
      fipSubnetId,
      gatewaySubnetId: gatewaySubnet.subnet.id,
      tenantNetworkId,
      vmPortId: vmPort.id,
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/**
 * The prefixes cloudgw1 has a path for (its whole IPv4 RIB), asked of its bgpd over the vty socket
 * (`src/bgp/frr/vty.ts`): a few milliseconds, where a vtysh process costs 120–200 ms here, which
 * was most of the announce figure's resolution.
 */
export async function ribPrefixes(lab: Lab, cloudgw = 'cloudgw1'): Promise<Set<string>> {
  const [reply] = await vtyRun(lab.frrDir(cloudgw), 'bgpd', ['show bgp ipv4 json']);
  const json = JSON.parse(reply!.output) as { routes?: Record<string, unknown> };
  return new Set(Object.keys(json.routes ?? {}));
}

export { until };

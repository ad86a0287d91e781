/**
 * One lab with octonet on it, as every figure needs it: a fresh 3-node lab (VMs on node1, gateway
 * chassis node2 and node3, the outside namespace on physnet1), `octonet serve` (SQLite, through the
 * launcher) writing its NB with the chosen BFD timers, and through the API: the flat external
 * network, two tenant subnets, a router with its gateway and both interfaces, and VMs with port
 * security off (these figures are about routing, not filtering). Everything is registered for
 * teardown; `close` stops it again (leaving the lab up when asked).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downLab, upLab, type Lab } from '../../src/lab/index.js';
import { deferUndo, forgetUndo } from '../api/teardown.js';
import { NeutronApi } from '../ovn/neutron-api.js';
import { startServe, type Serve } from '../ovn/octonet-serve.js';

export const LAB_NAME = 'octonet-routers';
/** The outside namespace's address: the external subnet's gateway. */
export const OUTSIDE = '198.51.100.100';
/** Every floating IP of the bench takes this address (outside the allocation pool, so it is always free). */
export const FIP_ADDRESS = '198.51.100.200';

export type Tenant = 'left' | 'right';
const TENANTS: Record<Tenant, { cidr: string; node: string }> = {
  left: { cidr: '10.1.0.0/24', node: 'node1' },
  right: { cidr: '10.2.0.0/24', node: 'node2' },
};

export interface Vm {
  name: string;
  portId: string;
  ip: string;
}

export interface Cloud {
  lab: Lab;
  serve: Serve;
  api: NeutronApi;
  externalNetworkId: string;
  routerId: string;
  networkIds: Record<Tenant, string>;
  subnetIds: Record<Tenant, string>;
  vms: Partial<Record<Tenant, Vm>>;
  /** Stops serve and removes the lab (unless `keepLab`) and the temporary directory. */
  close(keepLab?: boolean): Promise<void>;
}

export interface CloudOptions {
  repoRoot: string;
  logFile: string;
  /** BFD timers written to NB_Global by octonet (`ovn.bfd_*`); undefined keeps OVN's defaults. */
  bfd?: { minRx: number; minTx: number; mult: number };
  /** VMs to plug: `left` on node1 (10.1.0.0/24), `right` on node2 (10.2.0.0/24). */
  vms: Tenant[];
  say: (line: string) => void;
  /** Default LAB_NAME (another bench names its own lab). */
  labName?: string;
  /** Extra config lines under `ovn:` (e.g. timers another bench needs). */
  ovnConfig?: Record<string, number | string | boolean>;
}

/** octonet reads the BFD timers from its config file; the flags of startServe carry the rest. */
function writeConfig(dir: string, bfd: CloudOptions['bfd'], extra: CloudOptions['ovnConfig'] = {}): string {
  const file = join(dir, 'octonet.yaml');
  const settings = { ...(bfd && { bfd_min_rx: bfd.minRx, bfd_min_tx: bfd.minTx, bfd_mult: bfd.mult }), ...extra };
  const lines = Object.entries(settings).map(([key, value]) => `  ${key}: ${value}`);
  writeFileSync(file, `# written by bench/routers/cloud.ts\n${lines.length ? `ovn:\n${lines.join('\n')}\n` : ''}`);
  return file;
}

export async function startCloud(options: CloudOptions): Promise<Cloud> {
  // Newest first: the API client, serve, the lab, the directory.
  const undo: Array<() => Promise<void>> = [];
  const labName = options.labName ?? LAB_NAME;
  const removeLab = async () => void (await downLab({ name: labName }));
  const runRemoveLab = deferUndo(removeLab);
  const dir = mkdtempSync(join(tmpdir(), 'octonet-bench-routers-'));
  undo.unshift(deferUndo(() => rmSync(dir, { recursive: true, force: true })));
  undo.unshift(runRemoveLab);
  const close = async (keepLab = false) => {
    if (keepLab) forgetUndo(removeLab);
    for (const step of undo) await step();
  };
  try {
    if ((await downLab({ name: labName })).existed) options.say(`removed a leftover lab ${labName}`);
    const lab = await upLab({ name: labName, nodes: 3, gateways: ['node2', 'node3'] });

    const previous = process.env.OCTONET_CONFIG;
    process.env.OCTONET_CONFIG = writeConfig(dir, options.bfd, options.ovnConfig);
    let serve: Serve;
    try {
      serve = await startServe({
        repoRoot: options.repoRoot,
        dir,
        logFile: options.logFile,
        logLevel: 'warn',
        ovn: { nb: lab.nb, sb: lab.sb },
      });
    } finally {
      if (previous === undefined) delete process.env.OCTONET_CONFIG;
      else process.env.OCTONET_CONFIG = previous;
    }
    undo.unshift(serve.stop);
    const api = new NeutronApi(serve.baseUrl);
    undo.unshift(async () => api.close());

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
    await api.call('POST', '/v2.0/subnets', {
      subnet: {
        network_id: externalNetworkId,
        cidr: '198.51.100.0/24',
        ip_version: 4,
        gateway_ip: OUTSIDE,
        enable_dhcp: false,
        allocation_pools: [{ start: '198.51.100.10', end: '198.51.100.90' }],
      },
    });
    const routerId = (
      await api.call<{ router: { id: string } }>('POST', '/v2.0/routers', {
        router: { name: 'bench-router', external_gateway_info: { network_id: externalNetworkId } },
      })
    ).router.id;
    const networkIds = {} as Record<Tenant, string>;
    const subnetIds = {} as Record<Tenant, string>;
    for (const [tenant, { cidr }] of Object.entries(TENANTS) as [Tenant, { cidr: string }][]) {
      networkIds[tenant] = await api.createNetwork(tenant);
      subnetIds[tenant] = await api.createSubnet(networkIds[tenant], cidr);
      await api.call('PUT', `/v2.0/routers/${routerId}/add_router_interface`, { subnet_id: subnetIds[tenant] });
    }
    const vms: Partial<Record<Tenant, Vm>> = {};
    for (const tenant of options.vms) {
      const port = await api.createPort({
        network_id: networkIds[tenant],
        name: `vm-${tenant}`,
        'binding:host_id': TENANTS[tenant].node,
        device_owner: 'compute:nova',
        port_security_enabled: false,
        security_groups: [],
      });
      const ip = (port.fixed_ips as { ip_address: string }[])[0]!.ip_address;
      await lab.createVm({ node: TENANTS[tenant].node, port: port.id, name: tenant });
      vms[tenant] = { name: tenant, portId: port.id, ip };
    }
    return { lab, serve, api, externalNetworkId, routerId, networkIds, subnetIds, vms, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** Runs a command in the lab and throws when it fails (the bench's own set-up steps). */
export async function must(lab: Lab, argv: string[]): Promise<string> {
  const result = await lab.exec(argv, { timeoutMs: 30_000 });
  if (result.code !== 0) throw new Error(`${argv.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

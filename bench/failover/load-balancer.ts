/**
 * A load balancer the way Octavia builds one in ACTIVE_STANDBY, on the bench's cloud: a VIP port
 * (device_owner Octavia, unbound), two amphora ports on node1 and node2 that list the VIP in their
 * allowed address pairs, the amphora security group (ICMP for the probe, VRRP between the
 * amphorae), a "VM" per amphora running keepalived with Octavia's settings, and a floating IP on
 * the VIP. Owns the amphorae's keepalived and their gratuitous-ARP captures.
 */
import type { Keepalived, Lab, VrrpOptions } from '../../src/lab/index.js';
import { must, type Cloud } from '../routers/cloud.js';
import { FIP_ADDRESS } from '../routers/cloud.js';
import { GarpWatch } from './garp-watch.js';

export const VIP = '10.1.0.10';
export const AMPHORAE = [
  { name: 'amphora1', node: 'node1', address: '10.1.0.21', priority: 100 },
  { name: 'amphora2', node: 'node2', address: '10.1.0.22', priority: 90 },
] as const;
export type AmphoraName = (typeof AMPHORAE)[number]['name'];

/** keepalived's timers: Octavia's defaults, or the fastest keepalived accepts (VRRPv3, 10 ms). */
export type VrrpSetting = 'octavia-default' | 'fastest';
export const VRRP_SETTINGS: Record<VrrpSetting, { label: string; advertInt: number; vrrpVersion: 2 | 3 }> = {
  'octavia-default': { label: 'Octavia defaults (VRRPv2, advert_int 1 s)', advertInt: 1, vrrpVersion: 2 },
  fastest: { label: 'fastest keepalived allows (VRRPv3, advert_int 0.01 s)', advertInt: 0.01, vrrpVersion: 3 },
};

export class LoadBalancer {
  readonly vipPortId: string;
  readonly ports: Record<AmphoraName, string>;
  private readonly daemons = new Map<AmphoraName, Keepalived>();
  readonly garps: Record<AmphoraName, GarpWatch>;

  private constructor(
    private readonly cloud: Cloud,
    vipPortId: string,
    ports: Record<AmphoraName, string>,
  ) {
    this.vipPortId = vipPortId;
    this.ports = ports;
    this.garps = Object.fromEntries(
      AMPHORAE.map((a) => [a.name, new GarpWatch(cloud.lab.vmCommand(a.name, []), VIP)]),
    ) as Record<AmphoraName, GarpWatch>;
  }

  static async create(cloud: Cloud): Promise<LoadBalancer> {
    const { api, lab } = cloud;
    const networkId = cloud.networkIds.left;
    const group = (
      await api.call<{ security_group: { id: string } }>('POST', '/v2.0/security-groups', {
        security_group: { name: 'lb-amphorae' },
      })
    ).security_group.id;
    for (const rule of [{ protocol: 'icmp' }, { protocol: '112', remote_group_id: group }]) {
      await api.call('POST', '/v2.0/security-group-rules', {
        security_group_rule: { security_group_id: group, direction: 'ingress', ethertype: 'IPv4', ...rule },
      });
    }
    const vip = await api.createPort({
      network_id: networkId,
      name: 'octavia-lb-vip',
      device_owner: 'Octavia',
      fixed_ips: [{ ip_address: VIP }],
    });
    const ports = {} as Record<AmphoraName, string>;
    for (const amphora of AMPHORAE) {
      const port = await api.createPort({
        network_id: networkId,
        name: `octavia-lb-vrrp-${amphora.name}`,
        device_owner: 'compute:nova',
        'binding:host_id': amphora.node,
        fixed_ips: [{ ip_address: amphora.address }],
        security_groups: [group],
        allowed_address_pairs: [{ ip_address: VIP }],
      });
      await lab.createVm({ node: amphora.node, port: port.id, name: amphora.name });
      ports[amphora.name] = port.id;
    }
    await api.call('POST', '/v2.0/floatingips', {
      floatingip: { floating_network_id: cloud.externalNetworkId, port_id: vip.id, floating_ip_address: FIP_ADDRESS },
    });
    return new LoadBalancer(cloud, vip.id, ports);
  }

  private get lab(): Lab {
    return this.cloud.lab;
  }

  private vrrp(name: AmphoraName, setting: VrrpSetting): VrrpOptions {
    const self = AMPHORAE.find((a) => a.name === name)!;
    return {
      vip: VIP,
      self: self.address,
      peers: AMPHORAE.filter((a) => a.name !== name).map((a) => a.address),
      priority: self.priority,
      advertInt: VRRP_SETTINGS[setting].advertInt,
      vrrpVersion: VRRP_SETTINGS[setting].vrrpVersion,
    };
  }

  /**
   * Starts (or restarts) keepalived on every amphora with these timers, and the GARP captures;
   * an amphora a failed round left dead comes back first.
   */
  async start(setting: VrrpSetting): Promise<void> {
    await this.stop();
    for (const amphora of AMPHORAE) await this.garps[amphora.name].start();
    for (const amphora of AMPHORAE) await this.revive(amphora.name, setting);
  }

  /** The amphora holding the VIP on a link that is up, if exactly one does. */
  async master(): Promise<AmphoraName | undefined> {
    const holding: AmphoraName[] = [];
    for (const amphora of AMPHORAE) {
      const shown = await this.lab.exec(
        this.lab.vmCommand(amphora.name, ['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0', 'up']),
      );
      if (shown.stdout.includes(` ${VIP}/`)) holding.push(amphora.name);
    }
    return holding.length === 1 ? holding[0] : undefined;
  }

  /** True once `name` is BACKUP and hears `masterAddress` (keepalived's data dump). */
  async hears(name: AmphoraName, masterAddress: string): Promise<boolean> {
    const dump = await this.daemons.get(name)!.dump();
    return /State = BACKUP/.test(dump) && dump.includes(`Master router = ${masterAddress}\n`);
  }

  /** The amphora dies: keepalived SIGKILLed (no goodbye advert), then its link goes down. */
  async kill(name: AmphoraName): Promise<void> {
    await this.daemons.get(name)!.kill();
    this.daemons.delete(name);
    await must(this.lab, this.lab.vmCommand(name, ['ip', 'link', 'set', 'eth0', 'down']));
  }

  /**
   * The dead amphora comes back as a BACKUP (nopreempt keeps the new master): its leftover VIP
   * removed, the link up with its default route (a link down drops it), keepalived started.
   */
  async revive(name: AmphoraName, setting: VrrpSetting): Promise<void> {
    const inVm = (argv: string[]) => this.lab.vmCommand(name, argv);
    await this.lab.exec(inVm(['ip', 'addr', 'del', `${VIP}/32`, 'dev', 'eth0']));
    await must(this.lab, inVm(['ip', 'link', 'set', 'eth0', 'up']));
    await must(this.lab, inVm(['ip', 'route', 'replace', 'default', 'via', '10.1.0.1', 'dev', 'eth0']));
    this.daemons.set(name, await this.lab.startKeepalived(name, this.vrrp(name, setting)));
  }

  async stop(): Promise<void> {
    for (const daemon of this.daemons.values()) await daemon.stop();
    this.daemons.clear();
    for (const watch of Object.values(this.garps)) await watch.stop();
  }
}

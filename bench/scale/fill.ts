/**
 * Fills octonet with `ports` ports in networks of `perNetwork` (one /24 subnet each), bulk-created
 * `BULK` a request, each with a device_id of its own: the scale benches' data set.
 */
import type { NeutronApi } from '../ovn/neutron-api.js';
import { now } from '../ovn/stats.js';

export const BULK = 500;

export async function fill(api: NeutronApi, ports: number, perNetwork: number, progress: (l: string) => void) {
  const networks: string[] = [];
  const devices: string[] = [];
  const batches: number[] = [];
  await api.call('PUT', '/v2.0/quotas/fake_project_id', { quota: { port: -1, network: -1, subnet: -1 } });
  const started = now();
  for (let n = 0; n * perNetwork < ports; n++) {
    const network = await api.createNetwork(`scale-${n}`);
    // 10.(n / 256).(n % 256).0/24 holds the network's 100 ports and its DHCP port.
    await api.createSubnet(network, `10.${Math.floor(n / 256)}.${n % 256}.0/24`);
    networks.push(network);
    const count = Math.min(perNetwork, ports - n * perNetwork);
    for (let done = 0; done < count; done += BULK) {
      const batch = Array.from({ length: Math.min(BULK, count - done) }, (_, i) => {
        const device = `dev-${n}-${done + i}`;
        devices.push(device);
        return { network_id: network, device_id: device, device_owner: 'compute:nova' };
      });
      const t = now();
      await api.createPorts(batch);
      batches.push(now() - t);
    }
    if ((n + 1) % 100 === 0) progress(`${devices.length}/${ports} ports in ${n + 1} networks`);
  }
  return { networks, devices, batches, seconds: (now() - started) / 1000 };
}

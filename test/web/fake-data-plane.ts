/**
 * A FAKE mechanism driver standing in for OVN where no lab runs: it binds every port on any host
 * (so the status watcher's `reportPortUp` can make a port ACTIVE, as with OVN), and reports VIP
 * holders and data-plane changes that a test sets. Only what the topology page reads; the real
 * OVN driver is exercised by the lab test.
 */
import type { MechanismDriver, VirtualPortHolder } from '../../src/drivers/contract.js';

export class FakeDataPlane implements MechanismDriver {
  readonly name = 'fake-data-plane';
  private readonly holders = new Map<string, VirtualPortHolder>();
  private readonly listeners = new Set<() => void>();

  bindPort() {
    return { vifType: 'ovs', vifDetails: {} };
  }

  virtualPortHolders(): ReadonlyMap<string, VirtualPortHolder> {
    return this.holders;
  }

  watchDataPlane(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The VIP `vipPortId` is now held by `parent` on `host`, as OVN's SB would say. */
  hold(vipPortId: string, parent: string, host: string): void {
    this.holders.set(vipPortId, { parent, host });
    for (const listener of this.listeners) listener();
  }
}

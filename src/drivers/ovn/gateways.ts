/**
 * Router gateways as the driver runs them: which chassis a gateway goes to (`gateway-scheduler.ts`
 * fed with the SB chassis and the NB's current placement), rescheduling when chassis come, go or
 * change their gateway settings, and the `l3-agents` view of a router (its gateway chassis by
 * priority, with the chassis that holds the gateway now).
 */
import type { NetworkState, RouterState } from '../host.js';
import type { ChassisAgents } from './status/chassis-agents.js';
import { scheduleGateway } from './gateway-scheduler.js';
import type { NbView } from './nb-view.js';
import type { RowChange, SbTables } from './ovsdb/index.js';
import { logicalRouterName } from './router-mapping.js';

export interface RouterGatewaysDeps {
  readonly nbView: () => NbView;
  readonly chassis: ChassisAgents;
  readonly reconcileRouter: (routerId: string) => Promise<unknown>;
  readonly stopped: () => boolean;
}

export class RouterGateways {
  private rescheduling: NodeJS.Immediate | undefined;

  constructor(private readonly deps: RouterGatewaysDeps) {}

  schedule(router: RouterState, external: NetworkState | undefined, current: readonly string[]): string[] {
    const nb = this.deps.nbView();
    const load = new Map<string, number>();
    for (const lr of nb.logicalRouters()) {
      const top = nb.gatewayChassisOf(lr.name)[0];
      if (top && lr.name !== logicalRouterName(router.id)) load.set(top, (load.get(top) ?? 0) + 1);
    }
    return scheduleGateway({
      candidates: this.deps.chassis.gatewayCandidates(),
      physnet: external?.['provider:physical_network'] ?? null,
      azHints: router.availability_zone_hints,
      pinned: router.l3_agents,
      current,
      load,
    });
  }

  /** Chassis came, went or changed their gateway settings: routers with gateways are rescheduled. */
  onSbChanges(changes: readonly RowChange<SbTables>[]): void {
    const chassisChanged = changes.some(
      (c) =>
        c.table === 'Chassis' &&
        (c.kind !== 'modify' || JSON.stringify(c.row?.other_config) !== JSON.stringify(c.old?.other_config)),
    );
    if (!chassisChanged || this.rescheduling || this.deps.stopped()) return;
    this.rescheduling = setImmediate(() => {
      this.rescheduling = undefined;
      for (const name of this.deps.nbView().routersWithGateway()) {
        if (name.startsWith('neutron-'))
          void this.deps.reconcileRouter(name.slice('neutron-'.length)).catch(() => undefined);
      }
    });
  }

  /** The router's gateway chassis as agents, by priority, marking the chassis that holds the gateway now. */
  async l3AgentsOfRouter(routerId: string): Promise<Record<string, unknown>[]> {
    const nb = this.deps.nbView();
    const name = logicalRouterName(routerId);
    const priorities = new Map(nb.gatewayPriorities(name).map((row) => [row.chassis_name, row.priority]));
    if (priorities.size === 0) return [];
    const gatewayPort = nb.gatewayPortOf(name);
    const active = gatewayPort
      ? this.deps.chassis.activeChassisOfGateway(gatewayPort.name.slice('lrp-'.length))
      : undefined;
    const agents = await this.deps.chassis.provider.listAgents();
    return agents
      .flatMap((agent) => {
        // An agent's id is its chassis name; only the gateway's chassis are listed.
        const priority = typeof agent.id === 'string' ? priorities.get(agent.id) : undefined;
        if (priority === undefined) return [];
        return [{ ...agent, ha_chassis_priority: priority, ha_state: agent.id === active ? 'active' : 'standby' }];
      })
      .sort((a, b) => b.ha_chassis_priority - a.ha_chassis_priority);
  }
}

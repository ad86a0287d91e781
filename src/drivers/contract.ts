/**
 * The mechanism-driver contract, after ML2's `MechanismDriver`: for every resource and operation a
 * driver may implement a precommit hook (inside the database transaction) and a postcommit hook
 * (after commit). Drivers receive `{current, original}` as typed states (`host.ts`), one kind per
 * `resource`, built once by core from what the API returns; never database rows.
 *
 * Core keeps the contract in one place (`writeTransaction` in `core/deps.ts`); services only
 * return the contexts of what they wrote.
 * - `precommit`: runs inside the transaction after the writes, drivers in order, must not block
 *   on I/O, and may throw to roll the whole request back (the client sees the error). A
 *   transaction retried on a conflict runs it again.
 * - `postcommit`: runs after commit, drivers in order, and may block (the OVN driver writes NB
 *   here). A failure is logged and does not undo the request or stop the next driver. The
 *   database is the truth, so the driver's next level-triggered pass repairs it from
 *   `DriverHost.reader` (the OVN driver: drift seen by the NB monitor at once, and the full pass
 *   at start, on reconnect and every `ovn.full_sync_interval` seconds).
 */
import type { RequestContext } from '../core/context.js';
import type { View } from '../core/resource.js';
import type {
  DriverHost,
  FloatingIpState,
  NetworkState,
  PortState,
  QosPolicyState,
  RouterState,
  SecurityGroupRuleState,
  SecurityGroupState,
  SubnetState,
} from './host.js';

/** What a driver receives for each kind of resource: the typed state of `host.ts`. */
export interface DriverStates {
  readonly network: NetworkState;
  readonly subnet: SubnetState;
  readonly port: PortState;
  readonly security_group: SecurityGroupState;
  readonly security_group_rule: SecurityGroupRuleState;
  /** A router's own attributes, gateway and routes; its interfaces arrive as port events too. */
  readonly router: RouterState;
  readonly floatingip: FloatingIpState;
  /** A QoS policy whose rules changed (its ports' QoS follows). */
  readonly qos_policy: QosPolicyState;
}
export type DriverResource = keyof DriverStates;
export type DriverOperation = 'create' | 'update' | 'delete';

/** One resource's write as drivers see it; `ResourceContext` is the union over every kind. */
export interface ResourceContextOf<R extends DriverResource> {
  readonly resource: R;
  readonly operation: DriverOperation;
  readonly request: RequestContext;
  /** The resource after the operation; for a delete, as it was. */
  readonly current: DriverStates[R];
  /** The resource before an update; undefined for create and delete. */
  readonly original?: DriverStates[R];
}

/** Discriminated by `resource`: `switch (context.resource)` narrows `current` and `original`. */
export type ResourceContext = { [R in DriverResource]: ResourceContextOf<R> }[DriverResource];

/** What a driver that can bind a port on its host answers (ML2's `set_binding`). */
export interface PortBinding {
  readonly vifType: string;
  readonly vifDetails: Readonly<Record<string, unknown>>;
}

/**
 * Agents a driver reports (ML2/OVN synthesises them from the SB chassis). Views are in the API's
 * shape; ids are the driver's.
 */
export interface AgentProvider {
  listAgents(): Promise<View[]>;
  /** Sets the agent's description; false when there is no such agent. */
  describeAgent(id: string, description: string): Promise<boolean>;
  /** Forgets a (dead) agent; false when there is no such agent. */
  deleteAgent(id: string): Promise<boolean>;
  /**
   * The gateway agents hosting a router's gateway (`GET /v2.0/routers/<id>/l3-agents`), each with
   * its `ha_chassis_priority` and `ha_state` (`active` where the gateway runs now, else `standby`).
   */
  l3AgentsOfRouter?(routerId: string): Promise<View[]>;
}

/** Where a virtual port (a load balancer's VIP) is held now: the chassis host and the parent port. */
export interface VirtualPortHolder {
  readonly host: string;
  readonly parent: string;
}

/** One dependency a driver needs to serve (`GET /readyz`): an OVN connection, the NB's ownership. */
export interface DependencyCheck {
  readonly name: string;
  readonly ready: boolean;
  /** What an operator reads: the remote it uses, or why it is not ready. */
  readonly detail: string;
}

export interface MechanismDriver {
  readonly name: string;
  /** What this driver depends on, and whether each is usable now (no I/O). */
  readiness?(): DependencyCheck[];
  /** Connects to whatever the driver drives, with core's reader and callbacks; awaited at start. */
  start?(host: DriverHost): Promise<void>;
  /** Ends its connections and timers; awaited at shutdown. */
  stop?(): Promise<void>;
  /** Present when the driver reports agents (`GET /v2.0/agents`). */
  readonly agents?: AgentProvider;
  /**
   * Binds a port to `binding:host_id` when this driver serves that host (inside the transaction;
   * no I/O). Undefined means "not mine"; when no driver binds, the port is `binding_failed`.
   */
  bindPort?(port: PortState): PortBinding | undefined;
  /** Virtual ports held right now, by port id (from the data plane; no I/O). */
  virtualPortHolders?(): ReadonlyMap<string, VirtualPortHolder>;
  /**
   * Calls `listener` (no arguments, must not block) whenever the data plane changes in a way that
   * writes nothing to the database (a chassis, a gateway's active chassis); returns the unsubscribe.
   */
  watchDataPlane?(listener: () => void): () => void;
  /**
   * The database answers again after an outage (must not block): writes whose postcommit failed
   * while it was away can be retried now rather than at the next periodic pass.
   */
  databaseRecovered?(): void;
  /** Inside the transaction; no I/O; throwing rolls back. */
  precommit?(context: ResourceContext): void;
  /** After commit; may block; must not throw for anything a repair pass can fix. */
  postcommit?(context: ResourceContext): Promise<void>;
}

/** Runs the registered drivers in order for each hook (deletes too, as ML2 does for postcommit). */
export class DriverManager {
  private readonly changeListeners = new Set<() => void>();

  constructor(private readonly drivers: readonly MechanismDriver[] = []) {}

  /**
   * Calls `listener` after each committed write's postcommit (API writes and the status reports
   * alike) and on the drivers' own data-plane changes; returns the unsubscribe. The topology
   * page's live updates hang here; a listener must not block or throw.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    const unwatch = this.drivers.map((driver) => driver.watchDataPlane?.(listener));
    return () => {
      this.changeListeners.delete(listener);
      for (const stop of unwatch) stop?.();
    };
  }

  /** Every driver's dependency checks, in registration order. */
  readiness(): DependencyCheck[] {
    return this.drivers.flatMap((driver) => driver.readiness?.() ?? []);
  }

  async start(host: DriverHost): Promise<void> {
    for (const driver of this.drivers) await driver.start?.(host);
  }

  async stop(): Promise<void> {
    for (const driver of [...this.drivers].reverse()) await driver.stop?.();
  }

  /** The first driver's agents, if any driver reports agents. */
  get agents(): AgentProvider | undefined {
    return this.drivers.find((d) => d.agents)?.agents;
  }

  /** Virtual ports held right now, from every driver that knows. */
  virtualPortHolders(): Map<string, VirtualPortHolder> {
    const held = new Map<string, VirtualPortHolder>();
    for (const driver of this.drivers)
      for (const [id, holder] of driver.virtualPortHolders?.() ?? []) held.set(id, holder);
    return held;
  }

  precommit(context: ResourceContext): void {
    for (const driver of this.drivers) driver.precommit?.(context);
  }

  /** Tells every driver that the database is back after an outage. */
  databaseRecovered(): void {
    for (const driver of this.drivers) driver.databaseRecovered?.();
  }

  /**
   * The binding of a port after a create or update: `unbound` without a host, the first driver's
   * binding with one, `binding_failed` when no driver takes the host (as ML2 reports it).
   */
  bindPort(port: PortState): PortBinding {
    if (!port['binding:host_id']) return { vifType: 'unbound', vifDetails: {} };
    for (const driver of this.drivers) {
      const binding = driver.bindPort?.(port);
      if (binding) return binding;
    }
    return { vifType: 'binding_failed', vifDetails: {} };
  }

  /** Never throws: a driver's failure after commit is its own to repair. */
  async postcommit(context: ResourceContext, onError: (driver: string, error: unknown) => void): Promise<void> {
    for (const driver of this.drivers) {
      try {
        await driver.postcommit?.(context);
      } catch (error) {
        onError(driver.name, error);
      }
    }
    for (const listener of this.changeListeners) listener();
  }
}

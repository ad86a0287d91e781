/**
 * The mechanism-driver contract, after ML2's `MechanismDriver`: for every resource and operation a
 * driver may implement a precommit hook (inside the database transaction) and a postcommit hook
 * (after commit). Drivers receive `{current, original}` views, never database rows.
 *
 * - `precommit`: runs inside the transaction, must not block on I/O, and may throw to roll the
 *   whole request back (the client sees the error).
 * - `postcommit`: runs after commit and may block (the OVN driver writes NB here). A failure does
 *   not undo the request; the driver must record the resource for repair instead.
 */
import type { RequestContext } from '../core/context.js';
import type { View } from '../core/resource.js';

export type DriverResource = 'network' | 'subnet' | 'port' | 'security_group' | 'security_group_rule';
export type DriverOperation = 'create' | 'update' | 'delete';

export interface ResourceContext {
  readonly resource: DriverResource;
  readonly operation: DriverOperation;
  readonly request: RequestContext;
  /** The resource after the operation; for a delete, as it was. */
  readonly current: View;
  /** The resource before an update; undefined for create and delete. */
  readonly original?: View;
}

export interface MechanismDriver {
  readonly name: string;
  /** Inside the transaction; no I/O; throwing rolls back. */
  precommit?(context: ResourceContext): void;
  /** After commit; may block; must not throw for anything a repair pass can fix. */
  postcommit?(context: ResourceContext): Promise<void>;
}

/** Runs the registered drivers in order for each hook (deletes too, as ML2 does for postcommit). */
export class DriverManager {
  constructor(private readonly drivers: readonly MechanismDriver[] = []) {}

  precommit(context: ResourceContext): void {
    for (const driver of this.drivers) driver.precommit?.(context);
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
  }
}

/**
 * One owner per NB: the NB an octonet deployment writes carries its database's identity in
 * `NB_Global.external_ids:octonet:deployment_id`. Every replica sharing the database has the same
 * identity and writes freely; an octonet whose database has another identity finds someone else's
 * mark, refuses every NB write, says why once in the log and in `/readyz`, and never repairs
 * anything (two deployments on one NB would otherwise undo each other's writes forever).
 *
 * An NB without a mark (new, or recreated empty) is claimed atomically (`mutate insert` adds the
 * key only where it is absent). Taking over a marked NB is deliberate: `ovn.nb_takeover` replaces
 * someone else's mark once, at this process's first check (e.g. after `octonet import` moved a
 * deployment to a new database); a mark that changes later is obeyed, not fought.
 *
 * This module owns the mark and the decision; `NbSync` asks `mayWrite()` before every NB write.
 */
import type { Logger } from 'pino';
import type { DependencyCheck } from '../contract.js';
import type { NbTables, Operation, OvsdbClient, RowChange } from './ovsdb/index.js';

export const NB_OWNER_KEY = 'octonet:deployment_id';

/** Thrown instead of writing to an NB that another deployment owns (or that is not checked yet). */
export class NbNotOwned extends Error {
  override name = 'NbNotOwned';
}

type OwnerState =
  { readonly kind: 'unchecked' } | { readonly kind: 'owned' } | { readonly kind: 'refused'; readonly owner: string };

export interface NbOwnershipOptions {
  readonly nb: OvsdbClient<NbTables>;
  /** This deployment's identity (its database's, `store/identity.ts`). */
  readonly deploymentId: string;
  /** Replace another deployment's mark at the first check (`ovn.nb_takeover`). */
  readonly takeover: boolean;
  readonly logger: Logger;
  /** Told when a refused NB becomes ours while connected (its mark removed): it needs a full pass. */
  readonly onOwned: () => void;
}

export class NbOwnership {
  private state: OwnerState = { kind: 'unchecked' };
  private checking: Promise<void> = Promise.resolve();
  private takeoverDone = false;
  /** The foreign owner last logged, so a refusal is said once, not at every reconnect. */
  private refusalLogged: string | undefined;

  constructor(private readonly options: NbOwnershipOptions) {}

  /** Whether NB writes are allowed now. */
  mayWrite(): boolean {
    return this.state.kind === 'owned';
  }

  /** The connection is gone: what the next session finds there decides again. */
  forget(): void {
    this.state = { kind: 'unchecked' };
  }

  /** Checks (and claims, where unmarked) the NB; runs after every NB sync. Never rejects. */
  check(): Promise<void> {
    this.checking = this.checking.then(() =>
      this.checkNow().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'could not check the OVN NB owner mark; checking again on reconnect'),
      ),
    );
    return this.checking;
  }

  /** NB monitor changes: someone changing the mark is noticed at once. */
  onNbChanges(changes: readonly RowChange<NbTables>[]): void {
    const markChanged = changes.some(
      (c) =>
        c.table === 'NB_Global' &&
        (c.kind !== 'modify' || c.old?.external_ids?.[NB_OWNER_KEY] !== c.row?.external_ids?.[NB_OWNER_KEY]),
    );
    if (markChanged) void this.check();
  }

  readiness(): DependencyCheck {
    const { deploymentId } = this.options;
    const name = 'ovn_nb_owner';
    switch (this.state.kind) {
      case 'unchecked':
        return { name, ready: false, detail: 'not checked yet: the NB has not been reached' };
      case 'owned':
        return { name, ready: true, detail: `owned by this deployment (${deploymentId})` };
      case 'refused':
        return { name, ready: false, detail: this.refusalReason(this.state.owner) };
    }
  }

  private refusalReason(owner: string): string {
    return (
      `the NB belongs to another octonet deployment (NB_Global external_ids ${NB_OWNER_KEY}=${owner}; ` +
      `this database's identity is ${this.options.deploymentId}): not writing to it. ` +
      'Point this deployment at its own NB, or set ovn.nb_takeover (--ovn-nb-takeover) for one start ' +
      'to take this NB over deliberately'
    );
  }

  private async checkNow(): Promise<void> {
    const { nb, deploymentId } = this.options;
    if (!nb.connected) return;
    const global = [...nb.replica.table('NB_Global').values()][0];
    const mark = global?.external_ids[NB_OWNER_KEY];
    if (mark === deploymentId) return this.become({ kind: 'owned' });
    if (mark !== undefined && !(this.options.takeover && !this.takeoverDone)) {
      return this.become({ kind: 'refused', owner: mark });
    }
    const claimed = await this.writeMark(global?._uuid, mark);
    if (mark !== undefined && claimed === deploymentId) {
      this.takeoverDone = true;
      this.options.logger.warn(
        { previous_owner: mark, deployment_id: deploymentId },
        'OVN NB taken over from another octonet deployment (ovn.nb_takeover); it is no longer written by that one',
      );
    }
    this.become(claimed === deploymentId ? { kind: 'owned' } : { kind: 'refused', owner: claimed ?? '(none)' });
  }

  /**
   * Writes our mark (replacing `previous` when taking over) and reads back what the NB holds: when
   * two deployments claim a new NB at once, `mutate insert` lets only the first one's key in.
   */
  private async writeMark(uuid: string | undefined, previous: string | undefined): Promise<string | undefined> {
    const { nb, deploymentId } = this.options;
    const mark = { [NB_OWNER_KEY]: deploymentId };
    if (uuid === undefined) {
      // No NB_Global at all (the NB was never initialised): create it, marked. Its schema allows one.
      await nb.transact([{ op: 'insert', table: 'NB_Global', row: { external_ids: mark } }]);
      return deploymentId;
    }
    const where = [['_uuid', '==', uuid]] as const;
    const ops: Operation[] = [
      ...(previous !== undefined
        ? [
            {
              op: 'mutate',
              table: 'NB_Global',
              where,
              mutations: [['external_ids', 'delete', [NB_OWNER_KEY]]],
            } as const,
          ]
        : []),
      { op: 'mutate', table: 'NB_Global', where, mutations: [['external_ids', 'insert', mark]] },
      { op: 'select', table: 'NB_Global', where, columns: ['external_ids'] },
    ];
    const results = await nb.transact(ops);
    const row = results.at(-1)?.rows?.[0] as { external_ids?: Record<string, string> } | undefined;
    return row?.external_ids?.[NB_OWNER_KEY];
  }

  private become(next: OwnerState): void {
    const before = this.state;
    this.state = next;
    const { logger, deploymentId } = this.options;
    if (next.kind === 'refused') {
      if (this.refusalLogged === next.owner) return;
      this.refusalLogged = next.owner;
      logger.error({ nb_owner: next.owner, deployment_id: deploymentId }, this.refusalReason(next.owner));
      return;
    }
    if (next.kind === 'owned' && before.kind !== 'owned') {
      this.refusalLogged = undefined;
      logger.info({ deployment_id: deploymentId }, 'OVN NB owned by this deployment');
      // After a sync the caller runs the full pass itself; this is for a mark changed in between.
      if (before.kind === 'refused') this.options.onOwned();
    }
  }
}

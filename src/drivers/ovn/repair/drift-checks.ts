/**
 * The drift checks of the per-resource repair: for each resource octonet wrote, whether the NB
 * still holds what it last wrote, answered from the NB replica alone (no database read).
 *
 * A check starts as the plan that would bring the resource back to its desired rows (a closure
 * over them). A port's plan is kept only until the NB is seen to match it (right after the write
 * that carried it, or at once when nothing needed writing); from then on the check is a digest of
 * the port's rows as the NB holds them, and any change to those rows is drift to look at. At
 * 100,000 ports the desired rows cost about 1.8 KiB a port; a digest is one number. The few other
 * resources (networks, subnets, groups, routers) keep their plans.
 *
 * What a port's digest covers is everything its plan reads back (`planPort`, `planPortQos`): its
 * LSP but for `up` (OVN's, not ours), the switch and the groups holding it, and its own DHCP and
 * QoS rows. A row the plan would change therefore changes the digest; the reverse (a change the
 * plan would accept) costs one reconcile from the database, which finds nothing to write.
 */
import type { NbView } from '../nb-view.js';
import type { Plan } from '../planner.js';
import { parseKey, type ResourceKey } from './resource-key.js';

export class DriftChecks {
  /** Checks still held as plans: every resource but ports, and ports not yet seen in line. */
  private readonly plans = new Map<ResourceKey, () => Plan>();
  /** Port id (the replica's own string where it has one) → digest of its rows when in line. */
  private readonly digests = new Map<string, number>();
  /** Ports whose plan waits for the write that carries it to be answered (`settle`). */
  private unsettled: ResourceKey[] = [];
  /** How many keys ever left `unsettled` (so that a mark stays valid as it shrinks). */
  private settledCount = 0;

  constructor(private readonly nb: NbView) {}

  /**
   * Keeps `plan` as the resource's check. `inSync`: the plan was just found to need no write, so a
   * port's check can become its digest now.
   */
  remember(key: ResourceKey, plan: () => Plan, inSync = false): void {
    const { kind, id } = parseKey(key);
    if (kind !== 'port') {
      this.plans.set(key, plan);
      return;
    }
    if (inSync) {
      this.plans.delete(key);
      this.keepDigest(id);
      return;
    }
    this.digests.delete(id);
    this.plans.set(key, plan);
    this.unsettled.push(key);
  }

  /** Drops a resource's check (it is gone from the database). */
  forget(key: ResourceKey): void {
    this.plans.delete(key);
    const { kind, id } = parseKey(key);
    if (kind === 'port') this.digests.delete(id);
  }

  /** Whether the NB holds what was last written for the resource; false when nothing was. */
  isInSync(key: ResourceKey): boolean {
    const { kind, id } = parseKey(key);
    const plan = this.plans.get(key);
    if (plan) {
      if (plan().ops.length > 0) return false;
      if (kind === 'port') {
        this.plans.delete(key);
        this.keepDigest(id);
      }
      return true;
    }
    if (kind !== 'port') return false;
    const digest = this.digests.get(id);
    return digest !== undefined && digest === portDigest(this.nb, id);
  }

  /** A mark for `settle`: the ports remembered so far. */
  mark(): number {
    return this.settledCount + this.unsettled.length;
  }

  /**
   * After a write was answered: the ports remembered before it was sent (`mark`) are written by
   * now, so those the NB shows in line keep a digest instead of their plan. A port whose rows the
   * replica does not show yet keeps its plan; the NB monitor's next change for it decides.
   */
  settle(mark: number): void {
    const count = Math.min(mark - this.settledCount, this.unsettled.length);
    if (count <= 0) return;
    const keys = this.unsettled.slice(0, count);
    this.unsettled = this.unsettled.slice(count);
    this.settledCount += count;
    for (const key of keys) if (this.plans.has(key)) this.isInSync(key);
  }

  /** Checks held as plans and as digests (for tests and logs). */
  sizes(): { plans: number; digests: number } {
    return { plans: this.plans.size, digests: this.digests.size };
  }

  private keepDigest(portId: string): void {
    // The replica's copy of the id, not the key's slice (which would keep the whole key alive).
    const id = this.nb.switchPort(portId)?.name ?? portId;
    this.digests.set(id, portDigest(this.nb, id));
  }
}

/** A 53-bit digest of what the NB holds for a port (see the head comment for what it covers). */
export function portDigest(nb: NbView, portId: string): number {
  const lsp = nb.switchPort(portId);
  const parts: unknown[] = [];
  if (lsp) {
    const { up: _up, ...owned } = lsp;
    parts.push(
      owned,
      nb.switchOf(lsp._uuid)?.name ?? null,
      nb
        .groupsOfPort(lsp._uuid)
        .map((group) => group.name)
        .sort(),
    );
  }
  for (const row of nb.portDhcp(portId)) parts.push(row);
  for (const row of nb.portQos(portId)) parts.push(row, nb.switchOfQos(row._uuid)?.name ?? null);
  return hash53(parts.map(canonical).join('\n'));
}

/** JSON with set elements and map keys sorted (the replica keeps them in arrival order). */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
    .join(',')}}`;
}

/** Two 32-bit FNV-1a hashes (different offsets) folded into the 53 bits a number holds exactly. */
function hash53(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

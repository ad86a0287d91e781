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

/**
 * A 53-bit digest of what the NB holds for a port (see the head comment for what it covers).
 *
 * Computed without building text: each value is hashed where it lies, sets and maps (and a
 * row's columns) as the sum of their elements' hashes, so that the order the replica keeps them
 * in (arrival order) does not matter and nothing is sorted. At 100,000 ports the digests of the
 * full OVN pass cost 5-6 s of CPU when they were canonical JSON text, sorted and then hashed.
 */
export function portDigest(nb: NbView, portId: string): number {
  const digest = new Digest();
  const lsp = nb.switchPort(portId);
  if (lsp) {
    digest.add(lsp, 'up');
    digest.add(nb.switchOf(lsp._uuid)?.name ?? null);
    digest.add(nb.groupsOfPort(lsp._uuid).map((group) => group.name));
  }
  for (const row of nb.portDhcp(portId)) digest.add(row);
  for (const row of nb.portQos(portId)) {
    digest.add(row);
    digest.add(nb.switchOfQos(row._uuid)?.name ?? null);
  }
  return digest.value();
}

/** murmur3's 32-bit finalizer: every input bit reaches every output bit. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Tags that keep values of different kinds apart (a string "null" from null, a set from a map). */
const enum Kind {
  Null = 0x6e756c6c,
  True = 0x74727565,
  False = 0x66616c73,
  Text = 0x74657874,
  Number = 0x6e756d62,
  Set = 0x73657421,
  Map = 0x6d617021,
}

/** Two 32-bit lanes of an ordered sequence of values (`add`), folded into 53 bits by `value`. */
class Digest {
  private a = 0x811c9dc5;
  private b = 0x050c5d1f;
  /** The lanes of the last `hash`. */
  private lo = 0;
  private hi = 0;

  /** Adds one value in sequence; `skipKey`: a key of an object to leave out (the LSP's `up`). */
  add(value: unknown, skipKey?: string): void {
    this.hash(value, skipKey);
    this.a = mix(this.a ^ this.lo);
    this.b = mix((this.b + this.hi) | 0);
  }

  value(): number {
    return this.a * 0x200000 + (this.b & 0x1fffff);
  }

  private hash(value: unknown, skipKey?: string): void {
    if (value === null || value === undefined) return this.tagged(Kind.Null, Kind.Null);
    if (typeof value === 'string') return this.text(value, Kind.Text);
    if (typeof value === 'number') return this.text(String(value), Kind.Number);
    if (typeof value === 'boolean') return value ? this.tagged(Kind.True, 1) : this.tagged(Kind.False, 0);
    if (Array.isArray(value)) {
      let sumLo = value.length;
      let sumHi = 0;
      for (const element of value) {
        this.hash(element);
        sumLo = (sumLo + mix(this.lo)) | 0;
        sumHi = (sumHi + mix(this.hi ^ 0x5bd1e995)) | 0;
      }
      return this.tagged(Kind.Set ^ sumLo, sumHi);
    }
    let sumLo = 0;
    let sumHi = 0;
    const record = value as Record<string, unknown>;
    for (const key in record) {
      if (key === skipKey) continue;
      this.text(key, Kind.Text);
      const keyLo = this.lo;
      const keyHi = this.hi;
      this.hash(record[key]);
      // Key and value bound together (not commutative), the pairs summed (any order).
      sumLo = (sumLo + mix(keyLo ^ Math.imul(this.lo, 0x9e3779b1))) | 0;
      sumHi = (sumHi + mix((keyHi + Math.imul(this.hi, 0x85ebca77)) | 0)) | 0;
    }
    return this.tagged(Kind.Map ^ sumLo, sumHi);
  }

  /** FNV-1a over the characters, in two lanes with different offsets, seeded by the kind. */
  private text(text: string, kind: Kind): void {
    let a = 0x811c9dc5 ^ kind;
    let b = 0x050c5d1f ^ text.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
    }
    this.lo = mix(a);
    this.hi = mix(b);
  }

  private tagged(lo: number, hi: number): void {
    this.lo = mix(lo);
    this.hi = mix(hi ^ 0x27d4eb2f);
  }
}

/**
 * The JSON text of ports' whole views (every attribute, as an admin sees them), kept between
 * list requests so that a list of unchanged ports reads only their ids and versions and writes the
 * texts it already has, instead of reading 27 columns and every child row per port, building the
 * view and serialising it again.
 *
 * A text is valid for one version of the port (`PortVersion`): its `revision_number`, which every
 * change of what the view shows from the port's own rows bumps (its row, fixed IPs, address
 * pairs, extra DHCP options, security groups, tags, QoS binding, binding, status; see the test
 * test/api/port-lists.test.ts), and the QoS policy of its network (`qos_network_policy_id`),
 * the one attribute taken from another row. The rest of the view depends only on those rows and
 * on this process's configuration (`dns_assignment` uses the configured DNS domain). Versions are
 * read from the database on every list, so replicas sharing it stay right.
 *
 * Texts are kept as UTF-8 bytes: a response is their concatenation (one copy), where a string
 * body would be joined, flattened and encoded again on every request, and the 1 MB strings of a
 * long list kept the garbage collector busy.
 *
 * Bounded in bytes, least recently used out first, on a linked list: every step is O(1). (The LRU
 * on a Map's insertion order found the entry to evict by iterating from the Map's front, where
 * V8 leaves the slots of deleted entries until it rehashes: once the cache was full, as in a walk
 * of 100,000 ports, every eviction could cross thousands of them.)
 */
import type { PortVersion } from '../../store/ports.js';
import type { RequestContext } from '../context.js';
import type { ListQuery } from '../list-query.js';

interface Entry {
  readonly id: string;
  readonly revision: number;
  readonly netQos: string | null;
  readonly text: Buffer;
  readonly bytes: number;
  /** Neighbours in recency order: `older` towards the next to go. */
  older: Entry | undefined;
  newer: Entry | undefined;
}

/** About what an entry costs besides its text: the map slot, the entry, the buffer, the id string. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * 16 MiB: about 16,000 ports' views, ten times the shared bench's list. At 100,000 ports a cache
 * of 32 MiB held 40 % of them, so random filtered lists still mostly missed, and the API server's
 * RSS in bench:scale's read phase was 358 MiB (238 MiB at 16 MiB; single runs, noisy).
 */
export const DEFAULT_VIEW_CACHE_BYTES = 16 * 1024 * 1024;

export class PortViewCache {
  private readonly entries = new Map<string, Entry>();
  private oldest: Entry | undefined;
  private newest: Entry | undefined;
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_VIEW_CACHE_BYTES) {}

  /** The text of exactly this version, or undefined. */
  get(version: PortVersion): Buffer | undefined {
    const entry = this.entries.get(version.id);
    if (!entry || entry.revision !== version.revision_number || entry.netQos !== version.net_qos) return undefined;
    if (entry !== this.newest) {
      this.unlink(entry);
      this.append(entry);
    }
    return entry.text;
  }

  /** Keeps `text` as the view of `version`, replacing the port's older one; returns it as bytes. */
  set(version: PortVersion, text: string): Buffer {
    const length = Buffer.byteLength(text);
    const buffer = Buffer.allocUnsafeSlow(length);
    buffer.write(text);
    const old = this.entries.get(version.id);
    if (old) this.remove(old);
    const bytes = length + version.id.length + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.maxBytes) return buffer;
    const entry: Entry = {
      id: version.id,
      revision: version.revision_number,
      netQos: version.net_qos,
      text: buffer,
      bytes,
      older: undefined,
      newer: undefined,
    };
    this.entries.set(entry.id, entry);
    this.bytes += bytes;
    this.append(entry);
    while (this.bytes > this.maxBytes && this.oldest) this.remove(this.oldest);
    return buffer;
  }

  private remove(entry: Entry): void {
    this.unlink(entry);
    this.entries.delete(entry.id);
    this.bytes -= entry.bytes;
  }

  private unlink(entry: Entry): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = entry.newer = undefined;
  }

  private append(entry: Entry): void {
    entry.older = this.newest;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  /** Entries and bytes held (for tests and figures). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

/** A list as whole views' JSON texts (UTF-8), in list order, with their ids (for pagination links). */
export interface ListedTexts {
  readonly ids: readonly string[];
  readonly texts: readonly Buffer[];
}

/** A service that can answer some lists as texts (undefined: not this caller or query). */
export interface ListsAsTexts {
  listTexts(ctx: RequestContext, query: ListQuery): Promise<ListedTexts | undefined>;
}

/** A service that can answer some shows as a text (undefined: not this caller). */
export interface ShowsAsText {
  showText(ctx: RequestContext, id: string): Promise<Buffer | undefined>;
}

export function showsAsText(service: object): service is ShowsAsText {
  return typeof (service as Partial<ShowsAsText>).showText === 'function';
}

export function listsAsTexts(service: object): service is ListsAsTexts {
  return typeof (service as Partial<ListsAsTexts>).listTexts === 'function';
}

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
 * Bounded in bytes by two generations (each at most half): new and used entries go to the young
 * one; when it is full it becomes the old one and the old one is dropped whole. Every step is
 * O(1): an exact LRU on a Map scanned its front for the entry to evict, and once the cache was
 * full (a walk of 100,000 ports) the scan crossed every deleted slot left there.
 */
import type { PortVersion } from '../../store/ports.js';
import type { RequestContext } from '../context.js';
import type { ListQuery } from '../list-query.js';

interface Entry {
  readonly revision: number;
  readonly netQos: string | null;
  readonly text: Buffer;
  readonly bytes: number;
}

/** About what an entry costs besides its text: the map slot, the entry, the buffer, the id string. */
const ENTRY_OVERHEAD_BYTES = 240;

/**
 * 16 MiB: about 16,000 ports' views, ten times the shared bench's list. At 100,000 ports a cache
 * of 32 MiB held 40 % of them, so random filtered lists still mostly missed, and the API server's
 * RSS in bench:scale's read phase was 358 MiB (238 MiB at 16 MiB; single runs, noisy).
 */
export const DEFAULT_VIEW_CACHE_BYTES = 16 * 1024 * 1024;

class Generation {
  readonly entries = new Map<string, Entry>();
  bytes = 0;

  add(id: string, entry: Entry): void {
    this.entries.set(id, entry);
    this.bytes += entry.bytes;
  }

  take(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id);
      this.bytes -= entry.bytes;
    }
    return entry;
  }
}

export class PortViewCache {
  private young = new Generation();
  private old = new Generation();
  private readonly generationBytes: number;

  constructor(maxBytes = DEFAULT_VIEW_CACHE_BYTES) {
    this.generationBytes = Math.floor(maxBytes / 2);
  }

  /** The text of exactly this version, or undefined. */
  get(version: PortVersion): Buffer | undefined {
    let entry = this.young.entries.get(version.id);
    if (!entry) {
      entry = this.old.entries.get(version.id);
      if (!entry || !matches(entry, version)) return undefined;
      this.old.take(version.id);
      this.keep(version.id, entry); // used: it survives the next turn
    }
    return matches(entry, version) ? entry.text : undefined;
  }

  /** Keeps `text` as the view of `version`, replacing the port's older one. */
  set(version: PortVersion, text: string): Buffer {
    const bytes = Buffer.byteLength(text);
    const buffer = Buffer.allocUnsafeSlow(bytes);
    buffer.write(text);
    this.young.take(version.id);
    this.old.take(version.id);
    const entry = {
      revision: version.revision_number,
      netQos: version.net_qos,
      text: buffer,
      bytes: bytes + version.id.length + ENTRY_OVERHEAD_BYTES,
    };
    if (entry.bytes <= this.generationBytes) this.keep(version.id, entry);
    return buffer;
  }

  private keep(id: string, entry: Entry): void {
    if (this.young.bytes + entry.bytes > this.generationBytes) {
      this.old = this.young;
      this.young = new Generation();
    }
    this.young.add(id, entry);
  }

  /** Entries and bytes held (for tests and figures). */
  get size(): { entries: number; bytes: number } {
    return {
      entries: this.young.entries.size + this.old.entries.size,
      bytes: this.young.bytes + this.old.bytes,
    };
  }
}

function matches(entry: Entry, version: PortVersion): boolean {
  return entry.revision === version.revision_number && entry.netQos === version.net_qos;
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

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
 * Bounded in bytes, least recently used first out: one entry per port (its latest version).
 */
import type { PortVersion } from '../../store/ports.js';
import type { RequestContext } from '../context.js';
import type { ListQuery } from '../list-query.js';

interface Entry {
  readonly revision: number;
  readonly netQos: string | null;
  readonly text: string;
  readonly bytes: number;
}

/** About what an entry costs besides its text: the map slot, the entry, the id string. */
const ENTRY_OVERHEAD_BYTES = 160;

/**
 * 16 MiB: about 16,000 ports' views, ten times the shared bench's list. At 100,000 ports a cache
 * of 32 MiB held 40 % of them, so random filtered lists still mostly missed, and the API server's
 * RSS in bench:scale's read phase was 358 MiB (238 MiB at 16 MiB; single runs, noisy).
 */
export const DEFAULT_VIEW_CACHE_BYTES = 16 * 1024 * 1024;

export class PortViewCache {
  /** Insertion order is recency: a hit moves its entry to the end. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_VIEW_CACHE_BYTES) {}

  /** The text of exactly this version, or undefined. */
  get(version: PortVersion): string | undefined {
    const entry = this.entries.get(version.id);
    if (!entry) return undefined;
    if (entry.revision !== version.revision_number || entry.netQos !== version.net_qos) return undefined;
    this.entries.delete(version.id);
    this.entries.set(version.id, entry);
    return entry.text;
  }

  /** Keeps `text` as the view of `version`, replacing the port's older one. */
  set(version: PortVersion, text: string): void {
    const bytes = text.length + version.id.length + ENTRY_OVERHEAD_BYTES;
    this.delete(version.id);
    if (bytes > this.maxBytes) return;
    this.entries.set(version.id, { revision: version.revision_number, netQos: version.net_qos, text, bytes });
    this.bytes += bytes;
    for (const [id, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(id);
      this.bytes -= entry.bytes;
    }
  }

  private delete(id: string): void {
    const old = this.entries.get(id);
    if (!old) return;
    this.entries.delete(id);
    this.bytes -= old.bytes;
  }

  /** Entries and bytes held (for tests and figures). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

/** A list as whole views' JSON texts, in list order, with their ids (for pagination links). */
export interface ListedTexts {
  readonly ids: readonly string[];
  readonly texts: readonly string[];
}

/** A service that can answer some lists as texts (undefined: not this caller or query). */
export interface ListsAsTexts {
  listTexts(ctx: RequestContext, query: ListQuery): Promise<ListedTexts | undefined>;
}

/** A service that can answer some shows as a text (undefined: not this caller). */
export interface ShowsAsText {
  showText(ctx: RequestContext, id: string): Promise<string | undefined>;
}

export function showsAsText(service: object): service is ShowsAsText {
  return typeof (service as Partial<ShowsAsText>).showText === 'function';
}

export function listsAsTexts(service: object): service is ListsAsTexts {
  return typeof (service as Partial<ListsAsTexts>).listTexts === 'function';
}

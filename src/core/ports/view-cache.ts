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
 * Two bounds, least recently used out first (lru.ts): the bytes of the most recently used texts
 * (by default 16 MiB, ~13,000 ports), and behind them, packed against another port of the same
 * network (packed-texts.ts, ~10 % of the text), up to 48 MiB of ports whose bytes went: at
 * 100,000 ports a random filtered list, or a walk of every page, then writes its views out of
 * their packed form (~2 µs each) instead of reading them from the database, building and
 * serialising them (~40 µs).
 */
import type { PortVersion } from '../../store/ports.js';
import type { RequestContext } from '../context.js';
import type { ListQuery } from '../list-query.js';
import { ByteLru } from './lru.js';
import { TextPacker, unpack, unpackInto, type PackedText } from './packed-texts.js';

/** A view's JSON text kept packed, with its length in UTF-8 bytes. */
export interface PackedView extends PackedText {
  readonly bytes: number;
}

/**
 * A view's JSON text: its UTF-8 bytes, or packed. A response writes either into its body
 * (`writeViewText`), so a packed view is never a string of its own.
 */
export type ViewText = Buffer | PackedView;

/** The text's length in UTF-8 bytes. */
export function viewTextBytes(text: ViewText): number {
  return Buffer.isBuffer(text) ? text.length : text.bytes;
}

/** Writes the text's UTF-8 into `out` at `at` (`out` has room); returns the bytes written. */
export function writeViewText(text: ViewText, out: Buffer, at: number): number {
  return Buffer.isBuffer(text) ? text.copy(out, at) : unpackInto(text, out, at);
}

/** The text as a string. */
export function viewTextString(text: ViewText): string {
  return Buffer.isBuffer(text) ? text.toString() : unpack(text);
}

/** A port's view at one version, as its text's bytes: among the most recently written or read. */
interface TextEntry {
  readonly revision: number;
  readonly netQos: string | null;
  /** What the port shares most of its view with (its network): what it is packed against later. */
  readonly group: string;
  readonly text: Buffer;
}

/** The same, packed (~100,000 of them are kept, so it is its own `PackedView`: one object less). */
interface PackedEntry extends PackedView {
  readonly revision: number;
  readonly netQos: string | null;
}

/** About what an entry costs besides its text: the map slot, the entry, the list node, the buffer, the id. */
const ENTRY_OVERHEAD_BYTES = 200;
/** The same for a packed entry: the map slot, the entry, the list node, the id, the delta string's header. */
const PACKED_OVERHEAD_BYTES = 200;

export class PortViewCache {
  private readonly packer = new TextPacker();
  /** Views as bytes; the least recently used are packed when they go. */
  private readonly texts: ByteLru<TextEntry>;
  /** Views packed. A port is in one of the two at most. */
  private readonly packed: ByteLru<PackedEntry>;

  /** Bounds in bytes: the config's `port_view_cache` (`text_bytes`, `packed_bytes`). */
  constructor(maxTextBytes: number, maxPackedBytes: number) {
    this.texts = new ByteLru(maxTextBytes, (id, entry) => this.pack(id, entry));
    this.packed = new ByteLru(maxPackedBytes, (_, entry) => this.release(entry));
  }

  /**
   * The text of exactly this version, or undefined: as bytes, or packed. A packed text stays
   * packed when read: turning it into bytes again would push another text out to be packed, on
   * every read of a data set larger than the first bound.
   */
  get(version: PortVersion): ViewText | undefined {
    const hot = this.texts.get(version.id);
    if (hot) return isVersion(hot, version) ? hot.text : undefined;
    const packed = this.packed.get(version.id);
    return packed && isVersion(packed, version) ? packed : undefined;
  }

  /**
   * Keeps `text` as the view of `version`, replacing the port's older one; returns it as bytes.
   * `group` names what the port shares most of its view with (its network).
   */
  set(version: PortVersion, text: string, group = ''): Buffer {
    const { id } = version;
    const buffer = bytesOf(text);
    const old = this.packed.delete(id);
    if (old) this.release(old);
    const entry = { revision: version.revision_number, netQos: version.net_qos, group, text: buffer };
    if (!this.texts.set(id, entry, buffer.length + id.length + ENTRY_OVERHEAD_BYTES)) this.pack(id, entry);
    return buffer;
  }

  /** The text's bytes go: the view is kept packed while there is room. */
  private pack(id: string, { revision, netQos, group, text }: TextEntry): void {
    const referenceBytes = this.packer.size.bytes;
    const { reference, delta } = this.packer.pack(text.toString(), group);
    const entry: PackedEntry = { revision, netQos, reference, delta, bytes: text.length };
    // A new reference counts against the same bound: one port per network would otherwise keep
    // whole texts as references without limit.
    this.packed.charge(this.packer.size.bytes - referenceBytes);
    if (!this.packed.set(id, entry, delta.length + id.length + PACKED_OVERHEAD_BYTES)) this.release(entry);
  }

  /** The packed view goes: its reference with it if it was the last to use it. */
  private release(entry: PackedEntry): void {
    const referenceBytes = this.packer.size.bytes;
    this.packer.release(entry);
    this.packed.charge(this.packer.size.bytes - referenceBytes);
  }

  /** Ports kept and the bytes counted, as text and packed (with the references packed texts use). */
  get size(): {
    texts: { entries: number; bytes: number };
    packed: { entries: number; bytes: number };
    references: { references: number; bytes: number };
  } {
    return { texts: this.texts.size, packed: this.packed.size, references: this.packer.size };
  }
}

function isVersion(entry: TextEntry | PackedEntry, version: PortVersion): boolean {
  return entry.revision === version.revision_number && entry.netQos === version.net_qos;
}

/** The text as UTF-8 in a buffer of its own (not a slice of the shared pool, which it would keep alive). */
function bytesOf(text: string): Buffer {
  const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  buffer.write(text);
  return buffer;
}

/** A list as whole views' JSON texts, in list order, with their ids (for pagination links). */
export interface ListedTexts {
  readonly ids: readonly string[];
  readonly texts: readonly ViewText[];
  /** The service keeps this list and may answer the same query with this object again. */
  readonly kept?: boolean;
}

/** A service that can answer some lists as texts (undefined: not this caller or query). */
export interface ListsAsTexts {
  listTexts(ctx: RequestContext, query: ListQuery): Promise<ListedTexts | undefined>;
}

/** A service that can answer some shows as a text (undefined: not this caller). */
export interface ShowsAsText {
  showText(ctx: RequestContext, id: string): Promise<ViewText | undefined>;
}

export function showsAsText(service: object): service is ShowsAsText {
  return typeof (service as Partial<ShowsAsText>).showText === 'function';
}

export function listsAsTexts(service: object): service is ListsAsTexts {
  return typeof (service as Partial<ListsAsTexts>).listTexts === 'function';
}

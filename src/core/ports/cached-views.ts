/**
 * Admins' and services' port lists and shows as the cached JSON texts of whole views (see
 * view-cache.ts): which reads a list makes to find its ports' versions and the views it has no
 * text for. Admins and services see every port, so no visibility scope or per-port policy applies;
 * `PortService` sends other callers the ordinary way.
 */
import type { View } from '../resource.js';
import type { PortViewCacheConfig } from '../../config/config.js';
import type { Store } from '../../store/database.js';
import { TRUE, type FilterEnv } from '../../store/list.js';
import {
  getPortRecord,
  getPortRecords,
  getPortVersion,
  listPortRecords,
  listPortRowsWithVersions,
  listPortVersions,
  loadListedPortRecords,
  loadPortRecords,
  type PortRecord,
  type PortVersion,
} from '../../store/ports.js';
import type { ListQuery } from '../list-query.js';
import { PortViewCache, viewTextBytes, type ListedTexts, type ViewText } from './view-cache.js';

/** Lists with more cache misses than this (and than hits) are read whole, as `list` reads them. */
const COLD_LIST_MIN = 50;

/**
 * Bytes of view text the lists kept whole while the database is unchanged may hold (see `list`;
 * the route keeps one joined body of each as well): a list of 1,000 ports is about 1 MiB.
 */
const MEMO_MAX_BYTES = 4 * 1024 * 1024;

/** How many lists asked once are remembered as asked (by key and change token), to keep them if asked again. */
const ASKED_ONCE_MAX = 64;

type Listed = ListedTexts & { hits: number };

export class CachedPortViews {
  private readonly cache: PortViewCache;
  /** Recent pages' and filtered lists' share of cached views (a moving average; see `list`). */
  private partialListHits = 1;
  /** Recent lists by caller project and query, with the database's change token they were read at. */
  private readonly memo = new Map<string, { token: string; listed: ListedTexts; bytes: number }>();
  private memoBytes = 0;
  /** Lists asked once, by key, with the change token they were read at: kept when asked again. */
  private readonly askedOnce = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly view: (record: PortRecord) => View,
    private readonly notFound: (id: string | null) => Error,
    bounds: PortViewCacheConfig,
  ) {
    this.cache = new PortViewCache(bounds.text_bytes, bounds.packed_bytes);
  }

  /**
   * The list's whole views. A list reads its ports' versions first, then only the ports it has no
   * text for. Pages and filtered lists of a data set larger than the cache (beyond ~120,000 ports
   * at the default bounds, or any walk after a change to every port) mostly miss, and then read
   * their rows with their versions in one statement instead:
   * which way is chosen by how often recent pages and filtered lists were found cached.
   *
   * Where the database has a change token (SQLite), the same list asked a third time with nothing
   * written in between is the same object, with no read at all (the route then reuses its body
   * too). The token is taken before the reads, so a write racing them only retires the list sooner.
   */
  async list(env: FilterEnv, query: ListQuery): Promise<ListedTexts> {
    const token = this.store.changeToken();
    const key = token === undefined ? undefined : JSON.stringify([env.projectId, query]);
    const kept = key === undefined ? undefined : this.memo.get(key);
    if (kept !== undefined && kept.token === token) return kept.listed;
    const listed = await this.read(env, query);
    // Only a list asked again, and not one with packed views (writing them out again costs ~2 µs
    // a view): kept lists live into the old generation, and at 100,000 ports keeping every
    // network's list started a full collection every ~700 random filtered lists, their p99.
    if (key === undefined || !this.askedAgain(key, token!)) return listed;
    if (!listed.texts.every((text) => Buffer.isBuffer(text))) return listed;
    return this.remember(key, token!, listed);
  }

  /** Whether the list was asked at this token before (recently); else notes that it was. */
  private askedAgain(key: string, token: string): boolean {
    if (this.askedOnce.get(key) === token) {
      this.askedOnce.delete(key);
      return true;
    }
    this.askedOnce.delete(key);
    if (this.askedOnce.size >= ASKED_ONCE_MAX) this.askedOnce.delete(this.askedOnce.keys().next().value!);
    this.askedOnce.set(key, token);
    return false;
  }

  /**
   * Keeps the list under `key`, dropping every list read before the database last changed, then
   * the oldest; returns it, marked `kept` when it was.
   */
  private remember(key: string, token: string, listed: ListedTexts): ListedTexts {
    const bytes = listed.texts.reduce((sum, text) => sum + viewTextBytes(text), 0);
    for (const [k, v] of this.memo) if (v.token !== token || k === key) this.forget(k);
    if (bytes > MEMO_MAX_BYTES) return listed;
    while (this.memoBytes + bytes > MEMO_MAX_BYTES) this.forget(this.memo.keys().next().value!);
    const kept: ListedTexts = { ids: listed.ids, texts: listed.texts, kept: true };
    this.memo.set(key, { token, listed: kept, bytes });
    this.memoBytes += bytes;
    return kept;
  }

  private forget(key: string): void {
    this.memoBytes -= this.memo.get(key)?.bytes ?? 0;
    this.memo.delete(key);
  }

  private async read(env: FilterEnv, query: ListQuery): Promise<ListedTexts> {
    const partial = query.limit !== undefined || Object.keys(query.filters).length > 0;
    const listed =
      partial && this.partialListHits < 0.5 ? await this.fromRows(env, query) : await this.fromVersions(env, query);
    if (partial && listed.ids.length) {
      this.partialListHits = 0.75 * this.partialListHits + (0.25 * listed.hits) / listed.ids.length;
    }
    return listed;
  }

  /** By versions first; a cold, long, whole list is read as `list` reads it (children joined). */
  private async fromVersions(env: FilterEnv, query: ListQuery): Promise<Listed> {
    const { versions, markerFound } = await listPortVersions(env, query, TRUE);
    if (!markerFound) throw this.notFound(query.marker ?? null);
    const cached = versions.map((v) => this.cache.get(v));
    const missing = versions.filter((_, i) => cached[i] === undefined).map((v) => v.id);
    const hits = versions.length - missing.length;
    if (missing.length === 0) return { ids: versions.map((v) => v.id), texts: cached as ViewText[], hits };
    if (query.limit === undefined && missing.length > COLD_LIST_MIN && missing.length * 2 > versions.length) {
      const { records } = await listPortRecords(env, query, TRUE);
      return { ids: records.map((r) => r.row.id), texts: records.map((r) => this.keep(r)), hits };
    }
    const fresh = new Map((await getPortRecords(this.store.db, missing)).map((r) => [r.row.id, r]));
    const ids: string[] = [];
    const texts: ViewText[] = [];
    for (const [i, version] of versions.entries()) {
      const record = cached[i] === undefined ? fresh.get(version.id) : undefined;
      const text = cached[i] ?? (record && this.keep(record));
      if (text === undefined) continue; // deleted since the list's first statement
      ids.push(version.id);
      texts.push(text);
    }
    return { ids, texts, hits };
  }

  /** By rows and versions in one read, then the children of the misses. */
  private async fromRows(env: FilterEnv, query: ListQuery): Promise<Listed> {
    const { rows, markerFound } = await listPortRowsWithVersions(env, query, TRUE);
    if (!markerFound) throw this.notFound(query.marker ?? null);
    const texts = rows.map((r) => this.cache.get(r.version));
    const missing = rows.filter((_, i) => texts[i] === undefined).map((r) => r.row);
    if (missing.length) {
      // A list that mostly misses reads its children by its own condition, in one statement,
      // and takes its networks' QoS policies from the versions.
      const records =
        missing.length * 2 > rows.length
          ? await loadListedPortRecords(
              env,
              query,
              TRUE,
              rows.map((r) => r.row),
              new Map(rows.map((r) => [r.row.id, r.version.net_qos])),
            )
          : await loadPortRecords(this.store.db, missing);
      const fresh = new Map(records.map((r) => [r.row.id, r]));
      for (const [i, { row }] of rows.entries()) texts[i] ??= this.keep(fresh.get(row.id)!);
    }
    return { ids: rows.map((r) => r.row.id), texts: texts as ViewText[], hits: rows.length - missing.length };
  }

  /**
   * The port's whole view, from the cache when the port's version there is current: one light
   * read instead of four.
   */
  async show(id: string): Promise<ViewText> {
    const version = await getPortVersion(this.store.db, id);
    if (!version) throw this.notFound(id);
    const cached = this.cache.get(version);
    if (cached !== undefined) return cached;
    const record = await getPortRecord(this.store.db, id);
    if (!record) throw this.notFound(id);
    return this.keep(record);
  }

  /** Keeps a view built from what was just written and committed (a created port's). */
  keepView(view: View): Buffer {
    return this.cache.set(versionOf(view), JSON.stringify(view), String(view.network_id));
  }

  /** The record's whole view as text, kept under the version it was read at. */
  private keep(record: PortRecord): Buffer {
    return this.keepView(this.view(record));
  }
}

/** The version a port's whole view was built at: what `listPortVersions` reads for it. */
function versionOf(view: View): PortVersion {
  return {
    id: view.id as string,
    revision_number: Number(view.revision_number),
    net_qos: (view.qos_network_policy_id as string | null | undefined) ?? null,
  };
}

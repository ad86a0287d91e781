/**
 * The tokens Keystone has recently confirmed, so that a client's every request does not cost a
 * round trip to Keystone (keystonemiddleware's in-process token cache).
 *
 * An entry lives until the token expires or `ttlMs` after it was validated, whichever comes first:
 * the second bound is how long a revoked token may still be accepted (`token_cache_time`). The cache
 * is bounded (least recently used entries go first) and keyed by a SHA-256 of the token, so neither
 * a heap dump nor a debugger shows a usable token. It must not decide whether a token is valid:
 * it only remembers what Keystone said.
 */
import { createHash } from 'node:crypto';

/** Enough for every active user of a large cloud; one entry is a few hundred bytes. */
export const TOKEN_CACHE_MAX_ENTRIES = 10_000;

export interface TokenCacheOptions {
  /** How long an entry may be used after validation; 0 caches nothing. */
  readonly ttlMs: number;
  readonly maxEntries?: number;
  /** Milliseconds since the epoch; a parameter so tests can move time. */
  readonly now?: () => number;
}

/** What the cache needs from a cached value: when the token stops being valid (ms since the epoch). */
export interface Expiring {
  readonly expiresAt: number;
}

/** The cache key of a token; also safe to correlate log lines, since it cannot be turned back into the token. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class TokenCache<T extends Expiring> {
  private readonly entries = new Map<string, { value: T; usableUntil: number }>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly options: TokenCacheOptions) {
    this.maxEntries = options.maxEntries ?? TOKEN_CACHE_MAX_ENTRIES;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** What Keystone said about `token`, if that is still usable. */
  get(token: string): T | undefined {
    const key = tokenFingerprint(token);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (this.now() >= entry.usableUntil) return undefined;
    // Re-inserting moves the entry to the end of the Map's order: the most recently used.
    this.entries.set(key, entry);
    return entry.value;
  }

  set(token: string, value: T): void {
    const usableUntil = Math.min(value.expiresAt, this.now() + this.options.ttlMs);
    if (usableUntil <= this.now()) return;
    const key = tokenFingerprint(token);
    this.entries.delete(key);
    this.entries.set(key, { value, usableUntil });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

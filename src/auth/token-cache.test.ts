import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenCache, tokenFingerprint } from './token-cache.js';

const MINUTE = 60_000;

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('token cache', () => {
  it('keeps an entry for the cache time when the token lives longer', () => {
    const c = clock();
    const cache = new TokenCache<{ expiresAt: number }>({ ttlMs: 5 * MINUTE, now: c.now });
    cache.set('tok', { expiresAt: c.now() + 60 * MINUTE });
    c.advance(5 * MINUTE - 1);
    assert.ok(cache.get('tok'));
    c.advance(1);
    assert.equal(cache.get('tok'), undefined, 'gone at the cache time: a revoked token is not accepted longer');
    assert.equal(cache.size, 0);
  });

  it('never serves a token past its expiry, whatever the cache time', () => {
    const c = clock();
    const cache = new TokenCache<{ expiresAt: number }>({ ttlMs: 5 * MINUTE, now: c.now });
    cache.set('tok', { expiresAt: c.now() + 30_000 });
    c.advance(29_999);
    assert.ok(cache.get('tok'));
    c.advance(1);
    assert.equal(cache.get('tok'), undefined);
  });

  it('does not store an already expired token, nor anything with a cache time of 0', () => {
    const c = clock();
    const expired = new TokenCache<{ expiresAt: number }>({ ttlMs: 5 * MINUTE, now: c.now });
    expired.set('tok', { expiresAt: c.now() });
    assert.equal(expired.size, 0);
    const off = new TokenCache<{ expiresAt: number }>({ ttlMs: 0, now: c.now });
    off.set('tok', { expiresAt: c.now() + MINUTE });
    assert.equal(off.size, 0);
    assert.equal(off.get('tok'), undefined);
  });

  it('drops the least recently used entry beyond its bound', () => {
    const c = clock();
    const cache = new TokenCache<{ expiresAt: number; n: number }>({ ttlMs: MINUTE, maxEntries: 2, now: c.now });
    const later = c.now() + MINUTE;
    cache.set('a', { expiresAt: later, n: 1 });
    cache.set('b', { expiresAt: later, n: 2 });
    assert.equal(cache.get('a')?.n, 1, 'a is now the most recently used');
    cache.set('c', { expiresAt: later, n: 3 });
    assert.equal(cache.size, 2);
    assert.equal(cache.get('b'), undefined, 'b went first');
    assert.equal(cache.get('a')?.n, 1);
    assert.equal(cache.get('c')?.n, 3);
  });

  it('a token set again replaces its entry and its cache time', () => {
    const c = clock();
    const cache = new TokenCache<{ expiresAt: number; n: number }>({ ttlMs: MINUTE, now: c.now });
    cache.set('a', { expiresAt: c.now() + 10 * MINUTE, n: 1 });
    c.advance(MINUTE - 1);
    cache.set('a', { expiresAt: c.now() + 10 * MINUTE, n: 2 });
    c.advance(MINUTE - 1);
    assert.equal(cache.get('a')?.n, 2);
    assert.equal(cache.size, 1);
  });

  it('is keyed by a fingerprint that does not contain the token', () => {
    const token = 'gAAAAABsecret-token-value';
    const fingerprint = tokenFingerprint(token);
    assert.match(fingerprint, /^[0-9a-f]{64}$/);
    assert.ok(!fingerprint.includes('secret'));
    assert.equal(tokenFingerprint(token), fingerprint);
  });
});

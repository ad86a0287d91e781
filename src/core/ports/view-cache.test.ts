/**
 * The cache of whole port views on its own: a text answers only the version it was kept for, and
 * the cache stays within its bytes, least recently used out first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PortViewCache } from './view-cache.js';

const version = (id: string, revision: number, netQos: string | null = null) => ({
  id,
  revision_number: revision,
  net_qos: netQos,
});

const text = (cache: PortViewCache, id: string, revision = 1) => cache.get(version(id, revision))?.toString();

describe('PortViewCache', () => {
  it('answers only the version a text was kept for', () => {
    const cache = new PortViewCache();
    assert.equal(cache.set(version('a', 3, 'q1'), '{"id":"é"}').toString(), '{"id":"é"}');
    assert.equal(cache.get(version('a', 3, 'q1'))?.toString(), '{"id":"é"}');
    assert.equal(cache.get(version('a', 4, 'q1')), undefined, 'a newer revision');
    assert.equal(cache.get(version('a', 3, null)), undefined, 'another network QoS policy');
    assert.equal(cache.get(version('b', 3, 'q1')), undefined);
    cache.set(version('a', 4, null), '{"id":"a","v":4}');
    assert.equal(cache.get(version('a', 3, 'q1')), undefined, 'one entry a port: the old version went');
    assert.equal(cache.size.entries, 1);
  });

  it('stays within its bytes, dropping the least recently used first', () => {
    const body = 'x'.repeat(1000);
    const perEntry = (() => {
      const probe = new PortViewCache();
      probe.set(version('p0', 1), body);
      return probe.size.bytes;
    })();
    const cache = new PortViewCache(perEntry * 3);
    for (const id of ['p0', 'p1', 'p2']) cache.set(version(id, 1), body);
    assert.equal(text(cache, 'p0'), body); // p0 is now the most recent
    cache.set(version('p3', 1), body);
    assert.equal(cache.size.entries, 3);
    assert.ok(cache.size.bytes <= perEntry * 3);
    assert.equal(text(cache, 'p1'), undefined, 'the least recently used went');
    for (const id of ['p0', 'p2', 'p3']) assert.equal(text(cache, id), body);
    cache.set(version('p2', 2), body); // a new version replaces the old in place
    for (const id of ['p4', 'p5']) cache.set(version(id, 1), body);
    assert.deepEqual(
      ['p0', 'p2', 'p3', 'p4', 'p5'].map((id) => text(cache, id, id === 'p2' ? 2 : 1) !== undefined),
      [false, true, false, true, true],
      'p0 and p3 were the least recently used',
    );
    cache.set(version('huge', 1), 'y'.repeat(perEntry * 4));
    assert.equal(text(cache, 'huge'), undefined, 'a text larger than the cache is not kept');
    assert.equal(cache.size.entries, 3);
  });
});

/**
 * The cache of whole port views on its own: a text answers only the version it was kept for, and
 * the cache stays within its bytes, keeping what was used since the last generation turned.
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

  it('stays within its bytes, dropping what was not used for a whole generation', () => {
    const body = 'x'.repeat(1000);
    const perEntry = (() => {
      const probe = new PortViewCache();
      probe.set(version('p0', 1), body);
      return probe.size.bytes;
    })();
    const cache = new PortViewCache(perEntry * 4); // two entries a generation
    for (const id of ['p0', 'p1', 'p2']) cache.set(version(id, 1), body);
    assert.equal(text(cache, 'p0'), body, 'p0 is used: it moves to the young generation');
    cache.set(version('p3', 1), body);
    assert.ok(cache.size.bytes <= perEntry * 4);
    assert.equal(text(cache, 'p1'), undefined, 'p1 was not used since its generation turned old');
    for (const id of ['p0', 'p2', 'p3']) assert.equal(text(cache, id), body);
    cache.set(version('huge', 1), 'y'.repeat(perEntry * 4));
    assert.equal(text(cache, 'huge'), undefined, 'a text larger than a generation is not kept');
    assert.ok(cache.size.bytes <= perEntry * 4);
  });
});

/**
 * The cache of whole port views on its own: a text answers only the version it was kept for, and
 * the cache stays within its two bounds (texts, then packed texts), least recently used out first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PortViewCache, viewTextString } from './view-cache.js';

const version = (id: string, revision: number, netQos: string | null = null) => ({
  id,
  revision_number: revision,
  net_qos: netQos,
});

const MiB = 1024 * 1024;

const text = (cache: PortViewCache, id: string, revision = 1, netQos: string | null = null) => {
  const found = cache.get(version(id, revision, netQos));
  return found && viewTextString(found);
};

describe('PortViewCache', () => {
  it('answers only the version a text was kept for', () => {
    const cache = new PortViewCache(MiB, MiB);
    assert.equal(cache.set(version('a', 3, 'q1'), '{"id":"é"}').toString(), '{"id":"é"}');
    assert.equal(text(cache, 'a', 3, 'q1'), '{"id":"é"}');
    assert.equal(cache.get(version('a', 4, 'q1')), undefined, 'a newer revision');
    assert.equal(cache.get(version('a', 3, null)), undefined, 'another network QoS policy');
    assert.equal(cache.get(version('b', 3, 'q1')), undefined);
    cache.set(version('a', 4, null), '{"id":"a","v":4}');
    assert.equal(cache.get(version('a', 3, 'q1')), undefined, 'one entry a port: the old version went');
    assert.equal(cache.size.texts.entries, 1);
  });

  it('stays within its bytes, dropping the least recently used first', () => {
    const body = 'x'.repeat(1000);
    const perEntry = (() => {
      const probe = new PortViewCache(MiB, MiB);
      probe.set(version('p0', 1), body);
      return probe.size.texts.bytes;
    })();
    const cache = new PortViewCache(perEntry * 3, 0); // texts only
    for (const id of ['p0', 'p1', 'p2']) cache.set(version(id, 1), body);
    assert.equal(text(cache, 'p0'), body); // p0 is now the most recent
    cache.set(version('p3', 1), body);
    assert.equal(cache.size.texts.entries, 3);
    assert.ok(cache.size.texts.bytes <= perEntry * 3);
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
    assert.equal(cache.size.texts.entries, 3);
  });

  it('keeps the views whose bytes went packed, and answers them by version', () => {
    const view = (id: string, revision = 1) =>
      JSON.stringify({
        id,
        network_id: 'net-1',
        mac_address: `fa:16:3e:00:00:${id.slice(1)}`,
        revision_number: revision,
      });
    const perText = (() => {
      const probe = new PortViewCache(MiB, MiB);
      probe.set(version('p10', 1), view('p10'));
      return probe.size.texts.bytes;
    })();
    const cache = new PortViewCache(perText * 2, MiB);
    const ids = ['p10', 'p11', 'p12', 'p13', 'p14'];
    for (const id of ids) cache.set(version(id, 1), view(id), 'net-1');
    assert.equal(cache.size.texts.entries, 2);
    assert.equal(cache.size.packed.entries, 3, 'the three least recently used, packed');
    for (const id of ids) assert.equal(text(cache, id), view(id), `${id} from either bound`);
    assert.equal(Buffer.isBuffer(cache.get(version('p10', 1))), false, 'a packed view is read packed, not as bytes');
    assert.deepEqual(
      [cache.size.texts.entries, cache.size.packed.entries],
      [2, 3],
      'reading a packed view leaves it packed: bytes again would push another out to be packed',
    );
    assert.equal(cache.get(version('p10', 2)), undefined, 'a newer revision is not answered from a packed text');
    for (const id of ids) cache.set(version(id, 2), view(id, 2), 'net-1');
    assert.equal(cache.size.packed.entries, 3, 'a new version replaces the packed one');
    for (const id of ids) assert.equal(text(cache, id, 2), view(id, 2));
    assert.equal(cache.size.references.references, 1, 'one reference per shape in the group, still used');
  });

  it('stays within its packed bytes, and lets references go with their last text', () => {
    const view = (id: string) => JSON.stringify({ id, network_id: 'net-1', name: `port ${id}` });
    const cache = new PortViewCache(0, 3 * 250);
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5']) cache.set(version(id, 1), view(id), 'net-1');
    assert.equal(cache.size.texts.entries, 0);
    assert.ok(cache.size.packed.bytes <= 3 * 250 && cache.size.packed.entries >= 1, JSON.stringify(cache.size));
    assert.equal(text(cache, 'a1'), undefined, 'the oldest went');
    assert.equal(text(cache, 'a5'), view('a5'));
    const none = new PortViewCache(0, 0);
    none.set(version('b1', 1), view('b1'), 'net-1');
    assert.equal(text(none, 'b1'), undefined);
    assert.deepEqual(none.size.references, { references: 0, bytes: 0 }, 'a text kept nowhere holds no reference');
  });

  it('counts the references against the packed bound (one port per network)', () => {
    const cache = new PortViewCache(0, 20_000);
    for (let i = 0; i < 200; i++) {
      cache.set(version(`p${i}`, 1), JSON.stringify({ id: `p${i}`, name: 'x'.repeat(500) }), `net-${i}`);
    }
    const { packed, references } = cache.size;
    assert.ok(packed.bytes <= 20_000, `${packed.bytes} bytes`);
    assert.ok(references.bytes < packed.bytes && references.references === packed.entries, JSON.stringify(cache.size));
    assert.ok(packed.entries > 5 && packed.entries < 40, `${packed.entries} ports kept`);
    assert.equal(text(cache, 'p199'), JSON.stringify({ id: 'p199', name: 'x'.repeat(500) }));
  });
});

/**
 * Framing of concatenated JSON texts: any split of the byte stream yields the same texts,
 * whatever strings, escapes and multi-byte characters they hold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OvsdbProtocolError } from './errors.js';
import { JsonTextSplitter } from './json-stream.js';

const TEXTS: unknown[] = [
  { id: 1, result: { a: [1, 2, { b: 'x' }] }, error: null },
  { method: 'update2', params: ['m', { T: { u: { modify: { s: '}{][' } } } }], id: null },
  { s: 'quote \\" and backslash \\\\ then } and ] and {{', t: 'end\\' },
  { s: '"quoted"', u: '\u0000\u001f\b\f\n\r\t', v: '\\"}' },
  { unicode: 'h\u00e9llo \u4e16\u754c \ud83d\ude80 \u20ac', nested: [[[]], {}, [{}]] },
  [1, 'array at top level', { x: true }],
];

/** The stream as ovsdb-server writes it: texts back to back, here with stray whitespace between some. */
function stream(): Buffer {
  return Buffer.from(TEXTS.map((text, i) => JSON.stringify(text) + (i % 2 ? '\n ' : '')).join(''), 'utf8');
}

function feed(chunks: Buffer[]): unknown[] {
  const splitter = new JsonTextSplitter();
  const texts = chunks.flatMap((chunk) => splitter.push(chunk));
  assert.equal(splitter.bufferedBytes, 0);
  return texts;
}

describe('JsonTextSplitter', () => {
  it('splits texts that arrive in one chunk', () => {
    assert.deepEqual(feed([stream()]), TEXTS);
  });

  it('yields the same texts for every split into two chunks', () => {
    const bytes = stream();
    for (let cut = 0; cut <= bytes.length; cut++) {
      assert.deepEqual(feed([bytes.subarray(0, cut), bytes.subarray(cut)]), TEXTS, `cut at ${cut}`);
    }
  });

  it('yields the same texts when fed one byte at a time (UTF-8 characters split between chunks)', () => {
    const bytes = stream();
    const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(feed(single), TEXTS);
  });

  it('splits a multi-byte character across two chunks without corrupting it', () => {
    const bytes = Buffer.from(JSON.stringify({ s: '\ud83d\ude80' }), 'utf8');
    const rocket = bytes.indexOf(0xf0);
    const splitter = new JsonTextSplitter();
    assert.deepEqual(splitter.push(bytes.subarray(0, rocket + 2)), []);
    assert.deepEqual(splitter.push(bytes.subarray(rocket + 2)), [{ s: '\ud83d\ude80' }]);
  });

  it('holds an incomplete text until it completes', () => {
    const splitter = new JsonTextSplitter();
    assert.deepEqual(splitter.push(Buffer.from('{"a": "}", "b": [')), []);
    assert.ok(splitter.bufferedBytes > 0);
    assert.deepEqual(splitter.push(Buffer.from('1]}{"c"')), [{ a: '}', b: [1] }]);
    assert.deepEqual(splitter.push(Buffer.from(':2}')), [{ c: 2 }]);
  });

  it('rejects a stream that is not JSON objects', () => {
    assert.throws(() => new JsonTextSplitter().push(Buffer.from('42')), OvsdbProtocolError);
    assert.throws(() => new JsonTextSplitter().push(Buffer.from('{"a": tru}')), OvsdbProtocolError);
  });
});

/**
 * The checks on raw input: the bracket scan that bounds JSON depth before parsing (brackets inside
 * strings and escaped quotes do not count), strict UTF-8, and NUL characters anywhere.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NeutronError } from '../core/errors.js';
import { decodeBody, jsonDepthExceeds, refuseNulInUrl, refuseNulInValues } from './input-guard.js';

describe('input guard', () => {
  it('counts nesting outside strings only', () => {
    assert.equal(jsonDepthExceeds('{"a": [1, {"b": []}]}', 4), false);
    assert.equal(jsonDepthExceeds('{"a": [1, {"b": []}]}', 3), true);
    assert.equal(jsonDepthExceeds('{"a": [1], "b": [2], "c": {"d": 3}}', 2), false);
    assert.equal(jsonDepthExceeds('{"a": "[[[[[[{{{{"}', 1), false);
    assert.equal(jsonDepthExceeds('{"a": "\\"[[[[", "b": {}}', 1), true);
    assert.equal(jsonDepthExceeds('{"a": "\\\\", "b": "[[["}', 1), false);
    assert.equal(jsonDepthExceeds('['.repeat(1_000_000), 64), true);
  });

  it('refuses invalid UTF-8 and deep bodies with a 400, and keeps valid text as sent', () => {
    assert.equal(decodeBody(Buffer.from('{"name": "ünï ☃ 🚀"}')), '{"name": "ünï ☃ 🚀"}');
    for (const bad of [Buffer.from([0x7b, 0xff, 0x7d]), Buffer.from('eda080', 'hex'), Buffer.from('['.repeat(65))]) {
      assert.throws(
        () => decodeBody(bad),
        (e: unknown) => e instanceof NeutronError && e.status === 400 && e.type === 'HTTPBadRequest',
      );
    }
    assert.equal(decodeBody(Buffer.from('['.repeat(64) + ']'.repeat(64))).length, 128);
  });

  it('refuses a NUL in keys, nested strings, paths and queries', () => {
    assert.doesNotThrow(() => refuseNulInValues({ a: ['x', { b: 'y' }], c: 1, d: null }));
    for (const value of [{ a: 'x\u0000' }, { 'k\u0000': 1 }, { a: [{ b: ['\u0000'] }] }]) {
      assert.throws(
        () => refuseNulInValues(value),
        (e: unknown) => e instanceof NeutronError && e.status === 400,
      );
    }
    assert.doesNotThrow(() => refuseNulInUrl('/v2.0/networks?name=%2500'));
    assert.throws(() => refuseNulInUrl('/v2.0/networks?name=a%00'), NeutronError);
    assert.throws(() => refuseNulInUrl('/v2.0/networks/%00'), NeutronError);
  });
});

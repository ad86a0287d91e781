import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flag, jsonColumn, text, timestamp } from './values.js';

describe("Neutron's column values", () => {
  it('prints timestamps as the API does, from PostgreSQL and MySQL text alike', () => {
    assert.equal(timestamp('2026-11-26 00:42:01.123456'), '2026-11-26T00:42:01Z');
    assert.equal(timestamp('2026-11-26 00:42:01'), '2026-11-26T00:42:01Z');
    assert.throws(() => timestamp(null), /timestamp/);
  });

  it("reads both drivers' booleans, with a fallback for NULL", () => {
    assert.equal(flag({ a: true }, 'a'), true);
    assert.equal(flag({ a: 1 }, 'a'), true);
    assert.equal(flag({ a: 0 }, 'a'), false);
    assert.equal(flag({ a: null }, 'a', true), true);
  });

  it("reads NULL text as '' and empty JSON columns as the empty value", () => {
    assert.equal(text({ name: null }, 'name'), '');
    assert.deepEqual(jsonColumn({ p: '' }, 'p', {}), {});
    assert.deepEqual(jsonColumn({ p: '{"a": 1}' }, 'p', {}), { a: 1 });
  });
});

/** The PostgreSQL classifier: SQLSTATE codes and classes, socket errors, node-postgres's own messages. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyPostgresError } from './errors.js';

const withCode = (code: string, extra: object = {}) => Object.assign(new Error(code), { code, ...extra });

describe('classifyPostgresError', () => {
  const cases: [string, unknown, string | null][] = [
    ['unique violation', withCode('23505'), 'unique-violation'],
    ['foreign key violation', withCode('23503'), 'foreign-key-violation'],
    ['serialization failure', withCode('40001'), 'serialization-conflict'],
    ['deadlock', withCode('40P01'), 'serialization-conflict'],
    ['lock not available', withCode('55P03'), 'busy'],
    ['admin shutdown (stop -m fast, pg_terminate_backend)', withCode('57P01'), 'connection-lost'],
    ['crash shutdown (stop -m immediate)', withCode('57P02'), 'connection-lost'],
    ['cannot connect now (starting up)', withCode('57P03'), 'unavailable'],
    ['statement timeout', withCode('57014'), 'unavailable'],
    ['connection exception class 08', withCode('08006'), 'connection-lost'],
    ['connection failure', withCode('08001'), 'connection-lost'],
    ['too many connections', withCode('53300'), 'unavailable'],
    ['disk full', withCode('53100'), 'full'],
    ['out of memory', withCode('53200'), 'full'],
    ['read-only transaction (standby)', withCode('25006'), 'read-only'],
    ['connection refused', withCode('ECONNREFUSED'), 'connection-lost'],
    ['connection reset', withCode('ECONNRESET'), 'connection-lost'],
    ['socket timeout', withCode('ETIMEDOUT'), 'connection-lost'],
    [
      'refused on every address',
      Object.assign(new AggregateError([withCode('ECONNREFUSED')], 'x'), {}),
      'connection-lost',
    ],
    ['terminated unexpectedly', new Error('Connection terminated unexpectedly'), 'connection-lost'],
    ['terminated by connect timeout', new Error('Connection terminated due to connection timeout'), 'connection-lost'],
    ['query_timeout', new Error('Query read timeout'), 'connection-lost'],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect'), 'connection-lost'],
    ['broken client', new Error('Client has encountered a connection error and is not queryable'), 'connection-lost'],
    ['syntax error', withCode('42601'), null],
    ['not-null violation (a caller mistake, not an outage)', withCode('23502'), null],
    ['plain error', new Error('boom'), null],
    ['numeric code', { code: 23505 }, null],
    ['null', null, null],
    ['string', 'Connection terminated unexpectedly', null],
  ];
  for (const [name, error, kind] of cases) {
    it(`${name} → ${kind}`, () => assert.equal(classifyPostgresError(error)?.kind ?? null, kind));
  }

  it('keeps the constraint name of a unique violation', () => {
    assert.deepEqual(classifyPostgresError(withCode('23505', { constraint: 'ports_mac_key' })), {
      kind: 'unique-violation',
      constraint: 'ports_mac_key',
    });
  });
});

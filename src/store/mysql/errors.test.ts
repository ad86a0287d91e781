/** The MySQL/MariaDB classifier: server error numbers (MariaDB's and Galera's too), socket errors, mysql2's own codes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyMysqlError } from './errors.js';

const server = (errno: number, message = `error ${errno}`) => Object.assign(new Error(message), { errno });
const client = (code: string) => Object.assign(new Error(code), { code });

describe('classifyMysqlError', () => {
  const cases: [string, unknown, string | null][] = [
    ['duplicate entry', server(1062), 'unique-violation'],
    ['child row without parent', server(1452), 'foreign-key-violation'],
    ['parent row still referenced', server(1451), 'foreign-key-violation'],
    ['deadlock (and Galera certification failure)', server(1213), 'serialization-conflict'],
    ['lock wait timeout', server(1205), 'busy'],
    ['NOWAIT lock (MySQL)', server(3572), 'busy'],
    ['read-only server', server(1290, 'The MariaDB server is running with the --read-only option'), 'read-only'],
    ['read-only transaction', server(1792), 'read-only'],
    ['table full', server(1114), 'full'],
    ['disk full', server(1021), 'full'],
    ['out of memory', server(1037), 'full'],
    ['too many connections', server(1040), 'unavailable'],
    ['statement timeout (MariaDB max_statement_time)', server(1969), 'unavailable'],
    ['statement timeout (MySQL max_execution_time)', server(3024), 'unavailable'],
    ['query killed', server(1317), 'unavailable'],
    ['Galera node not synced', server(1047, 'WSREP has not yet prepared node for application use'), 'unavailable'],
    ['server shutdown', server(1053), 'connection-lost'],
    ['connection killed (MariaDB)', server(1927), 'connection-lost'],
    ['server gone away', server(2006), 'connection-lost'],
    ['connection lost (mysql2)', client('PROTOCOL_CONNECTION_LOST'), 'connection-lost'],
    ['query timeout (mysql2)', client('PROTOCOL_SEQUENCE_TIMEOUT'), 'connection-lost'],
    ['connection refused', client('ECONNREFUSED'), 'connection-lost'],
    ['no socket file', client('ENOENT'), 'connection-lost'],
    ['connection reset', client('ECONNRESET'), 'connection-lost'],
    ['refused on every address', new AggregateError([client('ECONNREFUSED')], 'x'), 'connection-lost'],
    ['closed connection', new Error("Can't add new command when connection is in closed state"), 'connection-lost'],
    ['pool wait limit', new Error('timeout waiting for a free database connection (5000 ms)'), 'connection-lost'],
    ['syntax error (a bug, not an outage)', server(1064), null],
    ['data too long (a bug, not an outage)', server(1406), null],
    ['access denied (configuration)', server(1045), null],
    ['plain error', new Error('boom'), null],
    ['string errno', { errno: '1062' }, null],
    ['null', null, null],
  ];
  for (const [name, error, kind] of cases) {
    it(`${name} → ${kind}`, () => assert.equal(classifyMysqlError(error)?.kind ?? null, kind));
  }

  it('names the index of a duplicate, with or without MySQL 8’s table prefix', () => {
    const mariadb = server(1062, "Duplicate entry '1-x' for key 'ports_network_mac'");
    const mysql8 = server(1062, "Duplicate entry '1-x' for key 'ports.ports_network_mac'");
    assert.deepEqual(classifyMysqlError(mariadb), { kind: 'unique-violation', constraint: 'ports_network_mac' });
    assert.deepEqual(classifyMysqlError(mysql8), { kind: 'unique-violation', constraint: 'ports_network_mac' });
  });

  it('names the foreign key a row violated', () => {
    const error = server(
      1452,
      'Cannot add or update a child row: a foreign key constraint fails (`db`.`ports`, CONSTRAINT `ports_ibfk_1` FOREIGN KEY (`network_id`) REFERENCES `networks` (`id`))',
    );
    assert.deepEqual(classifyMysqlError(error), { kind: 'foreign-key-violation', constraint: 'ports_ibfk_1' });
  });
});

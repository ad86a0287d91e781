/**
 * ovsdb's remote syntax: what `tcp:` and `unix:` remotes parse to, and the remotes we refuse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRemote } from './connection.js';
import { OvsdbUnsupportedRemote } from './errors.js';

describe('parseRemote', () => {
  it('reads tcp and unix remotes', () => {
    assert.deepEqual(parseRemote('tcp:192.0.2.10:6641'), { kind: 'tcp', host: '192.0.2.10', port: 6641 });
    assert.deepEqual(parseRemote('tcp:[2001:db8::1]:6642'), { kind: 'tcp', host: '2001:db8::1', port: 6642 });
    assert.deepEqual(parseRemote('tcp:ovn-central'), { kind: 'tcp', host: 'ovn-central', port: 6640 });
    assert.deepEqual(parseRemote('unix:/run/ovn/ovnnb_db.sock'), { kind: 'unix', path: '/run/ovn/ovnnb_db.sock' });
  });

  it('refuses ssl, passive and malformed remotes', () => {
    for (const remote of [
      'ssl:10.0.0.1:6641',
      'ptcp:6641',
      'punix:/x',
      'tcp:',
      'tcp:host:0',
      'tcp:host:99999',
      'unix:',
      '/run/x.sock',
    ]) {
      assert.throws(() => parseRemote(remote), OvsdbUnsupportedRemote, remote);
    }
    assert.throws(() => parseRemote('ssl:10.0.0.1:6641'), /ssl remotes are not supported/);
  });
});

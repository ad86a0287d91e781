/** Outage tracking on a hand-driven clock: one start and one end however the failures interleave. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOutageTracker } from './outage.js';

function tracked() {
  let clock = 0;
  const log: string[] = [];
  const health = createOutageTracker(
    {
      onError: (kind) => log.push(`error ${kind}`),
      onOutage: (kind) => log.push(`outage ${kind}`),
      onRecovered: (ms, kind) => log.push(`recovered ${kind} after ${ms}`),
    },
    () => clock,
    1000,
  );
  return { health, log, at: (ms: number) => (clock = ms) };
}

describe('createOutageTracker', () => {
  it('reports one outage for a run of failures, ended by a success after a quiet second', () => {
    const { health, log, at } = tracked();
    health.succeeded();
    at(100);
    health.failed('connection-lost', new Error('x'));
    at(200);
    health.failed('connection-lost', new Error('x'));
    at(300);
    health.succeeded(); // too soon after the last failure: reads may work while writes fail
    at(400);
    health.failed('connection-lost', new Error('x'));
    at(500);
    health.succeeded(); // first success after the last failure
    at(1600);
    health.succeeded();
    assert.deepEqual(log, [
      'error connection-lost',
      'outage connection-lost',
      'error connection-lost',
      'error connection-lost',
      'recovered connection-lost after 400',
    ]);
  });

  it('counts conflicts but never calls them an outage', () => {
    const { health, log } = tracked();
    health.failed('unique-violation', new Error('x'));
    health.failed('serialization-conflict', new Error('x'));
    health.succeeded();
    assert.deepEqual(log, ['error unique-violation', 'error serialization-conflict']);
  });

  it('starts a new outage after one has ended', () => {
    const { health, log, at } = tracked();
    health.failed('full', new Error('x'));
    at(2000);
    health.succeeded();
    at(3000);
    health.failed('read-only', new Error('x'));
    assert.deepEqual(log, [
      'error full',
      'outage full',
      'recovered full after 2000',
      'error read-only',
      'outage read-only',
    ]);
  });
});

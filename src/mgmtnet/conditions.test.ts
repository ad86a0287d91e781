import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  condition,
  mergeConditions,
  networkReady,
  nodeConditions,
  type Finding,
  type NodeConditionType,
} from './conditions.js';

const ok = (reason = 'Ok'): Finding => ({ status: 'True', reason, message: '' });
const all = (overrides: Partial<Record<NodeConditionType, Finding>> = {}) => ({
  PortBound: ok(),
  Plugged: ok(),
  Addressed: ok(),
  HeartbeatPathOpen: ok(),
  ...overrides,
});

describe('node conditions', () => {
  it('Ready comes first and is True when all four are', () => {
    const list = nodeConditions(all());
    assert.deepEqual(
      list.map((c) => [c.type, c.status]),
      [
        ['Ready', 'True'],
        ['PortBound', 'True'],
        ['Plugged', 'True'],
        ['Addressed', 'True'],
        ['HeartbeatPathOpen', 'True'],
      ],
    );
  });

  it('a probe with nothing to probe (Unknown) does not block Ready; a failed one does, with its reason', () => {
    const lone = nodeConditions(
      all({ HeartbeatPathOpen: { status: 'Unknown', reason: 'NoPeerToProbe', message: '' } }),
    );
    assert.equal(lone[0]!.status, 'True');
    const blackhole = nodeConditions(
      all({ HeartbeatPathOpen: { status: 'False', reason: 'MtuBlackhole', message: 'm' } }),
    );
    assert.deepEqual([blackhole[0]!.status, blackhole[0]!.reason], ['False', 'MtuBlackhole']);
    const unbound = nodeConditions(all({ Plugged: { status: 'Unknown', reason: 'X', message: '' } }));
    assert.equal(unbound[0]!.status, 'False');
  });

  it('keeps the transition time while the status holds, and moves it when the status changes', () => {
    const first = nodeConditions(all(), [], new Date('2026-01-01T00:00:00Z'));
    const same = nodeConditions(all(), first, new Date('2026-01-01T00:01:00Z'));
    assert.equal(same[1]!.lastTransitionTime, '2026-01-01T00:00:00.000Z');
    const changed = nodeConditions(
      all({ PortBound: { status: 'False', reason: 'HostMismatch', message: '' } }),
      same,
      new Date('2026-01-01T00:02:00Z'),
    );
    assert.equal(changed[1]!.lastTransitionTime, '2026-01-01T00:02:00.000Z');
    assert.equal(changed[2]!.lastTransitionTime, '2026-01-01T00:00:00.000Z');
  });
});

describe('network conditions', () => {
  it('Ready names the first step that is not True, False over Unknown', () => {
    assert.equal(networkReady([condition('NetworkReady', true, 'Reconciled', '')]).status, 'True');
    const ready = networkReady([
      condition('NetworkReady', true, 'Reconciled', ''),
      { type: 'RouterReady', status: 'Unknown', reason: 'NotReached', message: 'an earlier step failed' },
      condition('PortsReady', false, 'Conflict', 'busy'),
    ]);
    assert.deepEqual(
      [ready.status, ready.reason, ready.message],
      ['False', 'RouterNotReady', 'RouterReady: an earlier step failed; PortsReady: busy'],
    );
  });

  it('stamps observedGeneration and keeps the transition time while the status holds', () => {
    const first = mergeConditions(undefined, [condition('PortsBound', false, 'X', '')], new Date(0), 1);
    const again = mergeConditions(first, [condition('PortsBound', false, 'Y', '')], new Date(1000), 2);
    assert.deepEqual(
      [again[0]!.observedGeneration, again[0]!.lastTransitionTime, again[0]!.reason],
      [2, new Date(0).toISOString(), 'Y'],
    );
  });
});

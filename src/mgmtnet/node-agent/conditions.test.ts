import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildConditions, type ConditionInput } from './conditions.js';

const ok = (reason = 'Ok'): ConditionInput => ({ status: 'True', reason, message: '' });
const all = (
  overrides: Partial<Record<'PortBound' | 'Plugged' | 'Addressed' | 'HeartbeatPathOpen', ConditionInput>> = {},
) => ({
  PortBound: ok(),
  Plugged: ok(),
  Addressed: ok(),
  HeartbeatPathOpen: ok(),
  ...overrides,
});

describe('node conditions', () => {
  it('Ready comes first and is True when all four are', () => {
    const list = buildConditions(all());
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
    const lone = buildConditions(
      all({ HeartbeatPathOpen: { status: 'Unknown', reason: 'NoPeerToProbe', message: '' } }),
    );
    assert.equal(lone[0]!.status, 'True');
    const blackhole = buildConditions(
      all({ HeartbeatPathOpen: { status: 'False', reason: 'MtuBlackhole', message: 'm' } }),
    );
    assert.deepEqual([blackhole[0]!.status, blackhole[0]!.reason], ['False', 'MtuBlackhole']);
    const unbound = buildConditions(all({ Plugged: { status: 'Unknown', reason: 'X', message: '' } }));
    assert.equal(unbound[0]!.status, 'False');
  });

  it('keeps the transition time while the status holds, and moves it when the status changes', () => {
    const first = buildConditions(all(), [], new Date('2026-01-01T00:00:00Z'));
    const same = buildConditions(all(), first, new Date('2026-01-01T00:01:00Z'));
    assert.equal(same[1]!.lastTransitionTime, '2026-01-01T00:00:00.000Z');
    const changed = buildConditions(
      all({ PortBound: { status: 'False', reason: 'HostMismatch', message: '' } }),
      same,
      new Date('2026-01-01T00:02:00Z'),
    );
    assert.equal(changed[1]!.lastTransitionTime, '2026-01-01T00:02:00.000Z');
    assert.equal(changed[2]!.lastTransitionTime, '2026-01-01T00:00:00.000Z');
  });
});

/**
 * The node agent's requeue rule: a pass that changed something asks to run again soon while the
 * port is not yet bound or its flows not installed, for a window after its last change; a pass with
 * nothing settling asks for nothing (the caller's period is soon enough).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finding } from '../conditions.js';
import { SETTLE_REQUEUE_MS, settling } from './pass.js';

const up = finding('True', 'Active', '');
const installed = finding('True', 'OvnInstalled', '');
const notActive = finding('False', 'PortNotActive', '');
const noFlows = finding('False', 'FlowsNotInstalled', '');

/** The rule with a 15 s window; by default nothing changed and the port is neither ACTIVE nor flowed. */
const settle = (input: Partial<Parameters<typeof settling>[0]>) =>
  settling({
    changed: false,
    earlier: undefined,
    found: { PortBound: notActive, Plugged: noFlows },
    settleMs: 15_000,
    now: 0,
    ...input,
  });

describe('node agent requeue', () => {
  it('after a change, requeues with the blocking reason until the window ends', () => {
    const first = settle({ changed: true, now: 1000 });
    assert.deepEqual(first, { requeue: { afterMs: SETTLE_REQUEUE_MS, reason: 'PortNotActive' }, settleUntil: 16_000 });
    // The next pass changes nothing: it keeps the window of the change it settles.
    const next = settle({ earlier: first.settleUntil, found: { PortBound: up, Plugged: noFlows }, now: 2000 });
    assert.deepEqual(next, {
      requeue: { afterMs: SETTLE_REQUEUE_MS, reason: 'FlowsNotInstalled' },
      settleUntil: 16_000,
    });
    const late = settle({ earlier: first.settleUntil, now: 16_000 });
    assert.deepEqual(late, {}, 'the window is over: the caller period takes over');
  });

  it('asks for nothing when the port is up, or when nothing changed', () => {
    assert.deepEqual(settle({ changed: true, found: { PortBound: up, Plugged: installed } }), {});
    assert.deepEqual(settle({}), {});
  });
});

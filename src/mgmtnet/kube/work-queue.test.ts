/**
 * The operator's work queue: a key queued twice runs once, one key at a time, and a failing key
 * comes back (with backoff) until it succeeds, a requeued key comes back, a stopped queue runs nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkQueue } from './work-queue.js';

describe('WorkQueue', () => {
  it('runs a key added while queued once, again when added while it runs, never two at a time', async () => {
    const ran: string[] = [];
    let running = 0;
    let overlap = false;
    const queue = new WorkQueue({
      work: async (key) => {
        running++;
        if (running > 1) overlap = true;
        await Promise.resolve();
        ran.push(key);
        running--;
      },
    });
    queue.add('a'); // starts at once
    queue.add('b');
    queue.add('b'); // already queued: once
    queue.add('a'); // a is running: its change may have come too late for it, so again
    await queue.idle();
    assert.deepEqual(ran, ['a', 'b', 'a']);
    assert.equal(overlap, false);
    queue.stop();
  });

  it('retries a failing key until it succeeds, reporting each failure', async () => {
    let attempts = 0;
    const errors: string[] = [];
    let succeeded!: () => void;
    const done = new Promise<void>((resolve) => (succeeded = resolve));
    const queue = new WorkQueue({
      work: async () => {
        attempts++;
        if (attempts < 3) throw new Error(`attempt ${attempts}`);
        succeeded();
      },
      onError: (_key, error) => errors.push((error as Error).message),
      baseDelayMs: 1,
    });
    queue.add('k');
    await done;
    assert.equal(attempts, 3);
    assert.deepEqual(errors, ['attempt 1', 'attempt 2']);
    queue.stop();
  });

  it('runs a requeued key again after its delay, and not once the queue is stopped', async () => {
    const ran: string[] = [];
    let requeued!: () => void;
    const second = new Promise<void>((resolve) => (requeued = resolve));
    const queue = new WorkQueue({
      work: async (key) => {
        ran.push(key);
        if (ran.length === 2) requeued();
      },
    });
    queue.addAfter('k', 1);
    queue.addAfter('k', 1); // two requeues of a key that is not queued: each adds it, one at a time
    await second;
    await queue.idle();
    assert.deepEqual(ran, ['k', 'k']);
    queue.addAfter('late', 1);
    queue.stop();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(ran, ['k', 'k'], 'a stopped queue drops its pending requeues');
  });
});

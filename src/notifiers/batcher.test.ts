import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBatcher } from './batcher.js';

describe('EventBatcher', () => {
  it('sends the first event at once and what arrives meanwhile as one batch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstSent = new Promise<void>((resolve) => (release = resolve));
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    const batcher = new EventBatcher<number>(0, async (batch) => {
      batches.push(batch);
      if (batches.length === 1) {
        release();
        await blocked;
      }
    });
    batcher.queue(1);
    await firstSent;
    assert.deepEqual(batches, [[1]], 'the first event did not wait');
    batcher.queue(2);
    batcher.queue(3);
    batcher.queue(4);
    assert.equal(batcher.waiting, 3);
    unblock();
    await batcher.stop();
    assert.deepEqual(batches, [[1], [2, 3, 4]]);
  });

  it('stop sends what waits without the interval and refuses later events', async () => {
    const batches: string[][] = [];
    const batcher = new EventBatcher<string>(3_600_000, async (batch) => void batches.push(batch));
    batcher.queue('a');
    batcher.queue('b');
    await batcher.stop();
    batcher.queue('c');
    assert.deepEqual(batches, [['a'], ['b']]);
  });
});

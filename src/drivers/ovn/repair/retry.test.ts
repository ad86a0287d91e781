import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { PostcommitRetries } from './retry.js';
import type { ResourceKey } from './resource-key.js';

const logger = pino({ level: 'silent' });
class Final extends Error {}

/** A reconcile that fails `failures` times per key, then succeeds; each call is recorded. */
function flakyReconcile(failures: number) {
  const calls: ResourceKey[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const reconcile = async (key: ResourceKey) => {
    calls.push(key);
    for (const w of waiters.filter((w) => calls.length >= w.count)) w.resolve();
    if (calls.filter((k) => k === key).length <= failures) throw new Error('database unavailable');
  };
  /** Resolves once `count` calls were made. */
  const called = (count: number) =>
    new Promise<void>((resolve) => (calls.length >= count ? resolve() : waiters.push({ count, resolve })));
  return { calls, reconcile, called };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PostcommitRetries', () => {
  it('retries a failed key until a reconcile succeeds, then forgets it', async () => {
    const flaky = flakyReconcile(2);
    const retries = new PostcommitRetries({
      reconcile: flaky.reconcile,
      isFinal: () => false,
      logger,
      delays: { initialMs: 1, maxMs: 2 },
    });
    // The retry timers are unref'd (they never hold a process open): this one keeps the test alive.
    const keepAlive = setInterval(() => undefined, 1000);
    retries.schedule('port:a', new Error('database unavailable'));
    assert.deepEqual(retries.pending, ['port:a']);
    await flaky.called(3);
    clearInterval(keepAlive);
    await settle();
    assert.deepEqual(flaky.calls, ['port:a', 'port:a', 'port:a']);
    assert.deepEqual(retries.pending, [], 'the third attempt succeeded');
    retries.stop();
  });

  it('folds repeated failures of one key into one retry; retryNow runs every waiting key at once', async () => {
    const flaky = flakyReconcile(0);
    // An hour apart: only retryNow can run them within the test.
    const retries = new PostcommitRetries({
      reconcile: flaky.reconcile,
      isFinal: () => false,
      logger,
      delays: { initialMs: 3_600_000, maxMs: 3_600_000 },
    });
    retries.schedule('port:a', new Error('x'));
    retries.schedule('port:a', new Error('x'));
    retries.schedule('network:n', new Error('x'));
    assert.deepEqual(retries.pending, ['port:a', 'network:n']);
    assert.deepEqual(flaky.calls, []);
    retries.retryNow();
    await flaky.called(2);
    await settle();
    assert.deepEqual(flaky.calls.sort(), ['network:n', 'port:a']);
    assert.deepEqual(retries.pending, []);
    retries.stop();
  });

  it('drops a key whose failure no retry can help, and keeps one still failing', async () => {
    let final = false;
    const calls: string[] = [];
    const retries = new PostcommitRetries({
      reconcile: async (key) => {
        calls.push(key);
        throw final ? new Final('not ours') : new Error('still away');
      },
      isFinal: (error) => error instanceof Final,
      logger,
      delays: { initialMs: 3_600_000, maxMs: 3_600_000 },
    });
    retries.schedule('router:r', new Final('not ours'));
    assert.deepEqual(retries.pending, [], 'a final error is not retried');
    retries.schedule('router:r', new Error('away'));
    retries.retryNow();
    await settle();
    assert.deepEqual(retries.pending, ['router:r'], 'failed again: waits for the next attempt');
    final = true;
    retries.retryNow();
    await settle();
    assert.deepEqual(calls, ['router:r', 'router:r']);
    assert.deepEqual(retries.pending, []);
    retries.stop();
  });

  it('schedules nothing once stopped', () => {
    const retries = new PostcommitRetries({ reconcile: async () => {}, isFinal: () => false, logger });
    retries.stop();
    retries.schedule('port:a', new Error('x'));
    assert.deepEqual(retries.pending, []);
  });
});

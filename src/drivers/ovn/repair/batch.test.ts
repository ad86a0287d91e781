import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { OvsdbTransactionError, type Operation } from '../ovsdb/index.js';
import type { Outcome, Plan } from '../planner.js';
import { Batch, BatchPacer, type NbWriter } from './batch.js';
import { keyOf, type ResourceKey } from './resource-key.js';

const logger = pino({ level: 'silent' });

const comment = (text: string): Operation => ({ op: 'comment', comment: text });
const created =
  (...texts: string[]) =>
  (): Plan => ({ ops: texts.map(comment), outcome: 'created' });

/**
 * A recording NB writer (a fake: the pacing and the fallback are under test, not the NB): each
 * transaction's comments, answered at once; one refused when it holds `refuse`.
 */
function recordingWriter(refuse?: string) {
  const transactions: string[][] = [];
  const remembered: ResourceKey[] = [];
  const writer: NbWriter = {
    remember: (key) => remembered.push(key),
    transact: (ops) => {
      const texts = ops.map((op) => (op.op === 'comment' ? op.comment : op.op));
      transactions.push(texts);
      if (refuse && texts.includes(refuse)) {
        return Promise.reject(new OvsdbTransactionError(0, 'comment', 'constraint violation', undefined));
      }
      return Promise.resolve();
    },
  };
  return { writer, transactions, remembered };
}

const counts = (): Record<Outcome, number> => ({ created: 0, updated: 0, deleted: 0, unchanged: 0 });

describe('BatchPacer', () => {
  it('halves the transactions and keeps one in flight while the NB answers slowly, then grows back', () => {
    const pacer = new BatchPacer(4000, 1000);
    assert.equal(pacer.operations, BatchPacer.MAX_OPERATIONS);
    pacer.answered(9000, 0);
    assert.equal(pacer.operations, BatchPacer.MAX_OPERATIONS / 2);
    assert.equal(pacer.inFlight, 1);
    for (let i = 0; i < 20; i++) pacer.answered(60_000, 0);
    assert.equal(pacer.operations, BatchPacer.MIN_OPERATIONS, 'never below the floor');
    // Two transactions queued ahead of this one: 9 s is 3 s of its own, neither slow nor fast.
    pacer.answered(9000, 2);
    assert.equal(pacer.operations, BatchPacer.MIN_OPERATIONS);
    assert.equal(pacer.inFlight, 1);
    for (let i = 0; i < 20; i++) pacer.answered(100, 0);
    assert.equal(pacer.operations, BatchPacer.MAX_OPERATIONS, 'never above the ceiling');
    assert.equal(pacer.inFlight, BatchPacer.MAX_IN_FLIGHT);
  });

  it('says when the size changed', () => {
    const pacer = new BatchPacer(4000, 1000);
    assert.equal(pacer.answered(2000, 0), false, 'neither slow nor fast');
    assert.equal(pacer.answered(9000, 0), true);
    assert.equal(pacer.answered(100, 0), true);
    assert.equal(pacer.answered(100, 0), false, 'already at the ceiling');
  });

  it('halves once for a slow spell, not again for each transaction sent before it halved', () => {
    const pacer = new BatchPacer(4000, 1000);
    const sentAt = pacer.operations;
    // Three transactions in flight, all slow: the first answer halves, the other two were sent at the old size.
    assert.equal(pacer.answered(9000, 0, sentAt), true);
    assert.equal(pacer.answered(18_000, 1, sentAt), false);
    assert.equal(pacer.answered(27_000, 2, sentAt), false);
    assert.equal(pacer.operations, BatchPacer.MAX_OPERATIONS / 2);
    assert.equal(pacer.inFlight, 1);
    // One sent at the new size and still slow halves again.
    assert.equal(pacer.answered(9000, 0, pacer.operations), true);
    assert.equal(pacer.operations, BatchPacer.MAX_OPERATIONS / 4);
  });

  it('halves no further than the floor the largest mutated set calls for', () => {
    assert.equal(BatchPacer.floorFor(0), BatchPacer.MIN_OPERATIONS);
    assert.equal(BatchPacer.floorFor(1000), BatchPacer.MIN_OPERATIONS);
    assert.equal(BatchPacer.floorFor(10_000), 1250);
    assert.equal(BatchPacer.floorFor(100_000), BatchPacer.MAX_OPERATIONS / 2, 'one halving stays possible');
    const pacer = new BatchPacer(4000, 1000, BatchPacer.floorFor(100_000));
    for (let i = 0; i < 20; i++) pacer.answered(60_000, 0);
    assert.equal(pacer.operations, BatchPacer.MAX_OPERATIONS / 2);
    assert.equal(pacer.inFlight, 1, 'a slow NB still gets one transaction at a time');
  });
});

describe('Batch', () => {
  it('sends transactions of about the paced size, in order, and counts and remembers every resource', async () => {
    const { writer, transactions, remembered } = recordingWriter();
    const pacer = new BatchPacer(Infinity, 0); // answers neither slow nor fast: the size stays
    pacer.operations = 4;
    const tally = counts();
    const batch = new Batch(writer, tally, logger, pacer);
    for (let i = 0; i < 5; i++) await batch.add(keyOf('port', `p${i}`), created(`p${i}a`, `p${i}b`));
    await batch.add(keyOf('port', 'same'), () => ({ ops: [], outcome: 'unchanged' }));
    await batch.flush();
    assert.deepEqual(transactions, [
      ['p0a', 'p0b', 'p1a', 'p1b'],
      ['p2a', 'p2b', 'p3a', 'p3b'],
      ['p4a', 'p4b'],
    ]);
    assert.deepEqual(tally, { created: 5, updated: 0, deleted: 0, unchanged: 1 });
    assert.equal(remembered.length, 6);
  });

  it('writes a refused transaction again one resource at a time, leaving out only the refused one', async () => {
    const { writer, transactions } = recordingWriter('bad');
    const batch = new Batch(writer, counts(), logger);
    await batch.add(keyOf('port', 'a'), created('a'));
    await batch.add(keyOf('port', 'b'), created('bad'));
    await batch.add(keyOf('port', 'c'), created('c'));
    await batch.flush();
    assert.deepEqual(transactions, [['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('passes on a failure that is not a refusal (a lost connection) from flush', async () => {
    const writer: NbWriter = { remember: () => {}, transact: () => Promise.reject(new Error('connection lost')) };
    const batch = new Batch(writer, counts(), logger);
    await batch.add(keyOf('port', 'a'), created('a'));
    await assert.rejects(batch.flush(), /connection lost/);
  });
});

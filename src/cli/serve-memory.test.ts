/**
 * The one compacting collection after start-up: it gives back pages a normal full collection
 * keeps (a heap where one small object in ten survives), logs what it did, and leaves no global
 * `gc` behind.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { compactHeapOnce } from './serve-memory.js';

describe('compactHeapOnce', () => {
  it('shrinks a fragmented heap to about its live size', () => {
    const kept: object[] = [];
    let garbage: object[] | undefined = [];
    for (let i = 0; i < 1_000_000; i++) {
      const o = { i, name: `row-${i}` };
      if (i % 10 === 0) kept.push(o);
      else garbage.push(o);
    }
    garbage = undefined;
    const lines: string[] = [];
    compactHeapOnce(pino({ level: 'info' }, { write: (line: string) => lines.push(line) }));
    const record = JSON.parse(lines[0]!) as { msg: string; heap_total_mib: [number, number] };
    assert.equal(record.msg, 'heap compacted after start-up');
    const [before, after] = record.heap_total_mib;
    // ~60 MiB of objects, nine in ten dead. A normal full collection frees them but keeps most
    // pages committed (each still holds survivors); this one moves the survivors together.
    assert.ok(after < before / 2, `heap total ${before} → ${after} MiB`);
    assert.equal(kept.length, 100_000);
    assert.equal((globalThis as { gc?: unknown }).gc, undefined);
  });
});

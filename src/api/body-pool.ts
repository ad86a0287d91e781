/**
 * Buffers for response bodies that are written once and dropped (lists built from cached port
 * views), used again once the answer has been written out.
 *
 * A fresh buffer per list (100 KB for a network's 100 ports, 1 MB for a page of 1,000) is mapped
 * and unmapped by malloc (the launcher sets MALLOC_MMAP_THRESHOLD_ to 32 KiB) and counts as V8's
 * external memory until its wrapper is collected: at 100,000 ports the young collections that
 * freed them took up to 8 ms, the filtered lists' p99 (bench/scale/README.md). A body taken here
 * comes from buffers of its size class kept between answers, up to a bound.
 */
import type { ServerResponse } from 'node:http';

/** Bodies smaller than this come from Node's allocator as before (its shared pool below 4 KiB). */
const POOLED_MIN_BYTES = 16 * 1024;

export class BodyPool {
  /** Free buffers by size class (a power of two). */
  private readonly free = new Map<number, Buffer[]>();
  private freeBytes = 0;

  /** @param maxFreeBytes how many bytes of free buffers are kept; the rest are left to the collector. */
  constructor(private readonly maxFreeBytes: number) {}

  /**
   * A buffer of exactly `length` bytes for `response`'s body. A pooled one returns to the pool
   * when the response has been written out (`finish`); a response closed before that keeps it,
   * since the socket may still hold it, and the collector frees it with the response.
   */
  take(length: number, response: ServerResponse): Buffer {
    if (length < POOLED_MIN_BYTES) return Buffer.allocUnsafe(length);
    const size = sizeClass(length);
    let whole = this.free.get(size)?.pop();
    if (whole) this.freeBytes -= size;
    else whole = Buffer.allocUnsafeSlow(size);
    const taken = whole;
    response.once('finish', () => this.give(taken));
    return whole.subarray(0, length);
  }

  /** Free bytes kept and buffers, for tests. */
  get size(): { bytes: number; buffers: number } {
    let buffers = 0;
    for (const list of this.free.values()) buffers += list.length;
    return { bytes: this.freeBytes, buffers };
  }

  private give(whole: Buffer): void {
    if (this.freeBytes + whole.length > this.maxFreeBytes) return;
    let list = this.free.get(whole.length);
    if (!list) this.free.set(whole.length, (list = []));
    list.push(whole);
    this.freeBytes += whole.length;
  }
}

/** The smallest power of two at least `length`. */
function sizeClass(length: number): number {
  return 2 ** Math.ceil(Math.log2(length));
}

/**
 * Committed transactions of a standalone ovsdb-server, counted in its database file: an append-only
 * log of `OVSDB JSON <length> <sha1>` records (the length counts the JSON and its newline), the
 * schema first, then one record per committed transaction. A compaction rewrites the file as one
 * snapshot (new inode, usually smaller): a difference across one is unknown. Reads only.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FileCount {
  inode: number;
  size: number;
  /** Complete records, the schema included. */
  records: number;
}

const HEADER_MAX = 128;

/** Walks the headers only (each gives the length of what follows), so large files are cheap. */
export function countRecords(file: string): FileCount {
  const fd = openSync(file, 'r');
  try {
    const { ino, size } = statSync(file);
    const header = Buffer.alloc(HEADER_MAX);
    let offset = 0;
    let records = 0;
    while (offset < size) {
      const read = readSync(fd, header, 0, HEADER_MAX, offset);
      const end = header.subarray(0, read).indexOf(0x0a);
      if (end < 0) break; // a record being written
      const match = /^OVSDB JSON (\d+) [0-9a-f]+$/.exec(header.subarray(0, end).toString('latin1'));
      if (!match) throw new Error(`${file}: no OVSDB record header at byte ${offset}`);
      const next = offset + end + 1 + Number(match[1]);
      if (next > size) break;
      offset = next;
      records++;
    }
    return { inode: ino, size, records };
  } finally {
    closeSync(fd);
  }
}

/** Transactions committed between two counts; undefined when a compaction happened in between. */
export function transactionsBetween(before: FileCount, after: FileCount): number | undefined {
  if (after.inode !== before.inode || after.size < before.size) return undefined;
  return after.records - before.records;
}

/**
 * The count once the file has stopped growing for `quietMs` (northd writes NB_Global and
 * `Logical_Switch_Port.up` after our writes), or after `maxMs` whatever it is.
 */
export async function settledCount(file: string, quietMs = 1000, maxMs = 20_000): Promise<FileCount> {
  const deadline = Date.now() + maxMs;
  let last = countRecords(file);
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await sleep(100);
    const current = countRecords(file);
    if (current.records !== last.records || current.inode !== last.inode) {
      last = current;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) {
      break;
    }
  }
  return last;
}

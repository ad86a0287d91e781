/**
 * JSON texts kept small by what they share with another text of their group: the view cache's
 * form for ports it no longer keeps as bytes (view-cache.ts), so that 100,000 ports fit in a few
 * tens of MiB where their texts take 100.
 *
 * A text is cut into tokens: each string literal, and the runs between them (punctuation,
 * numbers, `true`, `false`, `null`), which may be empty. Texts of one group with as many tokens
 * are laid out alike (a view writes its keys in one order), so the first of them becomes the
 * reference, and each is kept as the tokens where it differs from the reference: the token's
 * index, how many leading characters it shares with the reference's token, and the rest. Two
 * ports of one network differ in their ids, MAC, device, addresses and times: about 100
 * characters of 1,000.
 *
 * Texts must be as `JSON.stringify` writes them: no raw control characters, which the delta uses
 * as its separator (a text with one is kept whole).
 *
 * A packed text is written out as UTF-8 straight into a response (`unpackInto`): a list of 100
 * ports then makes no 100 KB of strings to collect, which at 100,000 ports was what ran the
 * young generation's collections, one every ~15 lists (bench/scale/README.md).
 */

/** A text as its reference and the tokens where it differs (or whole, without a reference). */
export interface PackedText {
  readonly reference: Reference | undefined;
  /** Per differing token: its index, the shared prefix's length (one character each), the rest, `SEPARATOR`. */
  readonly delta: string;
}

export interface Reference {
  readonly key: string;
  /** The group as the reference's first text named it: one string for all its texts to share. */
  readonly group: string;
  readonly text: string;
  /**
   * The text's bytes when every character is below 0x80 (one byte each, at the same offsets),
   * which `unpackInto` copies from: a loop over bytes is ~3 times faster than over characters.
   */
  readonly ascii: Uint8Array | undefined;
  /** Where each token starts, and the text's length last. */
  readonly starts: readonly number[];
  /** Packed texts that use it: it goes when the last is released. */
  users: number;
  readonly bytes: number;
}

const SEPARATOR = '\u0001';
const SEPARATOR_CODE = 1;
const NON_ASCII = /[^\u0000-\u007f]/;
/** Runs of the reference longer than this are copied natively (measured: 128 as fast as 32–256, fewer views). */
const NATIVE_COPY_MIN = 128;
/** Indexes and prefix lengths are written as one UTF-16 code unit each. */
const MAX_CODE = 0xffff;
/** The map entry, the object and the starts' array header. */
const REFERENCE_OVERHEAD_BYTES = 200;

export class TextPacker {
  private readonly references = new Map<string, Reference>();
  private referenceBytes = 0;

  /** The text as a delta from its group's reference of the same shape (becoming it if there is none). */
  pack(text: string, group: string): PackedText {
    const starts = tokenStarts(text);
    if (starts.length - 1 > MAX_CODE || text.includes(SEPARATOR)) return { reference: undefined, delta: text };
    const reference = this.referenceFor(group, starts.length, text, starts);
    reference.users++;
    const { text: base, starts: baseStarts } = reference;
    const parts: string[] = [];
    for (let i = 0; i + 1 < starts.length; i++) {
      const from = starts[i]!;
      const to = starts[i + 1]!;
      const baseFrom = baseStarts[i]!;
      const baseTo = baseStarts[i + 1]!;
      const shared = sharedPrefix(text, from, to, base, baseFrom, baseTo);
      if (shared === to - from && shared === baseTo - baseFrom) continue;
      const kept = Math.min(shared, MAX_CODE);
      parts.push(String.fromCharCode(i, kept), text.slice(from + kept, to), SEPARATOR);
    }
    // Joined, not concatenated: a concatenation is a tree of slices that keeps the whole text alive.
    return { reference, delta: parts.join('') };
  }

  /** The packed text is no longer kept: its reference goes with its last user. */
  release({ reference }: PackedText): void {
    if (!reference || --reference.users > 0) return;
    this.references.delete(reference.key);
    this.referenceBytes -= reference.bytes;
  }

  /** References held and about what they take, in bytes. */
  get size(): { references: number; bytes: number } {
    return { references: this.references.size, bytes: this.referenceBytes };
  }

  private referenceFor(group: string, tokens: number, text: string, starts: number[]): Reference {
    const key = `${group}${SEPARATOR}${tokens}`;
    let reference = this.references.get(key);
    if (!reference) {
      const ascii = NON_ASCII.test(text) ? undefined : asciiBytes(text);
      const bytes = key.length + group.length + 2 * text.length + starts.length * 8 + REFERENCE_OVERHEAD_BYTES;
      reference = { key, group, text, ascii, starts, users: 0, bytes };
      this.references.set(key, reference);
      this.referenceBytes += bytes;
    }
    return reference;
  }
}

/** The text `pack` was given. */
export function unpack({ reference, delta }: PackedText): string {
  if (!reference) return delta;
  const { text: base, starts } = reference;
  // Joined, not concatenated: one flat string, where a concatenation is a tree to flatten later.
  const parts: string[] = [];
  let copiedTo = 0; // the next token of the reference not yet copied
  for (let at = 0; at < delta.length;) {
    const index = delta.charCodeAt(at);
    const kept = delta.charCodeAt(at + 1);
    const end = delta.indexOf(SEPARATOR, at + 2);
    parts.push(base.slice(starts[copiedTo], starts[index]! + kept), delta.slice(at + 2, end));
    copiedTo = index + 1;
    at = end + 1;
  }
  parts.push(base.slice(starts[copiedTo]));
  return parts.join('');
}

/**
 * Writes the text `pack` was given into `out` at `at` as UTF-8 (`out` has room for it); returns
 * the bytes written. Against an ASCII reference it copies its bytes and the delta's character
 * codes, allocating nothing but for a non-ASCII rest of a token; else it unpacks the string and
 * encodes it.
 */
export function unpackInto(packed: PackedText, out: Buffer, at: number): number {
  const { reference, delta } = packed;
  const base = reference?.ascii;
  if (!base) return out.write(reference ? unpack(packed) : delta, at);
  const { starts } = reference;
  const from = at;
  let copiedTo = 0; // the next token of the reference not yet copied
  for (let i = 0; i < delta.length; i++) {
    const index = delta.charCodeAt(i);
    const sharedEnd = starts[index]! + delta.charCodeAt(i + 1);
    at = copyBytes(base, starts[copiedTo]!, sharedEnd, out, at);
    // The token's rest, up to the separator (where `i` stops).
    for (i += 2; ; i++) {
      const code = delta.charCodeAt(i);
      if (code === SEPARATOR_CODE) break;
      if (code < 0x80) {
        out[at++] = code;
        continue;
      }
      const end = delta.indexOf(SEPARATOR, i);
      at += out.write(delta.slice(i, end), at);
      i = end;
      break;
    }
    copiedTo = index + 1;
  }
  return copyBytes(base, starts[copiedTo]!, base.length, out, at) - from;
}

/**
 * Copies `source[from, to)` into `out` at `at`; returns where it ends. Long runs go through
 * `set` (a native copy, but a view object to collect), short ones byte by byte.
 */
function copyBytes(source: Uint8Array, from: number, to: number, out: Buffer, at: number): number {
  if (to - from > NATIVE_COPY_MIN) {
    out.set(source.subarray(from, to), at);
    return at + to - from;
  }
  for (let k = from; k < to; k++) out[at++] = source[k]!;
  return at;
}

/** An ASCII text's bytes, in memory of their own (not a slice of Node's shared pool, which they would keep). */
function asciiBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** Where each token starts: runs and string literals alternate, beginning and ending with a run. */
export function tokenStarts(text: string): number[] {
  const starts = [0];
  for (let at = 0; ;) {
    const open = text.indexOf('"', at);
    if (open < 0) break;
    let close = open;
    do close = text.indexOf('"', close + 1);
    while (close > 0 && isEscaped(text, close));
    if (close < 0) break; // not JSON: the rest is one run
    starts.push(open, close + 1);
    at = close + 1;
  }
  starts.push(text.length);
  return starts;
}

/** Whether the character at `at` follows an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let before = at - 1;
  while (text.charCodeAt(before) === 0x5c) before--;
  return (at - 1 - before) % 2 === 1;
}

/** How many leading characters `a[aFrom, aTo)` and `b[bFrom, bTo)` share. */
function sharedPrefix(a: string, aFrom: number, aTo: number, b: string, bFrom: number, bTo: number): number {
  const length = Math.min(aTo - aFrom, bTo - bFrom);
  let i = 0;
  while (i < length && a.charCodeAt(aFrom + i) === b.charCodeAt(bFrom + i)) i++;
  return i;
}

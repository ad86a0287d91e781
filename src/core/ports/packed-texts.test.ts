/**
 * Packed texts give back exactly the text packed, whatever it shares with its reference, and
 * references live exactly as long as the texts packed against them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextPacker, tokenStarts, unpack, unpackInto, type PackedText } from './packed-texts.js';

/**
 * The text back, both ways: as a string, and as UTF-8 written into a buffer, which must be the
 * string's bytes, exactly as many as `unpackInto` says, and nothing written outside them.
 */
function back(packed: PackedText): string {
  const text = unpack(packed);
  const bytes = Buffer.byteLength(text);
  const out = Buffer.alloc(bytes + 2, 0xee);
  assert.equal(unpackInto(packed, out, 1), bytes);
  assert.deepEqual([out[0], out[bytes + 1]], [0xee, 0xee], 'nothing written outside the text');
  assert.equal(out.subarray(1, 1 + bytes).toString(), text);
  return text;
}

const port = (id: string, ip: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    name: '',
    network_id: 'net-1',
    fixed_ips: [{ subnet_id: 'sub-1', ip_address: ip }],
    admin_state_up: true,
    revision_number: 1,
    ...extra,
  });

/** A small seeded generator of JSON values with the characters JSON escapes. */
function randomValue(next: () => number, depth = 0): unknown {
  const pick = Math.floor(next() * (depth > 2 ? 4 : 6));
  const chars = ['a', 'b', '"', '\\', 'é', '\n', '\u0002', '😀', ':', ',', '{', '['];
  const text = () =>
    Array.from({ length: Math.floor(next() * 6) }, () => chars[Math.floor(next() * chars.length)]).join('');
  if (pick === 0) return text();
  if (pick === 1) return Math.floor(next() * 1000) - 500;
  if (pick === 2) return next() < 0.5;
  if (pick === 3) return null;
  if (pick === 4) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(next() * 4) }, () => [text(), randomValue(next, depth + 1)]),
  );
}

describe('TextPacker', () => {
  it('keeps only what differs from the reference, and gives the text back', () => {
    const packer = new TextPacker();
    const first = port('p1', '10.0.0.10');
    const second = port('p2', '10.0.0.11');
    assert.equal(packer.pack(first, 'net-1').delta, '', 'the first text of a shape is the reference');
    const packed = packer.pack(second, 'net-1');
    assert.equal(back(packed), second);
    assert.ok(packed.delta.length < 12, `only the id's and address's last characters: ${JSON.stringify(packed.delta)}`);
  });

  it('gives back texts of other shapes, escapes, non-Latin characters and control characters', () => {
    const packer = new TextPacker();
    const texts = [
      port('p1', '10.0.0.1'),
      port('p2', '10.0.0.2', { name: 'a "quoted" \\ name' }),
      port('p3', '10.0.0.3', { name: 'naïve ☃ 😀' }),
      port('p4', '10.0.0.4', { tags: ['x', 'y\\', '"'] }),
      port('p5', '10.0.0.5', { name: '\\"' }),
      port('p6', '', { description: '' }),
      '"lonely \\" string"',
      '{}',
      '',
      '{"broken": "never closed',
      '{"raw":"\u0001"}', // not what JSON.stringify writes: kept whole
    ];
    for (const text of texts) assert.equal(back(packer.pack(text, 'net-1')), text, text);
    assert.equal(packer.pack('{"raw":"\u0001"}', 'net-1').reference, undefined);
  });

  it('writes texts packed against an ASCII reference byte by byte, and against another by encoding', () => {
    const packer = new TextPacker();
    // A long run shared with the reference is copied natively, short ones byte by byte.
    const long = 'd'.repeat(300);
    const reference = packer.pack(port('p1', '10.0.0.1', { description: long }), 'ascii');
    const mixed = port('p2', '10.0.0.2', { name: 'ab\u00e9 ☃ 😀 cd', description: long });
    assert.equal(back(packer.pack(mixed, 'ascii')), mixed);
    assert.equal(packer.pack(mixed, 'ascii').reference, reference.reference);
    assert.ok(reference.reference?.ascii);
    const first = packer.pack(port('p3', '10.0.0.3', { name: '☃' }), 'snowmen');
    assert.equal(first.reference?.ascii, undefined);
    assert.equal(
      back(packer.pack(port('p4', '10.0.0.4', { name: 'x' }), 'snowmen')),
      port('p4', '10.0.0.4', { name: 'x' }),
    );
  });

  it('gives back random JSON packed against random JSON of the same shape', () => {
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const packer = new TextPacker();
    for (let i = 0; i < 2000; i++) {
      const text = JSON.stringify(randomValue(next));
      assert.equal(back(packer.pack(text, String(i % 3))), text);
    }
  });

  it('cuts texts into runs and string literals, escaped quotes included', () => {
    const text = '{"a\\"b":["c\\\\",1]}';
    const starts = tokenStarts(text);
    const tokens = starts.slice(0, -1).map((from, i) => text.slice(from, starts[i + 1]));
    assert.deepEqual(tokens, ['{', '"a\\"b"', ':[', '"c\\\\"', ',1]}']);
  });

  it('keeps a reference exactly as long as texts packed against it', () => {
    const packer = new TextPacker();
    const a = packer.pack(port('p1', '10.0.0.1'), 'net-1');
    const b = packer.pack(port('p2', '10.0.0.2'), 'net-1');
    const c = packer.pack(port('p3', '10.0.0.3'), 'net-2');
    assert.equal(packer.size.references, 2, 'one per group and shape');
    packer.release(a);
    assert.equal(back(b), port('p2', '10.0.0.2'), 'the reference outlives its first text');
    packer.release(b);
    assert.equal(packer.size.references, 1);
    packer.release(c);
    assert.deepEqual(packer.size, { references: 0, bytes: 0 });
  });
});

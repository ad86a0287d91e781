/**
 * Splits the byte stream of an OVSDB connection into JSON texts. ovsdb-server writes one JSON
 * object after another with no delimiter (RFC 7047 §4), so a text ends where the bracket that
 * opened it closes; a chunk may hold several texts, part of one, or stop inside a UTF-8 character.
 *
 * This module owns framing only: it does not know JSON-RPC.
 */
import { OvsdbProtocolError } from './errors.js';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Works on bytes, not decoded strings: every byte JSON's structure depends on (brackets, quote,
 * backslash) is ASCII, and no byte of a multi-byte UTF-8 character is below 0x80, so counting bytes
 * is exact and a character split across chunks is decoded only once the whole text is present.
 */
export class JsonTextSplitter {
  /** Bytes of the text in progress that arrived in earlier chunks. */
  private pending: Buffer[] = [];
  private inText = false;
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** Feeds one chunk; returns the texts it completed, parsed. Throws `OvsdbProtocolError` on garbage. */
  push(chunk: Buffer): unknown[] {
    const texts: unknown[] = [];
    let textStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (!this.inText) {
        if (isJsonWhitespace(byte)) continue;
        if (byte !== OPEN_BRACE && byte !== OPEN_BRACKET) {
          throw new OvsdbProtocolError(`expected a JSON object, got byte 0x${byte.toString(16)}`);
        }
        this.inText = true;
        this.depth = 1;
        textStart = i;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        continue;
      }
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (--this.depth === 0) {
          this.pending.push(chunk.subarray(textStart, i + 1));
          texts.push(this.parse());
          this.inText = false;
        }
      }
    }
    if (this.inText) this.pending.push(chunk.subarray(textStart));
    return texts;
  }

  /** Bytes held for a text not yet complete (for tests and diagnostics). */
  get bufferedBytes(): number {
    return this.pending.reduce((sum, part) => sum + part.length, 0);
  }

  private parse(): unknown {
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw new OvsdbProtocolError(`invalid JSON text: ${(error as Error).message}`);
    }
  }
}

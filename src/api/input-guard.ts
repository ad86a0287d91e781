/**
 * Checks on what a client sends that run before any parsing or database work, so every backend
 * sees the same input and none of it can crash the process: the body must be valid UTF-8 (not
 * silently turned into U+FFFD) and nested at most MAX_JSON_DEPTH deep (JSON.parse, our error
 * formatting and `JSON.stringify` of `binding:profile` all recurse), and no string, key, path
 * or query value may hold a NUL character (PostgreSQL refuses one in text, SQLite stores it).
 */
import { HTTPBadRequest, InvalidInput } from '../core/errors.js';

/** Deeper than any Neutron body (binding:profile included), far below V8's recursion limit. */
const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text: refused with Neutron's invalid-body 400 unless UTF-8 and shallow enough. */
export function decodeBody(body: Buffer): string {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw HTTPBadRequest('Body contains invalid data');
  }
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw HTTPBadRequest(`Body contains invalid data: nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return text;
}

/**
 * Whether the brackets of `text` nest deeper than `max`, skipping brackets inside strings. A
 * linear scan that never recurses; it runs on text JSON.parse has not seen, so it does not rely
 * on the text being valid JSON.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const NUL_MESSAGE = 'NUL characters (\\x00) are not allowed';

/** Refuses a NUL in any key or string of a parsed body (its depth is bounded by decodeBody). */
export function refuseNulInValues(value: unknown): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw InvalidInput({ error_message: NUL_MESSAGE });
  } else if (Array.isArray(value)) {
    for (const item of value) refuseNulInValues(item);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) throw InvalidInput({ error_message: NUL_MESSAGE });
      refuseNulInValues(item);
    }
  }
}

/** Refuses a NUL in the path or query string, raw or percent-encoded. */
export function refuseNulInUrl(url: string): void {
  if (url.includes('\u0000') || /%00/i.test(url)) throw HTTPBadRequest(`Malformed request: ${NUL_MESSAGE}`);
}

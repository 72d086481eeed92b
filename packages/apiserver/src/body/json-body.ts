/**
 * JSON bodies, decoded on the calling thread: V8's JSON.parse of the largest body (3 MiB) is
 * a few tens of milliseconds for ordinary objects, and the hot path (create, update, patch of
 * small objects) must not pay a thread hop. A cheap scan first refuses nesting past
 * MAX_NESTING_DEPTH, so no later recursive walk can overflow the stack.
 */
import { findDuplicateFields, goJsonSyntaxError, jsonStringEnd, yieldBeforeLongStep } from '@kapi/machinery';
import { BodyDecodeError } from './decode-error.js';
import { MAX_NESTING_DEPTH } from './limits.js';

/**
 * A body this large takes a long step to decode on the event loop (turning 2 MiB into a
 * string and parsing it is several ms), so its decode waits for a fresh time slice when the
 * current one is used up: several large bodies that arrive in the same turn are then decoded
 * in turns of their own, with timers and other requests served in between.
 */
export const LARGE_BODY_BYTES = 64 * 1024;

/** The checkpoint before decoding `bytes` on the event loop: undefined for a small body. */
export function beforeDecoding(bytes: { readonly length: number }): Promise<void> | undefined {
  return bytes.length >= LARGE_BODY_BYTES ? yieldBeforeLongStep() : undefined;
}

/**
 * The bracket that opens nesting level `limit + 1`, or undefined when the text stays within
 * `limit`. Brackets inside strings do not count.
 */
function bracketPastDepth(text: string, limit: number): string | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = jsonStringEnd(text, i);
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return text[i];
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

/**
 * Parses `text` as JSON. Throws BodyDecodeError with Go's encoding/json wording, as kube's
 * clients see it: `unexpected end of JSON input`, `invalid character '}' after object key`,
 * `invalid character '[' exceeded max depth` (nesting past MAX_NESTING_DEPTH).
 */
export function decodeJson(text: string): unknown {
  const past = bracketPastDepth(text, MAX_NESTING_DEPTH);
  if (past !== undefined) throw new BodyDecodeError(`invalid character '${past}' exceeded max depth`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BodyDecodeError(goJsonSyntaxError(text) ?? (err as Error).message);
  }
}

/** The paths of keys a JSON text repeats (JSON.parse keeps the last; strict decoding reports them), in kube's `a.b` form. */
export function jsonDuplicateFields(text: string): string[] {
  return findDuplicateFields(text);
}

/** Whether `text` (or its UTF-8 bytes) looks like a JSON document (its first non-blank character opens an object or array). */
export function looksLikeJson(text: string | Uint8Array): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = typeof text === 'string' ? text.charCodeAt(i) : text[i]!;
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x7b || c === 0x5b;
  }
  return false;
}

type JsonObject = Record<string, unknown>;

const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets an own property, as JSON.parse does (a `__proto__` key is data, never the prototype). */
function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `incoming`'s keys decoded into `into`: objects into objects key by key, anything else replaced (Go's decoding into an existing struct or map). */
function decodeInto(into: JsonObject, incoming: JsonObject): void {
  for (const [key, value] of Object.entries(incoming)) {
    const existing = Object.hasOwn(into, key) ? into[key] : undefined;
    if (isJsonObject(existing) && isJsonObject(value)) decodeInto(existing, value);
    else setOwn(into, key, value);
  }
}

/**
 * Parses valid JSON `text` (already checked by decodeJson) as a typed kind's Go decoder reads
 * a body with repeated keys: a repeated key whose values are both objects is decoded into
 * the object already there (kube stores `"data":{"a":"1"},"data":{"b":"2"}` as both keys);
 * any other repeated value replaces the earlier one, as JSON.parse does.
 */
export function decodeJsonMergingDuplicates(text: string): unknown {
  let i = 0;
  const skip = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const scalarEnd = () => {
    let j = i;
    if (text[j] === '"') {
      for (j++; text[j] !== '"'; j++) if (text[j] === '\\') j++;
      return j + 1;
    }
    while (j < text.length && !',]} \n\r\t'.includes(text[j]!)) j++;
    return j;
  };
  const value = (): unknown => {
    skip();
    const c = text[i];
    if (c === '{') {
      i++;
      const out: JsonObject = {};
      skip();
      if (text[i] === '}') return (i++, out);
      for (;;) {
        skip();
        const end = scalarEnd();
        const key = JSON.parse(text.slice(i, end)) as string;
        i = end;
        skip();
        i++; // ':'
        const v = value();
        const existing = Object.hasOwn(out, key) ? out[key] : undefined;
        if (isJsonObject(existing) && isJsonObject(v)) decodeInto(existing, v);
        else setOwn(out, key, v);
        skip();
        if (text[i++] === '}') return out;
      }
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      skip();
      if (text[i] === ']') return (i++, out);
      for (;;) {
        out.push(value());
        skip();
        if (text[i++] === ']') return out;
      }
    }
    const end = scalarEnd();
    const scalar = JSON.parse(text.slice(i, end)) as unknown;
    i = end;
    return scalar;
  };
  return value();
}

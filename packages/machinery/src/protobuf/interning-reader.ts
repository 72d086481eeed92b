/**
 * A protobufjs reader that hands back one string for equal short strings: decoded objects
 * repeat the same namespaces, managers, operations, API versions and timestamps, and a cache
 * of many objects would otherwise keep (and the garbage collector copy) a string per copy.
 * Strings are values, so sharing them changes nothing a reader of the object can see.
 */
import protobuf from 'protobufjs/light.js';

/** Strings up to this many UTF-16 units are looked up; longer ones (data, uids...) rarely repeat. */
const MAX_INTERNED_LENGTH = 32;
/** The table is emptied when it reaches this size (names that never repeat must not pile up). */
const MAX_ENTRIES = 16_384;

const table = new Map<string, string>();

/** `text`, or the equal string seen before. */
export function internString(text: string): string {
  if (text.length > MAX_INTERNED_LENGTH || text.length === 0) return text;
  const seen = table.get(text);
  if (seen !== undefined) return seen;
  if (table.size >= MAX_ENTRIES) table.clear();
  table.set(text, text);
  return text;
}

/** A BufferReader whose strings go through `internString`. */
export class InterningReader extends protobuf.BufferReader {
  override string(): string {
    return internString(super.string());
  }
}

/** A reader for `bytes`: interning when they are a Buffer (what stored values and bodies are), else protobufjs's own. */
export function readerFor(bytes: Uint8Array): protobuf.Reader | Uint8Array {
  return Buffer.isBuffer(bytes) ? new InterningReader(bytes) : bytes;
}

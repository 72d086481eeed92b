/**
 * Length-delimited fields written straight into one Buffer, for messages assembled from
 * already-encoded parts (an envelope around a list of cached items): every byte is copied
 * once, where nested protobufjs writers would copy the items at each level.
 */

/** The size of `n` as a protobuf varint (n < 2^32). */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Writes `n` (< 2^32) as a varint at `offset`; returns the offset after it. */
export function writeVarint(out: Buffer, offset: number, n: number): number {
  while (n >= 0x80) {
    out[offset++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[offset++] = n;
  return offset;
}

/** A field of wire type 2 (bytes / embedded message) whose content is `parts` in order. */
export interface LengthDelimited {
  readonly field: number;
  readonly parts: readonly (Uint8Array | LengthDelimited)[];
}

function contentSize(f: LengthDelimited): number {
  let size = 0;
  for (const p of f.parts) size += p instanceof Uint8Array ? p.length : fieldSize(p);
  return size;
}

function fieldSize(f: LengthDelimited): number {
  const content = contentSize(f);
  return varintSize((f.field << 3) | 2) + varintSize(content) + content;
}

function writeField(out: Buffer, offset: number, f: LengthDelimited): number {
  offset = writeVarint(out, offset, (f.field << 3) | 2);
  offset = writeVarint(out, offset, contentSize(f));
  return writeParts(out, offset, f.parts);
}

function writeParts(out: Buffer, offset: number, parts: readonly (Uint8Array | LengthDelimited)[]): number {
  for (const p of parts) {
    if (p instanceof Uint8Array) {
      out.set(p, offset);
      offset += p.length;
    } else offset = writeField(out, offset, p);
  }
  return offset;
}

/** `prefix` followed by the message made of `parts` (raw bytes and length-delimited fields), in one allocation. */
export function assemble(prefix: Uint8Array, parts: readonly (Uint8Array | LengthDelimited)[]): Buffer {
  let size = prefix.length;
  for (const p of parts) size += p instanceof Uint8Array ? p.length : fieldSize(p);
  const out = Buffer.allocUnsafe(size);
  out.set(prefix, 0);
  const end = writeParts(out, prefix.length, parts);
  if (end !== size) throw new Error(`protobuf assembly wrote ${end} of ${size} bytes`);
  return out;
}

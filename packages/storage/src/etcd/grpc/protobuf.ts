/**
 * The protobuf wire format, as far as etcd's KV messages need it: varints (int64, uint64,
 * enums, bools), length-delimited fields (bytes, embedded messages), and skipping of fields a
 * decoder does not know. Writing is two-pass — a message's size is computed first, then it is
 * written into one buffer of exactly that size — so that nested messages need no copies.
 */

/** Wire types. */
export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

/** The encoded size of a non-negative integer up to 2^53 as a varint; negative ones take 10 bytes (two's complement). */
export function varintSize(value: number): number {
  if (value < 0) return 10;
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  let size = 4;
  value = Math.floor(value / 0x10000000);
  while (value > 0) {
    size++;
    value = Math.floor(value / 0x80);
  }
  return size;
}

/** Size of a varint field with a one-byte tag (field numbers 1–15). */
export function varintFieldSize(value: number): number {
  return 1 + varintSize(value);
}

/** Size of a length-delimited field of `length` bytes with a one-byte tag. */
export function bytesFieldSize(length: number): number {
  return 1 + varintSize(length) + length;
}

/**
 * An int64 given as a number or a decimal string (the etcd3 client's shape), exactly: a number
 * when it is a safe integer, else a bigint (lease IDs are random 63-bit numbers, past 2^53).
 */
export function exactInt64(value: string | number | undefined): number | bigint {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : BigInt(value);
}

/** The encoded size of `exactInt64`'s result as a varint. */
export function varint64Size(value: number | bigint): number {
  if (typeof value === 'number') return varintSize(value);
  let rest = BigInt.asUintN(64, value);
  let size = 1;
  while (rest >= 0x80n) {
    size++;
    rest >>= 7n;
  }
  return size;
}

/** A buffer being filled front to back; its size was computed before. */
export class ProtoWriter {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start = 0,
  ) {
    this.pos = start;
  }

  varint(value: number): void {
    const buf = this.buf;
    let pos = this.pos;
    if (value < 0) {
      // int64 two's complement in 10 bytes.
      let big = BigInt.asUintN(64, BigInt(value));
      for (let i = 0; i < 9; i++) {
        buf[pos++] = Number(big & 0x7fn) | 0x80;
        big >>= 7n;
      }
      buf[pos++] = Number(big);
      this.pos = pos;
      return;
    }
    while (value >= 0x80000000) {
      buf[pos++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    while (value >= 0x80) {
      buf[pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    buf[pos++] = value;
    this.pos = pos;
  }

  /** A varint of `exactInt64`'s result, exact past 2^53. */
  varint64(value: number | bigint): void {
    if (typeof value === 'number') {
      this.varint(value);
      return;
    }
    let rest = BigInt.asUintN(64, value);
    while (rest >= 0x80n) {
      this.buf[this.pos++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.buf[this.pos++] = Number(rest);
  }

  /** A tag: field number and wire type. */
  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  varintField(field: number, value: number): void {
    this.tag(field, VARINT);
    this.varint(value);
  }

  bytesField(field: number, bytes: Uint8Array): void {
    this.tag(field, LENGTH_DELIMITED);
    this.varint(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** The header of an embedded message of `length` bytes; its fields follow. */
  messageHeader(field: number, length: number): void {
    this.tag(field, LENGTH_DELIMITED);
    this.varint(length);
  }
}

/** The decimal strings of the last few large uint64 varints decoded, by their encoded bytes. */
class VarintStrings {
  private readonly entries: Array<{ bytes: Buffer; text: string }> = [];
  private next = 0;

  find(buf: Buffer, start: number, end: number): string | undefined {
    for (const entry of this.entries) {
      const bytes = entry.bytes;
      if (bytes.length !== end - start) continue;
      let same = true;
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] !== buf[start + i]) {
          same = false;
          break;
        }
      }
      if (same) return entry.text;
    }
    return undefined;
  }

  remember(bytes: Buffer, text: string): void {
    const entry = { bytes: Buffer.from(bytes), text };
    if (this.entries.length < 8) this.entries.push(entry);
    else this.entries[this.next++ % 8] = entry;
  }
}

const largeUint64s = new VarintStrings();

/** A malformed message. */
export class ProtoDecodeError extends Error {}

/** Reads a message in `buf` from `pos` up to `end`. */
export class ProtoReader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  more(): boolean {
    return this.pos < this.end;
  }

  /** A varint as a number: exact below 2^53 (revisions, counts, lengths, enums). */
  varint(): number {
    const buf = this.buf;
    let pos = this.pos;
    let byte = buf[pos++]!;
    if (byte < 0x80) {
      this.pos = pos;
      return byte;
    }
    let value = byte & 0x7f;
    let shift = 7;
    for (;;) {
      if (pos >= this.end) throw new ProtoDecodeError('truncated varint');
      byte = buf[pos++]!;
      value += shift < 28 ? (byte & 0x7f) << shift : (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
      shift += 7;
      if (shift > 63) throw new ProtoDecodeError('varint too long');
    }
    this.pos = pos;
    return value;
  }

  /**
   * A uint64 varint as a decimal string, exact at any size (member and cluster IDs, which are
   * random 64-bit numbers and the same in every response: the last few are remembered).
   */
  uint64String(): string {
    const start = this.pos;
    const value = this.varint();
    if (value <= Number.MAX_SAFE_INTEGER) return String(value);
    const known = largeUint64s.find(this.buf, start, this.pos);
    if (known !== undefined) return known;
    let big = 0n;
    let shift = 0n;
    for (let pos = start; pos < this.pos; pos++) {
      big |= BigInt(this.buf[pos]! & 0x7f) << shift;
      shift += 7n;
    }
    const text = BigInt.asUintN(64, big).toString();
    largeUint64s.remember(this.buf.subarray(start, this.pos), text);
    return text;
  }

  /** An int64 varint as a decimal string (negative values as two's complement). */
  int64String(): string {
    const start = this.pos;
    const value = this.varint();
    if (value <= Number.MAX_SAFE_INTEGER) return String(value);
    let big = 0n;
    let shift = 0n;
    for (let pos = start; pos < this.pos; pos++) {
      big |= BigInt(this.buf[pos]! & 0x7f) << shift;
      shift += 7n;
    }
    return BigInt.asIntN(64, big).toString();
  }

  /** The length of a length-delimited field; the reader is left at its first byte. */
  length(): number {
    const length = this.varint();
    if (this.pos + length > this.end) throw new ProtoDecodeError('truncated field');
    return length;
  }

  /** A bytes field, as a view of the buffer (not copied). */
  bytes(): Buffer {
    const length = this.length();
    const start = this.pos;
    this.pos += length;
    return this.buf.subarray(start, start + length);
  }

  /** Skips the value of a field of `wireType`. */
  skip(wireType: number): void {
    switch (wireType) {
      case VARINT:
        this.varint();
        return;
      case FIXED64:
        this.pos += 8;
        break;
      case LENGTH_DELIMITED:
        this.pos += this.length();
        return;
      case FIXED32:
        this.pos += 4;
        break;
      default:
        throw new ProtoDecodeError(`unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw new ProtoDecodeError('truncated field');
  }
}

/**
 * A long body (a list) made as the response takes it: small pieces are copied into chunks of
 * 64–80 KiB, each piece once, and large pieces go out as they are. Chunks stay below glibc's
 * mmap threshold (128 KiB), so making one reuses freed heap memory instead of faulting in
 * fresh pages, and a response the client reads slowly holds one chunk, not a copy of the body.
 */

/** Pieces at least this large go out as their own buffers; smaller ones are copied. */
export const LARGE_PIECE_BYTES = 16 * 1024;
/** A chunk is handed out once it holds this much (at most CHUNK_BYTES + LARGE_PIECE_BYTES). */
export const CHUNK_BYTES = 64 * 1024;

/**
 * Copies pieces into the current chunk. The caller writes pieces smaller than
 * LARGE_PIECE_BYTES only while `full` is false, and takes the chunk once it is; `remaining`
 * (the bytes of the body not yet handed out) bounds the last chunk's size.
 */
export class ChunkCopier {
  private chunk: Buffer;
  private pos = 0;

  constructor(private remaining: number) {
    this.chunk = this.fresh();
  }

  /** Whether the chunk should be taken before more is written. */
  get full(): boolean {
    return this.pos >= CHUNK_BYTES;
  }

  byte(value: number): void {
    this.chunk[this.pos++] = value;
  }

  /** Writes `n` (< 2^32) as a protobuf varint. */
  varint(n: number): void {
    while (n >= 0x80) {
      this.chunk[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.chunk[this.pos++] = n;
  }

  /** Copies `source` from byte `from` on. */
  copy(source: Uint8Array, from = 0): void {
    const size = source.length - from;
    this.chunk.set(from === 0 ? source : new Uint8Array(source.buffer, source.byteOffset + from, size), this.pos);
    this.pos += size;
  }

  /** The bytes written so far (undefined when none), and a fresh chunk for the rest. */
  take(): Buffer | undefined {
    if (this.pos === 0) return undefined;
    const out = this.pos === this.chunk.length ? this.chunk : this.chunk.subarray(0, this.pos);
    this.remaining -= this.pos;
    this.pos = 0;
    this.chunk = this.fresh();
    return out;
  }

  /** Notes `size` bytes of the body handed out as a buffer of their own. */
  passed(size: number): void {
    this.remaining -= size;
  }

  private fresh(): Buffer {
    return Buffer.allocUnsafe(Math.max(0, Math.min(this.remaining, CHUNK_BYTES + LARGE_PIECE_BYTES)));
  }
}

/**
 * kube's allocation bitmap (allocator.AllocationBitmap): bit i set = offset i of a range is
 * taken. On the wire (RangeAllocation `data`) it is the bytes of a big integer, most
 * significant byte first, without leading zero bytes (Go's big.Int.Bytes): an empty bitmap
 * is zero bytes, offset 0 alone is `AQ==`.
 */
import { randomInt } from 'node:crypto';

export class AllocationBitmap {
  private readonly bits: Uint8Array;
  private used = 0;

  /** `size` offsets, 0..size-1; dynamic picks prefer offsets from `offset` upwards (kube's upper band). */
  constructor(readonly size: number, readonly offset: number) {
    this.bits = new Uint8Array(Math.ceil(size / 8));
  }

  /** A bitmap from RangeAllocation `data` (base64); bits beyond `size` are dropped. */
  static fromData(size: number, offset: number, data: string): AllocationBitmap {
    const out = new AllocationBitmap(size, offset);
    const bytes = Buffer.from(data, 'base64');
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[bytes.length - 1 - i]!;
      for (let b = 0; b < 8; b++) if ((byte & (1 << b)) !== 0) out.set(i * 8 + b);
    }
    return out;
  }

  /** RangeAllocation `data`: base64 of the big-endian bytes, no leading zeros. */
  toData(): string {
    let top = this.bits.length - 1;
    while (top >= 0 && this.bits[top] === 0) top--;
    const out = Buffer.alloc(top + 1);
    for (let i = 0; i <= top; i++) out[top - i] = this.bits[i]!;
    return out.toString('base64');
  }

  get count(): number {
    return this.used;
  }

  has(i: number): boolean {
    return i >= 0 && i < this.size && (this.bits[i >> 3]! & (1 << (i & 7))) !== 0;
  }

  /** Sets bit i; false when it was already set (or out of range). */
  set(i: number): boolean {
    if (i < 0 || i >= this.size || this.has(i)) return false;
    this.bits[i >> 3]! |= 1 << (i & 7);
    this.used++;
    return true;
  }

  clear(i: number): void {
    if (!this.has(i)) return;
    this.bits[i >> 3]! &= ~(1 << (i & 7));
    this.used--;
  }

  /** The set offsets, ascending. */
  offsets(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.size; i++) if (this.has(i)) out.push(i);
    return out;
  }

  /**
   * Takes a free offset as kube's random scan with offset does: a random start in the upper
   * band [offset, size), scanning upwards with wrap-around, then the lower band [0, offset).
   * Undefined when full.
   */
  takeNext(): number | undefined {
    if (this.used >= this.size) return undefined;
    const upper = this.size - this.offset;
    if (upper > 0) {
      const start = randomInt(upper);
      for (let i = 0; i < upper; i++) {
        const at = this.offset + ((start + i) % upper);
        if (this.set(at)) return at;
      }
    }
    if (this.offset > 0) {
      const start = randomInt(this.offset);
      for (let i = 0; i < this.offset; i++) {
        const at = (start + i) % this.offset;
        if (this.set(at)) return at;
      }
    }
    return undefined;
  }
}

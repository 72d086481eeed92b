/**
 * Scalar conversions between kube's JSON and protobuf forms: RFC 3339 times and
 * {seconds, nanos}, base64 strings and raw bytes, and protobufjs' 64-bit integers.
 */

/** A Time or MicroTime message as protobufjs reads and writes it. */
export interface ProtoTimestamp {
  seconds?: number | { toNumber(): number } | null;
  nanos?: number | null;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

// The last text parsed and time formatted: an object's times are mostly one and the same second
// (creationTimestamp and its managedFields' times), and objects written together share it too.
let lastParsedText = '';
let lastParsed: Readonly<{ seconds: number; nanos: number }> | undefined;
let lastFormattedSeconds = Number.NaN;
let lastFormatted = '';

/**
 * Parses an RFC 3339 timestamp into seconds since the epoch and nanoseconds; undefined when it
 * is not one. The result is shared between calls with the same text: read it, never change it.
 */
export function parseTimestamp(text: string): Readonly<{ seconds: number; nanos: number }> | undefined {
  if (text === lastParsedText && lastParsed !== undefined) return lastParsed;
  const parsed = parseTimestampUncached(text);
  if (parsed !== undefined) {
    lastParsedText = text;
    lastParsed = Object.freeze(parsed);
  }
  return parsed;
}

function parseTimestampUncached(text: string): { seconds: number; nanos: number } | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, , sign, oh, om] = m;
  let seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000;
  if (sign !== undefined) seconds -= (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const nanos = fraction === undefined ? 0 : Number(fraction.padEnd(9, '0'));
  return { seconds, nanos };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** kube's JSON for a Time: RFC 3339 in UTC with second precision. */
export function formatTime(seconds: number): string {
  if (seconds !== lastFormattedSeconds) {
    lastFormatted = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
    lastFormattedSeconds = seconds;
  }
  return lastFormatted;
}

/** kube's JSON for a MicroTime: RFC 3339 in UTC with exactly six fractional digits. */
export function formatMicroTime(seconds: number, nanos: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${pad(Math.floor(nanos / 1000), 6)}Z`;
}

/** A protobufjs int64 (a number, or a Long when the long package is loaded) as a number. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { toNumber?: unknown }).toNumber === 'function') {
    return (value as { toNumber(): number }).toNumber();
  }
  return Number(value);
}

/** Raw bytes of a base64 JSON value (kube's []byte fields); the registry validated it already. */
export function bytesOfBase64(text: string): Buffer {
  return Buffer.from(text, 'base64');
}

/** kube's JSON for []byte: standard base64 with padding. */
export function base64OfBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

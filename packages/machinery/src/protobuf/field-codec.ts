/**
 * The mapping between kube's JSON objects and protobuf messages, field by field (the fields
 * of each message come from the catalogue's wire facts, see wire-codecs.ts).
 *
 * JSON → protobuf writes every field the JSON carries (null counts as absent). Protobuf →
 * JSON follows kube's Go JSON rules, because Go clients marshal every non-pointer field
 * (empty strings, zeros, empty structs) and kube's JSON then drops the `omitempty` ones:
 *   - `string`, `int32`, `int64`, `bool`, `bytes`: omitempty scalars, dropped when zero;
 *   - `required*`: no omitempty, kept when present (even "" or 0);
 *   - `optional*`: pointers, kept when present on the wire (even zero);
 *   - `time`/`microTime`: pointers dropped when zero; value fields `null` (Go's zero time);
 *   - `message`: structs and pointers to structs, kept when present (even `{}`);
 *   - maps and lists: dropped when empty (protobuf cannot tell empty from absent), or `null`
 *     for those without `omitempty` (`nullWhenAbsent`), as Go writes a nil slice or map.
 * So JSON → protobuf → JSON is lossless for objects in kube's canonical JSON form.
 */
import type { MessageType } from './messages.js';
import { compileFromProto, compileToProto, type CompiledFromProto, type CompiledToProto } from './message-compiler.js';
import { internString } from './interning-reader.js';
import { base64OfBytes, bytesOfBase64, formatMicroTime, formatTime, parseTimestamp, toNumber, type ProtoTimestamp } from './wire-values.js';

/** How one JSON field maps to its protobuf field. */
export interface FieldCodec {
  /** The protobuf value for a JSON value, or undefined to leave the field out. */
  toProto(value: unknown): unknown;
  /** The JSON value for a value present on the wire, or undefined to leave the field out. */
  fromProto(value: unknown): unknown;
  /** The message of a struct, list-of-structs or map-of-structs field (for coverage checks against schemas). */
  readonly nested?: MessageCodec;
  /**
   * For a Go value (non-pointer) field: what Go's generated encoder writes when the field is
   * absent from the JSON (an empty string, 0, an empty message...). Used in Go-bytes mode.
   */
  readonly goZero?: () => unknown;
  /** What a JSON `null` is on the wire, when it is something (a value time's zero message); otherwise null leaves the field out. */
  readonly nullToProto?: () => unknown;
  /**
   * The field is `null` in JSON when the wire has no value for it: a list or map without
   * `omitempty`, whose nil (and, after protobuf, empty) value Go's JSON writes as `null`.
   */
  readonly nullWhenAbsent?: true;
}

let goBytes = false;

/** Go's zero time (0001-01-01T00:00:00Z) in Unix seconds: what a value metav1.Time field holds when unset. */
export const GO_ZERO_TIME_SECONDS = -62135596800;

/**
 * Runs `encode` in Go-bytes mode: messages are built as k8s.io/api's generated Go encoder
 * writes them — every value (non-pointer) field present, with its zero value when the JSON
 * leaves it out (see wire-codecs.ts `goZeroOf`), map keys sorted, timestamps with their
 * nanos — so the bytes equal kube-apiserver's. Synchronous; the mode ends with `encode`.
 */
export function withGoBytes<T>(encode: () => T): T {
  const previous = goBytes;
  goBytes = true;
  try {
    return encode();
  } finally {
    goBytes = previous;
  }
}

/** Set in Go-bytes mode when a value written would not decode back as it is (see withGoBytesExact). */
let inexact = false;

/**
 * withGoBytes, also telling whether every value the message carries decodes back from the bytes
 * as it is, so that the message itself can stand for the decoded bytes: false when a string is
 * not well-formed UTF-16 (a lone surrogate is written as U+FFFD) or an integer does not fit its
 * field (an int32 wraps, an int64 past 2^53 is rounded).
 */
export function withGoBytesExact<T>(encode: () => T): { result: T; exact: boolean } {
  const previous = inexact;
  inexact = false;
  try {
    const result = withGoBytes(encode);
    return { result, exact: !inexact };
  } finally {
    inexact = previous;
  }
}

const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** In Go-bytes mode, notes a string that the wire would not carry as it is. */
function checkString(text: string): void {
  if (goBytes && !isWellFormed(text)) inexact = true;
}

/** Whether the wire carries `v` as it is, per scalar: strings well-formed, integers in their field's range. */
const exactString = (v: unknown) => isWellFormed(v as string);
const exactInt32 = (v: unknown) => (v as number) >= -0x80000000 && (v as number) <= 0x7fffffff;
const exactInt64 = (v: unknown) => Number.isSafeInteger(v);

/** Whether a Go-bytes encode is running (for codecs outside this file). */
export function inGoBytesMode(): boolean {
  return goBytes;
}

/** An embedded Go struct: its fields are the parent's in JSON, a nested message on the wire. */
export interface InlineMember {
  /** The protobuf field holding the member. */
  readonly proto: string;
  readonly codec: MessageCodec;
}

/** A message: its generated class and its fields by JSON name. */
export interface MessageCodec {
  readonly type: MessageType;
  readonly fields: Readonly<Record<string, FieldCodec>>;
  /** Protobuf field names where they differ from the JSON name, by JSON name. */
  readonly protoNames?: Readonly<Record<string, string>>;
  readonly inline?: readonly InlineMember[];
  /**
   * A named slice type wrapped as a message (Go's `ExtraValue []string`): the JSON value is
   * the array this codec maps to the message's `items` field.
   */
  readonly listOf?: FieldCodec;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** The plain protobufjs object for a JSON value of the message (fields the codec does not know are dropped). */
export function toProtoMessage(codec: MessageCodec, json: unknown): Record<string, unknown> {
  if (codec.listOf !== undefined) {
    const out: Record<string, unknown> = {};
    const items = codec.listOf.toProto(json);
    if (items !== undefined) out['items'] = items;
    return out;
  }
  return toProtoOf(codec)(json);
}

/** kube's JSON value for a decoded protobufjs message. */
export function fromProtoMessage(codec: MessageCodec, message: unknown): Record<string, unknown> | unknown[] {
  if (codec.listOf !== undefined) {
    const items = isRecord(message) && hasOwn(message, 'items') ? codec.listOf.fromProto(message['items']) : undefined;
    return (items as unknown[] | undefined) ?? [];
  }
  return fromProtoOf(codec)(message, {});
}

/**
 * {@link fromProtoMessage} of a message codec without `listOf`, adding the fields to `out`
 * after those it has (an object's apiVersion and kind go first). Returns `out`.
 */
export function fromProtoMessageInto(codec: MessageCodec, message: unknown, out: Record<string, unknown>): Record<string, unknown> {
  if (codec.listOf !== undefined) throw new Error('fromProtoMessageInto: a list message has no fields to merge');
  return fromProtoOf(codec)(message, out);
}

/** A message built in memory is being converted (see fromProtoMessageInterning). */
let interning = false;

/**
 * {@link fromProtoMessageInto} of a message built in memory (not decoded by the interning
 * reader): its strings go through internString, so that the object shares its short strings
 * with other decoded objects as one decoded from bytes does; a FieldsV1 value whose text the
 * message carries is that value itself (they are never changed in place, see fieldsV1Text),
 * not a parse of its text, and its cached text is dropped.
 */
export function fromProtoMessageInterning(codec: MessageCodec, message: unknown, out: Record<string, unknown>): Record<string, unknown> {
  const previous = interning;
  interning = true;
  try {
    return fromProtoMessageInto(codec, message, out);
  } finally {
    interning = previous;
  }
}

const compiledFrom = new WeakMap<MessageCodec, CompiledFromProto>();
const compiledTo = new WeakMap<MessageCodec, CompiledToProto>();

/** The generated decoder of a codec (compiled on first use; the codec's fields are final by then). */
function fromProtoOf(codec: MessageCodec): CompiledFromProto {
  let compiled = compiledFrom.get(codec);
  if (compiled === undefined) {
    const members = codec.inline ?? [];
    const inline: CompiledFromProto[] = [];
    compiled = compileFromProto(codec, (i) => (inline[i] ??= inlineFromProto(members[i]!.codec)));
    compiledFrom.set(codec, compiled);
  }
  return compiled;
}

function inlineFromProto(codec: MessageCodec): CompiledFromProto {
  if (codec.listOf === undefined) return fromProtoOf(codec);
  return (message, out) => Object.assign(out, fromProtoMessage(codec, message));
}

/** The generated encoder of a codec without `listOf`. */
function toProtoOf(codec: MessageCodec): CompiledToProto {
  let compiled = compiledTo.get(codec);
  if (compiled === undefined) {
    const members = codec.inline ?? [];
    const inline: CompiledToProto[] = [];
    compiled = compileToProto(codec, (i) => (inline[i] ??= (json) => toProtoMessage(members[i]!.codec, json)), inGoBytesMode);
    compiledTo.set(codec, compiled);
  }
  return compiled;
}

/** A message codec declared by hand (tests). */
export function messageCodec(type: MessageType, fields: Record<string, FieldCodec>): MessageCodec {
  return { type, fields };
}

const scalar = (accept: (v: unknown) => boolean, keep: (v: unknown) => boolean, convert: (v: unknown) => unknown = (v) => v, exact?: (v: unknown) => boolean): FieldCodec => ({
  toProto:
    exact === undefined
      ? (v) => (accept(v) ? v : undefined)
      : (v) => {
          if (!accept(v)) return undefined;
          if (goBytes && !exact(v)) inexact = true;
          return v;
        },
  fromProto: (v) => {
    const converted = convert(v);
    return keep(converted) ? converted : undefined;
  },
});

const isString = (v: unknown) => typeof v === 'string';
/** Strings decoded from a message built in memory go through internString, as the bytes' reader does (see fromProtoMessageInterning). */
const internIfAsked = (v: unknown) => (interning ? internString(v as string) : v);
const isInteger = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isBoolean = (v: unknown) => typeof v === 'boolean';
const always = () => true;

/** An omitempty string. */
export const string: FieldCodec = scalar(isString, (v) => v !== '', internIfAsked, exactString);
/** A string without omitempty (kube's JSON always carries it). */
export const requiredString: FieldCodec = scalar(isString, always, internIfAsked, exactString);
/** A *string. */
export const optionalString: FieldCodec = requiredString;
/** An omitempty int32. */
export const int32: FieldCodec = scalar(isInteger, (v) => v !== 0, undefined, exactInt32);
/** An int32 without omitempty. */
export const requiredInt32: FieldCodec = scalar(isInteger, always, undefined, exactInt32);
/** A *int32. */
export const optionalInt32: FieldCodec = requiredInt32;
/** An omitempty int64. */
export const int64: FieldCodec = scalar(isInteger, (v) => v !== 0, toNumber, exactInt64);
/** An int64 without omitempty. */
export const requiredInt64: FieldCodec = scalar(isInteger, always, toNumber, exactInt64);
/** A *int64. */
export const optionalInt64: FieldCodec = requiredInt64;
/** An omitempty bool. */
export const bool: FieldCodec = scalar(isBoolean, (v) => v === true);
/** A bool without omitempty. */
export const requiredBool: FieldCodec = scalar(isBoolean, always);
/** A *bool. */
export const optionalBool: FieldCodec = requiredBool;
/** A *float64 (apiextensions' schema bounds). */
export const optionalDouble: FieldCodec = scalar(isNumber, always);

/** []byte: a base64 string in JSON, raw bytes on the wire; omitempty drops empty values. */
export function bytes(omitempty: boolean): FieldCodec {
  return {
    toProto: (v) => (typeof v === 'string' ? bytesOfBase64(v) : undefined),
    fromProto: (v) => {
      const raw = v as Uint8Array;
      return omitempty && raw.length === 0 ? undefined : base64OfBytes(raw);
    },
  };
}

function timestampCodec(format: (seconds: number, nanos: number) => string, zero?: null): FieldCodec {
  return {
    toProto: (v) => {
      if (typeof v !== 'string') return undefined;
      const parsed = parseTimestamp(v);
      return parsed === undefined ? undefined : parsed.nanos === 0 && !goBytes ? { seconds: parsed.seconds } : parsed;
    },
    fromProto: (v) => {
      const t = v as ProtoTimestamp;
      const seconds = t.seconds === undefined || t.seconds === null ? 0 : toNumber(t.seconds);
      const nanos = t.nanos ?? 0;
      // Unset, or Go's zero time (which Go's JSON writes as null): left out.
      return (seconds === 0 || seconds === GO_ZERO_TIME_SECONDS) && nanos === 0 ? zero : format(seconds, nanos);
    },
  };
}

/** metav1.Time (and *Time): second precision; nanos on the wire are ignored, as kube ignores them. */
export const time: FieldCodec = timestampCodec((seconds) => formatTime(seconds));
/** metav1.MicroTime (and *MicroTime): microsecond precision. */
export const microTime: FieldCodec = timestampCodec(formatMicroTime);
/**
 * A value (non-pointer) metav1.Time field: always on the wire, and Go's JSON writes its zero
 * value as `null` (a template's `metadata.creationTimestamp`, an Event's `firstTimestamp`).
 */
export const valueTime: FieldCodec = { ...timestampCodec((seconds) => formatTime(seconds), null), nullToProto: () => ({}) };
/** A value metav1.MicroTime field (an Event's `eventTime`): zero is `null`, as for valueTime. */
export const valueMicroTime: FieldCodec = { ...timestampCodec(formatMicroTime, null), nullToProto: () => ({}) };

/**
 * JSON text as Go's encoding/json writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped as
 * `\u003c`... Those characters only occur inside strings, so the value is the same; the bytes
 * are those a Go client marshalled, which controllers compare byte for byte (a DaemonSet's
 * ControllerRevision `data` against the template patch it computes).
 */
function goJsonText(v: unknown): string {
  const text = JSON.stringify(v);
  // Most texts have none of them: a test is cheaper than a replace with a callback.
  return GO_ESCAPED_TEST.test(text) ? text.replace(GO_ESCAPED, goEscape) : text;
}

const GO_ESCAPED = /[<>&\u2028\u2029]/g;
const GO_ESCAPED_TEST = /[<>&\u2028\u2029]/;
const goEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * The JSON text bytes of FieldsV1 values by identity. A create or update encodes the same
 * managed fields twice (the stored bytes, then the answer) and every later write of the object
 * again; stringifying them was the largest self time of those encodes. FieldsV1 values are
 * never changed in place (the field manager builds new ones; decoding parses new ones), and the
 * bytes are only read (copied into the message), so sharing them is safe. They are kept as
 * long as the value (a few hundred bytes per object for most kinds).
 */
const fieldsV1Text = new WeakMap<object, Buffer>();
/** The other way: the FieldsV1 value of cached text bytes (of shared bytes, the last value to have them; any is equal). */
const fieldsV1Values = new WeakMap<Uint8Array, Record<string, unknown>>();

/**
 * Text bytes of recent short FieldsV1 texts, shared by the values that have them: the writes
 * of one client build the same few sets (every create of a ConfigMap with one key), and
 * a Buffer outside the pool costs more than the stringify. Bounded; cleared when full.
 */
const sharedTexts = new Map<string, Buffer>();
const MAX_SHARED_TEXTS = 256;
const MAX_SHARED_TEXT_LENGTH = 1024;

function fieldsV1Bytes(v: Record<string, unknown>): Buffer {
  let bytes = fieldsV1Text.get(v);
  if (bytes === undefined) {
    const text = goJsonText(v);
    const shareable = text.length <= MAX_SHARED_TEXT_LENGTH;
    bytes = shareable ? sharedTexts.get(text) : undefined;
    if (bytes === undefined) {
      // Outside Buffer's shared pool: a kept slice would pin a whole pool block.
      bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
      bytes.write(text);
      if (shareable) {
        if (sharedTexts.size >= MAX_SHARED_TEXTS) sharedTexts.clear();
        sharedTexts.set(text, bytes);
      }
    }
    fieldsV1Text.set(v, bytes);
    fieldsV1Values.set(bytes, v);
  }
  return bytes;
}

/** A JSON value carried as its JSON text in a bytes field `field` (FieldsV1's `Raw`, RawExtension's and JSON's `raw`). */
function jsonText(field: string, accept: (v: unknown) => boolean, text: (v: never) => Buffer = (v) => Buffer.from(goJsonText(v))): FieldCodec {
  return {
    toProto: (v) => (accept(v) ? { [field]: text(v as never) } : undefined),
    fromProto: (v) => {
      const raw = (v as Record<string, Uint8Array | undefined>)[field];
      if (raw === undefined || raw === null || raw.length === 0) return undefined;
      return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')) as unknown;
    },
  };
}

const fieldsV1Json = jsonText('Raw', isRecord, fieldsV1Bytes);

/** metav1.FieldsV1: the JSON object travels as its JSON text in `Raw`. */
export const fieldsV1: FieldCodec = {
  toProto: fieldsV1Json.toProto,
  fromProto: (v) => {
    if (interning) {
      const raw = (v as { Raw?: Uint8Array | null }).Raw;
      const value = raw === undefined || raw === null ? undefined : fieldsV1Values.get(raw);
      if (value !== undefined) {
        // The value now lives as long as the written object (in the watch cache): its text is
        // not kept with it, as it would not be with a parsed value (encoding it again makes it).
        fieldsV1Text.delete(value);
        return value;
      }
    }
    return fieldsV1Json.fromProto(v);
  },
};
/** runtime.RawExtension: any embedded JSON value, as its JSON text in `raw`. */
export const rawExtension: FieldCodec = jsonText('raw', (v) => v !== undefined);
/** apiextensions' JSON (defaults, enum values, examples): any JSON value, as its text in `raw`. */
export const anyJson: FieldCodec = rawExtension;

/**
 * intstr.IntOrString: a JSON number is {type: 0, intVal}, a JSON string {type: 1, strVal}.
 * (Embedded as a message, not via `message()`: its JSON form is a scalar.)
 */
export const intOrString: FieldCodec = {
  toProto: (v) => {
    if (goBytes && (isInteger(v) ? !exactInt32(v) : typeof v === 'string' && !isWellFormed(v))) inexact = true;
    return isInteger(v)
      ? goBytes ? { type: 0, intVal: v, strVal: '' } : { type: 0, intVal: v }
      : typeof v === 'string'
        ? goBytes ? { type: 1, intVal: 0, strVal: v } : { type: 1, strVal: v }
        : undefined;
  },
  fromProto: (v) => {
    const m = v as { type?: unknown; intVal?: number | null; strVal?: string | null };
    return toNumber(m.type ?? 0) === 1 ? (m.strVal ?? '') : (m.intVal ?? 0);
  },
};

/** resource.Quantity: the same string on the wire as in JSON (`{string: "500m"}`). */
export const quantity: FieldCodec = {
  toProto: (v) => {
    if (typeof v === 'string') {
      checkString(v);
      return { string: v };
    }
    return typeof v === 'number' ? { string: String(v) } : undefined;
  },
  fromProto: (v) => (v as { string?: string | null }).string ?? '',
};

/**
 * Whether a map<string,string> value can go to the encoder as it is: every value a string, no
 * `__proto__` key (which a copy cannot hold as its own key), and in Go-bytes mode the keys
 * already in Go's order (as a Go client sends them). The encoder only reads it, and a copy
 * would list the same entries in the same order.
 */
function stringMapAsIs(v: Record<string, unknown>): boolean {
  let previous: string | undefined;
  for (const k in v) {
    const item = v[k];
    if (typeof item !== 'string' || k === '__proto__') return false;
    if (goBytes) {
      if (previous !== undefined && !(previous < k)) return false;
      // The values go to the wire as they are (the keys are checked by the caller).
      if (!isWellFormed(item)) inexact = true;
    }
    previous = k;
  }
  return true;
}

/** A map with string keys whose values go through `value` (map<string,string>, map<string,bytes>, map<string,Message>...). */
export function mapOf(value: FieldCodec): FieldCodec {
  // map<string,string> (a ConfigMap's data, labels, annotations) is passed as it is when it can be.
  const strings = value === requiredString;
  return {
    toProto: (v) => {
      if (!isRecord(v)) return undefined;
      if (goBytes) {
        for (const k in v) {
          checkString(k);
          if (k === '__proto__') inexact = true;
        }
      }
      if (strings && Object.getPrototypeOf(v) === Object.prototype && stringMapAsIs(v)) return v;
      const out: Record<string, unknown> = {};
      const keys = Object.keys(v);
      // Go's encoder writes map entries in key order. (The default sort orders strings by
      // UTF-16 code units, as < does, natively: a comparator function cost ~10x on large maps.)
      if (goBytes) keys.sort();
      for (const k of keys) {
        const item = v[k];
        if (item === null || item === undefined) continue;
        const converted = value.toProto(item);
        if (converted !== undefined) out[k] = converted;
      }
      return out;
    },
    fromProto: (v) => {
      if (!isRecord(v)) return undefined;
      const out: Record<string, unknown> = {};
      let empty = true;
      for (const k of Object.keys(v)) {
        empty = false;
        out[k] = value.fromProto(v[k]) ?? zeroOf(value);
      }
      return empty ? undefined : out;
    },
    ...(value.nested !== undefined ? { nested: value.nested } : {}),
  };
}

/** What Go writes for a map value the codec leaves out (an empty string, a zero number). */
function zeroOf(codec: FieldCodec): unknown {
  return codec === requiredString || codec === string ? '' : codec === requiredInt32 || codec === requiredInt64 ? 0 : null;
}

/** A repeated field whose items go through `item`. */
export function listOf(item: FieldCodec): FieldCodec {
  return {
    toProto: (v) => {
      if (!Array.isArray(v)) return undefined;
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        const element: unknown = v[i];
        if (element === null || element === undefined) continue;
        const converted = item.toProto(element);
        if (converted !== undefined) out.push(converted);
      }
      return out;
    },
    fromProto: (v) => (Array.isArray(v) && v.length > 0 ? v.map((element) => item.fromProto(element) ?? zeroOf(item)) : undefined),
    ...(item.nested !== undefined ? { nested: item.nested } : {}),
  };
}

/** map<string,string>. */
export const stringMap: FieldCodec = mapOf(requiredString);
/** map<string,bytes>: base64 strings in JSON, raw bytes on the wire. */
export const bytesMap: FieldCodec = mapOf(bytes(false));
/** repeated string. */
export const stringList: FieldCodec = listOf(requiredString);

/** A struct or pointer to a struct: kept when present on the wire, even when empty. */
export function message(codec: MessageCodec): FieldCodec {
  return {
    toProto: (v) => (isRecord(v) || (codec.listOf !== undefined && Array.isArray(v)) ? toProtoMessage(codec, v) : undefined),
    fromProto: (v) => (codec.listOf !== undefined ? fromProtoMessage(codec, v) : fromProtoOf(codec)(v, {})),
    nested: codec,
  };
}

/** repeated message. */
export function messageList(codec: MessageCodec): FieldCodec {
  return listOf(message(codec));
}

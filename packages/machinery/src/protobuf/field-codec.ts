/**
 * The mapping between kube's JSON objects and protobuf messages, declared field by field.
 *
 * JSON → protobuf writes every field the JSON carries (null counts as absent). Protobuf →
 * JSON follows kube's Go JSON rules, because Go clients marshal every non-pointer field
 * (empty strings, zeros, empty structs) and kube's JSON then drops the `omitempty` ones:
 *   - `string`, `int32`, `int64`, `bool`: omitempty scalars, dropped when zero;
 *   - `requiredString`: no omitempty, kept when present (even "");
 *   - `optional*`: pointers, kept when present on the wire (even zero);
 *   - `time`/`microTime`: dropped when zero (an empty message), where kube writes `null`;
 *   - `message`: structs and pointers to structs, kept when present (even `{}`);
 *   - maps and lists: dropped when empty (protobuf cannot tell empty from absent).
 * So JSON → protobuf → JSON is lossless for objects in kube's canonical JSON form.
 */
import type { MessageType } from './messages.js';
import { base64OfBytes, bytesOfBase64, formatMicroTime, formatTime, parseTimestamp, toNumber, type ProtoTimestamp } from './wire-values.js';

/** How one JSON field maps to its protobuf field (same name: kapi generates with --keep-case). */
export interface FieldCodec {
  /** The protobuf value for a JSON value, or undefined to leave the field out. */
  toProto(value: unknown): unknown;
  /** The JSON value for a value present on the wire, or undefined to leave the field out. */
  fromProto(value: unknown): unknown;
  /** The message of a struct or list-of-structs field (for coverage checks against schemas). */
  readonly nested?: MessageCodec;
}

/** A message: its generated class and its fields by JSON name. */
export interface MessageCodec {
  readonly type: MessageType;
  readonly fields: Readonly<Record<string, FieldCodec>>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** The plain protobufjs object for a JSON object (fields the codec does not know are dropped). */
export function toProtoMessage(codec: MessageCodec, json: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(json)) return out;
  for (const name in codec.fields) {
    const value = json[name];
    if (value === undefined || value === null) continue;
    const converted = codec.fields[name]!.toProto(value);
    if (converted !== undefined) out[name] = converted;
  }
  return out;
}

/** kube's JSON object for a decoded protobufjs message. */
export function fromProtoMessage(codec: MessageCodec, message: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(message)) return out;
  for (const name in codec.fields) {
    if (!hasOwn(message, name)) continue;
    const value = message[name];
    if (value === undefined || value === null) continue;
    const converted = codec.fields[name]!.fromProto(value);
    if (converted !== undefined) out[name] = converted;
  }
  return out;
}

export function messageCodec(type: MessageType, fields: Record<string, FieldCodec>): MessageCodec {
  return { type, fields };
}

const scalar = (accept: (v: unknown) => boolean, keep: (v: unknown) => boolean, convert: (v: unknown) => unknown = (v) => v): FieldCodec => ({
  toProto: (v) => (accept(v) ? v : undefined),
  fromProto: (v) => {
    const converted = convert(v);
    return keep(converted) ? converted : undefined;
  },
});

const isString = (v: unknown) => typeof v === 'string';
const isInteger = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
const isBoolean = (v: unknown) => typeof v === 'boolean';
const always = () => true;

/** An omitempty string. */
export const string: FieldCodec = scalar(isString, (v) => v !== '');
/** A string without omitempty (kube's JSON always carries it). */
export const requiredString: FieldCodec = scalar(isString, always);
/** A *string. */
export const optionalString: FieldCodec = requiredString;
/** An omitempty int32. */
export const int32: FieldCodec = scalar(isInteger, (v) => v !== 0);
/** A *int32. */
export const optionalInt32: FieldCodec = scalar(isInteger, always);
/** An omitempty int64. */
export const int64: FieldCodec = scalar(isInteger, (v) => v !== 0, toNumber);
/** A *int64. */
export const optionalInt64: FieldCodec = scalar(isInteger, always, toNumber);
/** An omitempty bool. */
export const bool: FieldCodec = scalar(isBoolean, (v) => v === true);
/** A *bool. */
export const optionalBool: FieldCodec = scalar(isBoolean, always);

function timestampCodec(format: (seconds: number, nanos: number) => string): FieldCodec {
  return {
    toProto: (v) => {
      if (typeof v !== 'string') return undefined;
      const parsed = parseTimestamp(v);
      return parsed === undefined ? undefined : parsed.nanos === 0 ? { seconds: parsed.seconds } : parsed;
    },
    fromProto: (v) => {
      const t = v as ProtoTimestamp;
      const seconds = t.seconds === undefined || t.seconds === null ? 0 : toNumber(t.seconds);
      const nanos = t.nanos ?? 0;
      return seconds === 0 && nanos === 0 ? undefined : format(seconds, nanos);
    },
  };
}

/** metav1.Time (and *Time): second precision; nanos on the wire are ignored, as kube ignores them. */
export const time: FieldCodec = timestampCodec((seconds) => formatTime(seconds));
/** metav1.MicroTime (and *MicroTime): microsecond precision. */
export const microTime: FieldCodec = timestampCodec(formatMicroTime);

/** metav1.FieldsV1: the JSON object travels as its JSON text in `Raw`. */
export const fieldsV1: FieldCodec = {
  toProto: (v) => (isRecord(v) ? { Raw: Buffer.from(JSON.stringify(v)) } : undefined),
  fromProto: (v) => {
    const raw = (v as { Raw?: Uint8Array }).Raw;
    if (raw === undefined || raw === null || raw.length === 0) return undefined;
    return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')) as unknown;
  },
};

/**
 * intstr.IntOrString: a JSON number is {type: 0, intVal}, a JSON string {type: 1, strVal}.
 * (Embedded as a message, not via `message()`: its JSON form is a scalar.)
 */
export const intOrString: FieldCodec = {
  toProto: (v) => (isInteger(v) ? { type: 0, intVal: v } : typeof v === 'string' ? { type: 1, strVal: v } : undefined),
  fromProto: (v) => {
    const m = v as { type?: unknown; intVal?: number | null; strVal?: string | null };
    return toNumber(m.type ?? 0) === 1 ? (m.strVal ?? '') : (m.intVal ?? 0);
  },
};

/** resource.Quantity: the same string on the wire as in JSON (`{string: "500m"}`). */
export const quantity: FieldCodec = {
  toProto: (v) => (typeof v === 'string' ? { string: v } : typeof v === 'number' ? { string: String(v) } : undefined),
  fromProto: (v) => (v as { string?: string | null }).string ?? '',
};

/** map<string,string>. */
export const stringMap: FieldCodec = {
  toProto: (v) => {
    if (!isRecord(v)) return undefined;
    const out: Record<string, string> = {};
    for (const [k, value] of Object.entries(v)) if (typeof value === 'string') out[k] = value;
    return out;
  },
  fromProto: (v) => (isRecord(v) && Object.keys(v).length > 0 ? { ...v } : undefined),
};

/** map<string,bytes>: base64 strings in JSON, raw bytes on the wire. */
export const bytesMap: FieldCodec = {
  toProto: (v) => {
    if (!isRecord(v)) return undefined;
    const out: Record<string, Uint8Array> = {};
    for (const [k, value] of Object.entries(v)) if (typeof value === 'string') out[k] = bytesOfBase64(value);
    return out;
  },
  fromProto: (v) => {
    if (!isRecord(v)) return undefined;
    const entries = Object.entries(v);
    if (entries.length === 0) return undefined;
    const out: Record<string, string> = {};
    for (const [k, value] of entries) out[k] = base64OfBytes(value as Uint8Array);
    return out;
  },
};

/** repeated string. */
export const stringList: FieldCodec = {
  toProto: (v) => (Array.isArray(v) ? v.filter(isString) : undefined),
  fromProto: (v) => (Array.isArray(v) && v.length > 0 ? [...(v as string[])] : undefined),
};

/** A struct or pointer to a struct: kept when present on the wire, even when empty. */
export function message(codec: MessageCodec): FieldCodec {
  return {
    toProto: (v) => (isRecord(v) ? toProtoMessage(codec, v) : undefined),
    fromProto: (v) => fromProtoMessage(codec, v),
    nested: codec,
  };
}

/** repeated message. */
export function messageList(codec: MessageCodec): FieldCodec {
  return {
    toProto: (v) => (Array.isArray(v) ? v.filter(isRecord).map((item) => toProtoMessage(codec, item)) : undefined),
    fromProto: (v) => (Array.isArray(v) && v.length > 0 ? v.map((item) => fromProtoMessage(codec, item)) : undefined),
    nested: codec,
  };
}

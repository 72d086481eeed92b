/**
 * The wire-type check Go's generated Unmarshal makes and protobufjs' decoders do not: a known
 * field that arrives with another wire type fails as kube fails it
 * (`proto: wrong wireType = 2 for field Immutable`), instead of being read as garbage (a
 * string's length byte taken for a bool, and the string's bytes for more fields). Unknown
 * fields are skipped, as both do. The field table is the message type's own (the catalogue's
 * descriptor).
 */
import protobuf from 'protobufjs/light.js';
import { ProtobufDecodeError } from './envelope.js';
import type { MessageType } from './messages.js';

/** Wire types: 0 varint, 1 64-bit, 2 length-delimited, 5 32-bit. */
const SCALAR_WIRE_TYPES: Readonly<Record<string, number>> = {
  int32: 0, int64: 0, uint32: 0, uint64: 0, sint32: 0, sint64: 0, bool: 0,
  fixed64: 1, sfixed64: 1, double: 1,
  string: 2, bytes: 2,
  fixed32: 5, sfixed32: 5, float: 5,
};

/** Go's field name for a proto field (`generateName` → `GenerateName`). */
const goName = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

function expectedWireType(field: protobuf.Field): number {
  if (field.map || field.resolvedType instanceof protobuf.Type) return 2;
  if (field.resolvedType instanceof protobuf.Enum) return 0;
  return SCALAR_WIRE_TYPES[field.type] ?? 2;
}

/** What the check needs of one known field, worked out once per message type. */
interface FieldRule {
  readonly expected: number;
  /** Repeated scalars may come packed (one length-delimited run), as Go accepts. */
  readonly packable: boolean;
  /** The message to check inside a length-delimited message field. */
  readonly nested: protobuf.Type | undefined;
  readonly goName: string;
}

const rulesByType = new WeakMap<protobuf.Type, Map<number, FieldRule>>();

function rulesOf(type: protobuf.Type): Map<number, FieldRule> {
  let rules = rulesByType.get(type);
  if (rules === undefined) {
    rules = new Map();
    for (const field of type.fieldsArray) {
      field.resolve();
      const expected = expectedWireType(field);
      rules.set(field.id, {
        expected,
        packable: field.repeated && !field.map && expected !== 2,
        nested: !field.map && field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined,
        goName: goName(field.name),
      });
    }
    rulesByType.set(type, rules);
  }
  return rules;
}

/**
 * Checks `bytes` as a `type` message; returns whether they are what encoding their decoded
 * object gives back as far as field layout goes: every field known, fields in field-number order.
 */
function check(type: protobuf.Type, bytes: Uint8Array): boolean {
  const rules = rulesOf(type);
  const reader = protobuf.Reader.create(bytes);
  let canonical = true;
  let lastField = 0;
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    const field = tag >>> 3;
    if (field < lastField) canonical = false;
    lastField = field;
    const rule = rules.get(field);
    if (rule === undefined) {
      canonical = false;
      reader.skipType(wireType);
      continue;
    }
    if (wireType !== rule.expected && !(rule.packable && wireType === 2)) throw new ProtobufDecodeError(`proto: wrong wireType = ${wireType} for field ${rule.goName}`);
    if (wireType === 2 && rule.nested !== undefined) {
      if (!check(rule.nested, reader.bytes())) canonical = false;
    } else reader.skipType(wireType);
  }
  return canonical;
}

/**
 * Throws ProtobufDecodeError (`proto: wrong wireType = N for field F`) when a known field of
 * `messageType` or of a message inside it has the wrong wire type. Malformed bytes (cut short,
 * bad varints) are left to the decoder, which reports them. Returns false when the bytes hold a
 * field the message types do not know (which decoding drops) or fields out of field-number
 * order, or are malformed: encoding the decoded object would not give them back.
 */
export function checkWireTypes(messageType: MessageType, bytes: Uint8Array): boolean {
  if (!(messageType instanceof protobuf.Type)) return false;
  try {
    return check(messageType, bytes);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw err;
    // Truncation and the like: the decoder reports them in its own words.
    return false;
  }
}

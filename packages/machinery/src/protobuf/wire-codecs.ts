/**
 * Message codecs built from the catalogue's wire facts (@kapi/catalog: per field its JSON
 * name, protobuf name, kind and Go presence rule), one per message, on first use. The
 * codecs are shared and never change once built.
 */
import { wireMessage, type WireField } from '@kapi/catalog';
import * as f from './field-codec.js';
import type { FieldCodec, InlineMember, MessageCodec } from './field-codec.js';
import { messageType } from './messages.js';

const codecs = new Map<string, MessageCodec>();

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function scalarCodec(field: WireField): FieldCodec {
  const presence = field.presence ?? 'required';
  switch (field.kind) {
    case 'string':
      return presence === 'omitempty' ? f.string : f.requiredString;
    case 'int32':
      return presence === 'omitempty' ? f.int32 : f.requiredInt32;
    case 'int64':
      return presence === 'omitempty' ? f.int64 : f.requiredInt64;
    case 'bool':
      return presence === 'omitempty' ? f.bool : f.requiredBool;
    case 'double':
      return f.optionalDouble;
    case 'bytes':
      return f.bytes(presence === 'omitempty');
    case 'time':
      return presence === 'pointer' || field.container !== undefined ? f.time : f.valueTime;
    case 'microTime':
      return presence === 'pointer' || field.container !== undefined ? f.microTime : f.valueMicroTime;
    case 'quantity':
      return f.quantity;
    case 'intOrString':
      return f.intOrString;
    case 'fieldsV1':
      return f.fieldsV1;
    case 'rawExtension':
      return f.rawExtension;
    case 'json':
      return f.anyJson;
    case 'jsonSchemaPropsOrArray':
      return schemaOrList(field, 'jSONSchemas', () => f.message(schemaPropsCodec(field)));
    case 'jsonSchemaPropsOrStringArray':
      return schemaOrList(field, 'property', () => f.requiredString);
    case 'jsonSchemaPropsOrBool':
      return schemaOrBool(field);
    case 'message':
      return f.message(messageCodecOf(field.message!));
    case 'duration':
      throw new Error(`protobuf: no codec for ${field.kind} (${field.json ?? ''})`);
  }
}

/** The JSONSchemaProps codec of the package a schema-union field belongs to. */
function schemaPropsCodec(field: WireField): MessageCodec {
  const pkg = field.message!.slice(0, field.message!.lastIndexOf('.'));
  return messageCodecOf(`${pkg}.JSONSchemaProps`);
}

/** apiextensions' JSONSchemaPropsOrArray / OrStringArray: a schema object, or an array (`list` field). */
function schemaOrList(field: WireField, list: string, item: () => FieldCodec): FieldCodec {
  const schemaOf = () => schemaPropsCodec(field);
  return {
    toProto: (v) => (Array.isArray(v) ? { [list]: f.listOf(item()).toProto(v) } : isRecord(v) ? { schema: f.toProtoMessage(schemaOf(), v) } : undefined),
    fromProto: (v) => {
      const m = v as Record<string, unknown>;
      if (Object.prototype.hasOwnProperty.call(m, 'schema') && m['schema'] !== null) return f.fromProtoMessage(schemaOf(), m['schema']);
      return f.listOf(item()).fromProto(m[list]) ?? [];
    },
  };
}

/** apiextensions' JSONSchemaPropsOrBool: `true`/`false`, or a schema object (which allows). */
function schemaOrBool(field: WireField): FieldCodec {
  return {
    toProto: (v) => (typeof v === 'boolean' ? { allows: v } : isRecord(v) ? { allows: true, schema: f.toProtoMessage(schemaPropsCodec(field), v) } : undefined),
    fromProto: (v) => {
      const m = v as Record<string, unknown>;
      if (Object.prototype.hasOwnProperty.call(m, 'schema') && m['schema'] !== null) return f.fromProtoMessage(schemaPropsCodec(field), m['schema']);
      return m['allows'] === true;
    },
  };
}


/**
 * What Go's generated encoder writes for a value (non-pointer) field the JSON leaves out:
 * every non-pointer field is on the wire — scalars with their zero value (`omitempty` only
 * concerns Go's JSON), structs as their zero message (a nested struct's own value fields
 * included, so it is built through the nested codec), metav1.Time as an empty message (Go's
 * zero time marshals to nothing), resource.Quantity as "0", IntOrString as {0, 0, ""}.
 * Pointers, lists, maps and `[]byte` (written only when non-nil) stay absent.
 */
function goZeroOf(field: WireField): (() => unknown) | undefined {
  if (field.container !== undefined || field.presence === 'pointer') return undefined;
  switch (field.kind) {
    case 'string':
      return () => '';
    case 'int32':
    case 'int64':
      return () => 0;
    case 'bool':
      return () => false;
    case 'time':
    case 'microTime':
    case 'rawExtension':
    case 'json':
    case 'fieldsV1':
      return () => ({});
    case 'quantity':
      return () => ({ string: '0' });
    case 'intOrString':
      return () => ({ type: 0, intVal: 0, strVal: '' });
    case 'message': {
      const name = field.message!;
      return () => f.toProtoMessage(messageCodecOf(name), {});
    }
    default:
      return undefined;
  }
}

function fieldCodec(field: WireField): FieldCodec {
  const value = scalarCodec({ ...field, ...(field.container !== undefined ? { presence: 'required' } : {}) });
  if (field.container !== undefined) {
    const container = field.container === 'list' ? f.listOf(value) : f.mapOf(value);
    return field.presence === 'required' ? { ...container, nullWhenAbsent: true } : container;
  }
  const goZero = goZeroOf(field);
  return goZero === undefined ? value : { ...value, goZero };
}

/**
 * The codec of a catalogue message by full protobuf name (`k8s.io.api.core.v1.PodSpec`).
 * Throws for a name the catalogue lacks (a programming error).
 */
export function messageCodecOf(name: string): MessageCodec {
  const cached = codecs.get(name);
  if (cached !== undefined) return cached;
  const facts = wireMessage(name);
  if (facts === undefined) throw new Error(`protobuf: no wire facts for ${name}`);
  const fields: Record<string, FieldCodec> = {};
  const protoNames: Record<string, string> = {};
  const inline: InlineMember[] = [];
  // Registered before its fields are built: messages may refer to themselves (JSONSchemaProps).
  const codec: MessageCodec = { type: messageType(name), fields, protoNames, inline };
  codecs.set(name, codec);
  if (facts.listOf !== undefined) {
    const built: MessageCodec = { type: codec.type, fields: {}, listOf: fieldCodec(facts.listOf) };
    codecs.set(name, built);
    return built;
  }
  for (const field of facts.fields ?? []) {
    if (field.proto === '-') continue; // JSON-only: nothing on the wire
    if (field.inline === true) {
      inline.push({ proto: field.proto!, codec: messageCodecOf(field.message!) });
      continue;
    }
    const json = field.json!;
    fields[json] = fieldCodec(field);
    if (field.proto !== undefined) protoNames[json] = field.proto;
  }
  return codec;
}

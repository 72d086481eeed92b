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
      return f.time;
    case 'microTime':
      return f.microTime;
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
 * What Go's encoder writes for an absent value (non-pointer) field, for the fields whose zero
 * value decodes back to "absent" (omitempty scalars): their bytes match Go's and no JSON
 * changes. Go also writes value structs and non-omitempty scalars when absent; kapi does
 * not, because decoding those gives `{}`/`""` members the JSON of kapi's objects lacks today
 * (kube's objects, read by kapi, do carry them).
 */
function goZeroOf(field: WireField): (() => unknown) | undefined {
  if (field.container !== undefined || field.presence !== 'omitempty') return undefined;
  switch (field.kind) {
    case 'string':
      return () => '';
    case 'int32':
    case 'int64':
      return () => 0;
    case 'bool':
      return () => false;
    default:
      return undefined;
  }
}

function fieldCodec(field: WireField): FieldCodec {
  const value = scalarCodec({ ...field, ...(field.container !== undefined ? { presence: 'required' } : {}) });
  if (field.container === 'list') return f.listOf(value);
  if (field.container === 'map') return f.mapOf(value);
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

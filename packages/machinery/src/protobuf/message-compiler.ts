/**
 * Straight-line JSON ↔ protobufjs-message converters, generated once per message codec. They do
 * what field-codec.ts's generic `toProtoMessage`/`fromProtoMessage` loops did — same fields, same
 * order, same presence rules — but read and write each field by its literal name, so V8 sees one
 * object shape per site instead of a megamorphic keyed load per field; the generic loops cost
 * 5–10× more in a server converting many kinds.
 */
import type { FieldCodec, MessageCodec } from './field-codec.js';

/** Fills `out` (and returns it) with the JSON of a decoded message; `message` may be anything. */
export type CompiledFromProto = (message: unknown, out: Record<string, unknown>) => Record<string, unknown>;
/** The protobufjs plain object of a JSON value (a record; anything else gives `{}`). */
export type CompiledToProto = (json: unknown) => Record<string, unknown>;

const hasOwn = Object.prototype.hasOwnProperty;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Entry {
  json: string;
  wire: string;
  codec: FieldCodec;
}

function entries(codec: MessageCodec): Entry[] {
  const out: Entry[] = [];
  for (const json in codec.fields) out.push({ json, wire: codec.protoNames?.[json] ?? json, codec: codec.fields[json]! });
  return out;
}

const literal = (s: string) => JSON.stringify(s);

/**
 * The decoder of a message codec without `listOf`. Inline members are merged first (their
 * fields are the parent's in JSON), then every field present on the wire and not null, through
 * its field codec, left out when the codec says undefined (or `null`, for a `nullWhenAbsent`
 * field). `inline(i)` gives the compiled
 * decoder of the i-th inline member (late, since codecs may refer to themselves).
 */
export function compileFromProto(codec: MessageCodec, inline: (index: number) => CompiledFromProto): CompiledFromProto {
  const fields = entries(codec);
  const members = codec.inline ?? [];
  const body: string[] = ['if (typeof m !== "object" || m === null || Array.isArray(m)) return out;', 'let v, c;'];
  members.forEach((member, i) => {
    body.push(`if (hasOwn.call(m, ${literal(member.proto)})) inline(${i})(m[${literal(member.proto)}], out);`);
  });
  fields.forEach((field, i) => {
    const wire = literal(field.wire);
    if (field.codec.nullWhenAbsent === true) {
      body.push(`c = undefined; if (hasOwn.call(m, ${wire})) { v = m[${wire}]; if (v !== undefined && v !== null) c = f${i}.fromProto(v); } out[${literal(field.json)}] = c === undefined ? null : c;`);
      return;
    }
    body.push(`if (hasOwn.call(m, ${wire})) { v = m[${wire}]; if (v !== undefined && v !== null) { c = f${i}.fromProto(v); if (c !== undefined) out[${literal(field.json)}] = c; } }`);
  });
  body.push('return out;');
  const names = fields.map((_, i) => `f${i}`);
  const factory = new Function('hasOwn', 'inline', ...names, `return function fromProto(m, out) {\n${body.join('\n')}\n};`) as (...args: unknown[]) => CompiledFromProto;
  return factory(hasOwn, inline, ...fields.map((field) => field.codec));
}

/**
 * The encoder of a message codec without `listOf`: every field the JSON carries (not null,
 * but for a field with `nullToProto`) through its field codec, then each inline member's message; in Go-bytes mode (`goBytes()`)
 * the value fields still absent get their Go zero.
 */
export function compileToProto(codec: MessageCodec, inline: (index: number) => CompiledToProto, goBytes: () => boolean): CompiledToProto {
  const fields = entries(codec);
  const members = codec.inline ?? [];
  const body: string[] = ['const out = {};', 'if (!isRecord(j)) return out;', 'let v, c;'];
  fields.forEach((field, i) => {
    // A null is left out, unless the field says what it is on the wire (a value time's zero message).
    const onNull = field.codec.nullToProto !== undefined ? `if (v === null) out[${literal(field.wire)}] = t${i}.nullToProto(); else ` : '';
    body.push(`v = j[${literal(field.json)}]; ${onNull}if (v !== undefined && v !== null) { c = t${i}.toProto(v); if (c !== undefined) out[${literal(field.wire)}] = c; }`);
  });
  members.forEach((member, i) => body.push(`out[${literal(member.proto)}] = inline(${i})(j);`));
  const zeros = fields.map((field, i) => ({ field, i })).filter(({ field }) => field.codec.goZero !== undefined);
  if (zeros.length > 0) {
    body.push('if (goBytes()) {');
    for (const { field, i } of zeros) body.push(`  if (out[${literal(field.wire)}] === undefined) out[${literal(field.wire)}] = t${i}.goZero();`);
    body.push('}');
  }
  body.push('return out;');
  const names = fields.map((_, i) => `t${i}`);
  const factory = new Function('isRecord', 'inline', 'goBytes', ...names, `return function toProto(j) {\n${body.join('\n')}\n};`) as (...args: unknown[]) => CompiledToProto;
  return factory(isRecord, inline, goBytes, ...fields.map((field) => field.codec));
}

/**
 * Request bodies: an object written as JSON, YAML or protobuf (kube's envelope, through the
 * machinery package's codecs), with YAML tricks (anchors and aliases, deep flow mappings,
 * tags, several documents) and byte-level damage (truncation, flipped and inserted bytes,
 * random bytes, a byte-order mark, gzip).
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { encodeEnvelope, encodeObjectRaw, envelopeObject, hasProtobuf, PROTOBUF_MAGIC } from '@kapi/machinery';
import { toJsonText, toYamlText } from './wire-text.js';

export type Encoding = 'json' | 'yaml' | 'protobuf';

export const JSON_TYPE = 'application/json';
export const YAML_TYPE = 'application/yaml';
export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';

export const contentTypeOf: Record<Encoding, string> = { json: JSON_TYPE, yaml: YAML_TYPE, protobuf: PROTOBUF_TYPE };

export interface BodyPlan {
  readonly encoding: Encoding;
  readonly yamlFlowDepth: number;
  readonly yamlTrick: 'none' | 'anchors' | 'alias-bomb' | 'deep-flow' | 'tags' | 'multi-doc' | 'merge-key' | 'yaml11-scalars';
  readonly protobufTrick: 'none' | 'wrong-envelope' | 'unknown-field' | 'huge-length' | 'no-magic';
  readonly damage: 'none' | 'truncate' | 'flip' | 'insert' | 'random-bytes' | 'empty' | 'bom' | 'gzip';
  /** Where damage happens, as a fraction of the body length. */
  readonly at: number;
  readonly bytes: Uint8Array;
}

const some = <T>(none: T, ...rest: T[]) => fc.constantFrom(none, none, none, none, none, none, ...rest);

export const bodyPlan: fc.Arbitrary<BodyPlan> = fc.record({
  encoding: fc.constantFrom<Encoding>('json', 'json', 'json', 'yaml', 'yaml', 'protobuf', 'protobuf'),
  yamlFlowDepth: fc.nat(6),
  yamlTrick: some<BodyPlan['yamlTrick']>('none', 'anchors', 'alias-bomb', 'deep-flow', 'tags', 'multi-doc', 'merge-key', 'yaml11-scalars'),
  protobufTrick: some<BodyPlan['protobufTrick']>('none', 'wrong-envelope', 'unknown-field', 'huge-length', 'no-magic'),
  damage: fc.constantFrom<BodyPlan['damage']>('none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'truncate', 'flip', 'insert', 'random-bytes', 'empty', 'bom', 'gzip'),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  bytes: fc.uint8Array({ minLength: 1, maxLength: 32 }),
});

export interface EncodedBody {
  readonly bytes: Buffer;
  readonly encoding: Encoding;
  /** What was done to it, for the shape report. */
  readonly labels: readonly string[];
}

/** YAML that is not a plain rendering of an object: each trick stresses one part of a YAML decoder. */
function yamlWithTrick(object: unknown, plan: BodyPlan): string {
  const plain = toYamlText(object, { flowDepth: plan.yamlFlowDepth });
  switch (plan.yamlTrick) {
    case 'anchors':
      return `${plain}fuzzAnchor: &a {k: [1, 2, 3]}\nfuzzAlias: *a\n`;
    case 'alias-bomb': {
      // Each level references the previous one ten times: 10^depth nodes once expanded.
      const levels = [`a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]`];
      for (let i = 1; i < 9; i++) levels.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
      return `${plain}${levels.join('\n')}\n`;
    }
    case 'deep-flow':
      return `${plain}fuzzDeep: ${'{a: '.repeat(5000)}x${'}'.repeat(5000)}\n`;
    case 'tags':
      return `${plain}fuzzTags: [!!binary "aGk=", !!int "12", !!float ".nan", !!timestamp 2001-12-14, !custom x, !!set {a, b}]\n`;
    case 'multi-doc':
      return `---\n${plain}---\n${plain}...\n`;
    case 'merge-key':
      return `${plain}base: &base {x: 1}\nmerged:\n  <<: *base\n  y: 2\n`;
    case 'yaml11-scalars':
      return `${plain}fuzzScalars: [yes, no, on, off, 0o17, 017, 0x1F, 1_000, .inf, -.Inf, .NaN, ~, 2001-12-14t21:59:43.10-05:00, 12:30:00]\n`;
    default:
      return plain;
  }
}

/** The object as protobuf with the plan's envelope trick; throws when the object does not fit its message. */
function protobufOf(object: Record<string, unknown>, plan: BodyPlan): Buffer {
  // Markers (raw literals, duplicate keys) as the plain data JSON.parse makes of them.
  const plainObject = JSON.parse(toJsonText(object)) as Record<string, unknown>;
  const raw = encodeObjectRaw(plainObject);
  switch (plan.protobufTrick) {
    case 'wrong-envelope':
      return encodeEnvelope('v1', plan.bytes[0]! % 2 === 0 ? 'Secret' : 'Status', raw);
    case 'unknown-field':
      // Field 9999, wire type 2, 3 bytes.
      return envelopeObject(plainObject, Buffer.concat([raw, Buffer.from([0xfa, 0xf0, 0x04, 0x03, 0x61, 0x62, 0x63])]));
    case 'huge-length':
      // Field 1 (metadata) claiming 2^31 bytes.
      return envelopeObject(plainObject, Buffer.concat([Buffer.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x08]), raw]));
    case 'no-magic':
      return envelopeObject(plainObject, raw).subarray(PROTOBUF_MAGIC.length);
    default:
      return envelopeObject(plainObject, raw);
  }
}

function damage(bytes: Buffer, plan: BodyPlan): Buffer {
  const at = Math.floor(plan.at * bytes.length);
  switch (plan.damage) {
    case 'truncate':
      return bytes.subarray(0, at);
    case 'flip': {
      const out = Buffer.from(bytes);
      plan.bytes.forEach((b, i) => {
        if (out.length > 0) out[(at + i * 7) % out.length]! ^= b;
      });
      return out;
    }
    case 'insert':
      return Buffer.concat([bytes.subarray(0, at), plan.bytes, bytes.subarray(at)]);
    case 'random-bytes':
      return Buffer.from(plan.bytes);
    case 'empty':
      return Buffer.alloc(0);
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    case 'gzip':
      return gzipSync(bytes);
    default:
      return bytes;
  }
}

/**
 * Encodes `object` as the plan says. Protobuf is used only where kapi has a message for the
 * kind (otherwise, and when a mutated object does not fit its message, `fallback` — the valid
 * object — is encoded instead, or JSON as a last resort).
 */
export function encodeBody(object: unknown, fallback: Record<string, unknown>, plan: BodyPlan): EncodedBody {
  const labels: string[] = [];
  let encoding = plan.encoding;
  let bytes: Buffer | undefined;
  if (encoding === 'protobuf') {
    const apiVersion = String(fallback.apiVersion);
    const kind = String(fallback.kind);
    if (hasProtobuf(apiVersion, kind)) {
      for (const candidate of [object, fallback]) {
        try {
          bytes = protobufOf(candidate as Record<string, unknown>, plan);
          if (candidate === fallback && object !== fallback) labels.push('protobuf-of-valid');
          if (plan.protobufTrick !== 'none') labels.push(`protobuf:${plan.protobufTrick}`);
          break;
        } catch {
          // the mutated object has no protobuf form: try the valid one
        }
      }
    }
    if (bytes === undefined) encoding = 'json';
  }
  if (encoding === 'yaml') {
    bytes = Buffer.from(yamlWithTrick(object, plan));
    if (plan.yamlTrick !== 'none') labels.push(`yaml:${plan.yamlTrick}`);
  }
  if (encoding === 'json') bytes = Buffer.from(toJsonText(object));
  if (plan.damage !== 'none') labels.push(`damage:${plan.damage}`);
  return { bytes: damage(bytes!, plan), encoding, labels };
}

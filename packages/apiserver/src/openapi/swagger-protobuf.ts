/**
 * The Swagger 2.0 document as protobuf: gnostic's `openapi.v2.Document` message, what client-go's
 * `OpenAPISchema()` (kubectl, Helm) asks for with
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`. Encoded from the JSON
 * document (swagger.ts) the way gnostic compiles one: every known keyword to its field, every
 * `x-` key to a vendor extension holding the value as YAML, maps as repeated name/value pairs
 * in document order. Field numbers are those of gnostic's OpenAPIv2.proto.
 */
import type { Steps } from '@kapi/machinery';
import { stringify as stringifyYaml } from 'yaml';

type Json = Record<string, unknown>;

/** A message being written: its fields' bytes in order. */
class Message {
  private readonly parts: Buffer[] = [];

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  private varint(n: number): void {
    const bytes: number[] = [];
    while (n >= 0x80) {
      bytes.push((n % 128) | 0x80);
      n = Math.floor(n / 128);
    }
    bytes.push(n);
    this.parts.push(Buffer.from(bytes));
  }

  string(field: number, value: unknown): this {
    if (typeof value !== 'string' || value === '') return this;
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  strings(field: number, value: unknown): this {
    if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') this.bytes(field, Buffer.from(v, 'utf8'));
    return this;
  }

  bool(field: number, value: unknown): this {
    return value === true ? this.oneofBool(field, true) : this;
  }

  /** A bool that is written even when false (a member of a oneof). */
  oneofBool(field: number, value: boolean): this {
    this.tag(field, 0);
    this.varint(value ? 1 : 0);
    return this;
  }

  int64(field: number, value: unknown): this {
    if (typeof value !== 'number' || value === 0 || !Number.isInteger(value) || value < 0) return this;
    this.tag(field, 0);
    this.varint(value);
    return this;
  }

  double(field: number, value: unknown): this {
    if (typeof value !== 'number' || value === 0) return this;
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    this.parts.push(b);
    return this;
  }

  message(field: number, child: Message | undefined): this {
    if (child === undefined) return this;
    return this.bytes(field, child.finish());
  }

  private bytes(field: number, data: Buffer): this {
    this.tag(field, 2);
    this.varint(data.length);
    this.parts.push(data);
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const YAML_OPTIONS = { aliasDuplicateObjects: false, sortMapEntries: true, indentSeq: false, version: '1.1' } as const;

/** gnostic's Any: the value as YAML text (field 2). */
function any(value: unknown): Message {
  return new Message().string(2, stringifyYaml(value, YAML_OPTIONS));
}

/** Every `x-` key of `json` as repeated NamedAny at `field`. */
function vendorExtensions(m: Message, field: number, json: Json): Message {
  for (const [key, value] of Object.entries(json)) {
    if (key.startsWith('x-')) m.message(field, new Message().string(1, key).message(2, any(value)));
  }
  return m;
}

function namedMap<T>(m: Message, field: number, json: unknown, encode: (value: T) => Message): Message {
  if (!isObject(json)) return m;
  for (const [name, value] of Object.entries(json)) m.message(field, new Message().string(1, name).message(2, encode(value as T)));
  return m;
}

function schema(s: Json): Message {
  const m = new Message()
    .string(1, s['$ref'])
    .string(2, s['format'])
    .string(3, s['title'])
    .string(4, s['description']);
  if (s['default'] !== undefined) m.message(5, any(s['default']));
  m.double(6, s['multipleOf'])
    .double(7, s['maximum'])
    .bool(8, s['exclusiveMaximum'])
    .double(9, s['minimum'])
    .bool(10, s['exclusiveMinimum'])
    .int64(11, s['maxLength'])
    .int64(12, s['minLength'])
    .string(13, s['pattern'])
    .int64(14, s['maxItems'])
    .int64(15, s['minItems'])
    .bool(16, s['uniqueItems'])
    .int64(17, s['maxProperties'])
    .int64(18, s['minProperties'])
    .strings(19, s['required']);
  if (Array.isArray(s['enum'])) for (const v of s['enum']) m.message(20, any(v));
  const additional = s['additionalProperties'];
  if (isObject(additional)) m.message(21, new Message().message(1, schema(additional)));
  else if (typeof additional === 'boolean') m.message(21, new Message().oneofBool(2, additional));
  if (s['type'] !== undefined) m.message(22, new Message().strings(1, Array.isArray(s['type']) ? s['type'] : [s['type']]));
  if (isObject(s['items'])) m.message(23, new Message().message(1, schema(s['items'])));
  else if (Array.isArray(s['items'])) m.message(23, (s['items'] as Json[]).reduce((items, i) => items.message(1, schema(i)), new Message()));
  if (Array.isArray(s['allOf'])) for (const a of s['allOf']) if (isObject(a)) m.message(24, schema(a));
  if (isObject(s['properties'])) m.message(25, namedMap<Json>(new Message(), 1, s['properties'], schema));
  m.string(26, s['discriminator']).bool(27, s['readOnly']);
  if (s['example'] !== undefined) m.message(30, any(s['example']));
  return vendorExtensions(m, 31, s);
}

/** A query or path parameter sub-schema (the two differ only in field numbers past `name`). */
function nonBodyParameter(p: Json): Message {
  const query = p['in'] === 'query';
  const o = query ? 1 : 0;
  const sub = new Message().bool(1, p['required']).string(2, p['in']).string(3, p['description']).string(4, p['name']);
  if (query) sub.bool(5, p['allowEmptyValue']);
  sub.string(5 + o, p['type']).string(6 + o, p['format']).bool(19 + o, p['uniqueItems']);
  if (Array.isArray(p['enum'])) for (const v of p['enum']) sub.message(20 + o, any(v));
  vendorExtensions(sub, 22 + o, p);
  return new Message().message(query ? 3 : 4, sub);
}

function parametersItem(p: Json): Message {
  if (typeof p['$ref'] === 'string') return new Message().message(2, new Message().string(1, p['$ref']).string(2, p['description']));
  if (p['in'] === 'body') {
    const body = new Message().string(1, p['description']).string(2, p['name']).string(3, p['in']).bool(4, p['required']);
    if (isObject(p['schema'])) body.message(5, schema(p['schema']));
    return new Message().message(1, new Message().message(1, vendorExtensions(body, 6, p)));
  }
  return new Message().message(1, new Message().message(2, nonBodyParameter(p)));
}

function operation(op: Json): Message {
  const m = new Message().strings(1, op['tags']).string(2, op['summary']).string(3, op['description']).string(5, op['operationId']).strings(6, op['produces']).strings(7, op['consumes']);
  if (Array.isArray(op['parameters'])) for (const p of op['parameters']) if (isObject(p)) m.message(8, parametersItem(p));
  const responses = new Message();
  namedMap<Json>(responses, 1, op['responses'], (r) => {
    const response = new Message().string(1, r['description']);
    if (isObject(r['schema'])) response.message(2, new Message().message(1, schema(r['schema'])));
    return new Message().message(1, vendorExtensions(response, 5, r));
  });
  m.message(9, responses).strings(10, op['schemes']).bool(11, op['deprecated']);
  return vendorExtensions(m, 13, op);
}

const PATH_METHODS: [string, number][] = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['options', 6], ['head', 7], ['patch', 8]];

function pathItem(item: Json): Message {
  const m = new Message().string(1, item['$ref']);
  for (const [method, field] of PATH_METHODS) if (isObject(item[method])) m.message(field, operation(item[method]));
  if (Array.isArray(item['parameters'])) for (const p of item['parameters']) if (isObject(p)) m.message(9, parametersItem(p));
  return vendorExtensions(m, 10, item);
}

/** The gnostic `openapi.v2.Document` bytes of a Swagger 2.0 JSON document, a path or definition a step. */
export function* encodeSwaggerProtobufSteps(doc: Json): Steps<Buffer> {
  const m = new Message().string(1, doc['swagger']);
  const info = isObject(doc['info']) ? doc['info'] : {};
  m.message(2, vendorExtensions(new Message().string(1, info['title']).string(2, info['version']).string(3, info['description']), 7, info));
  m.string(3, doc['host']).string(4, doc['basePath']).strings(5, doc['schemes']).strings(6, doc['consumes']).strings(7, doc['produces']);
  const paths = new Message();
  for (const [name, item] of Object.entries(isObject(doc['paths']) ? doc['paths'] : {})) {
    paths.message(2, new Message().string(1, name).message(2, pathItem(item as Json)));
    yield;
  }
  m.message(8, paths);
  const definitions = new Message();
  for (const [name, value] of Object.entries(isObject(doc['definitions']) ? doc['definitions'] : {})) {
    definitions.message(1, new Message().string(1, name).message(2, schema(value as Json)));
    yield;
  }
  m.message(9, definitions);
  if (Array.isArray(doc['security'])) {
    for (const requirement of doc['security']) {
      m.message(12, namedMap<string[]>(new Message(), 1, requirement, (scopes) => new Message().strings(1, scopes)));
    }
  }
  if (isObject(doc['securityDefinitions'])) {
    m.message(
      13,
      namedMap<Json>(new Message(), 1, doc['securityDefinitions'], (d) =>
        // Only API keys (kube's bearer token) are written; kube publishes no other scheme.
        new Message().message(2, vendorExtensions(new Message().string(1, d['type']).string(2, d['name']).string(3, d['in']).string(4, d['description']), 5, d)),
      ),
    );
  }
  return vendorExtensions(m, 16, doc).finish();
}

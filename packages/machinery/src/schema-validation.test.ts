import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateAgainstSchema } from './schema-validation.js';
import type { JSONSchemaProps } from './schema.js';

const lines = (value: unknown, schema: JSONSchemaProps, path = '', definitions?: Record<string, JSONSchemaProps>): string[] =>
  validateAgainstSchema(value, schema, path, definitions ? { definitions } : {}).map((e) => `${e.field}: ${e.message}`);

const crd: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['image'],
      properties: {
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        ratio: { type: 'number' },
        image: { type: 'string', minLength: 3, maxLength: 8, pattern: '^[a-z]+$' },
        mode: { type: 'string', enum: ['a', 'b'] },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        tags: { type: 'array', maxItems: 2, minItems: 1, items: { type: 'string' } },
        env: { type: 'object', additionalProperties: { type: 'integer' } },
        containers: {
          type: 'array',
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, cpu: { type: 'integer' } } },
        },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        limits: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
      },
    },
  },
};

void test('valid object', () => {
  const value = {
    spec: {
      replicas: 3,
      ratio: 1,
      image: 'nginx',
      mode: 'a',
      port: 'http',
      note: null,
      tags: ['x'],
      env: { A: 1 },
      containers: [{ name: 'c', cpu: 2 }],
      template: { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: {} },
      limits: { cpu: '1' },
    },
  };
  assert.deepEqual(lines(value, crd), []);
  assert.deepEqual(lines({ spec: { image: 'abc', port: 8080, ratio: 0.5 } }, crd), []);
});

void test('type mismatch', () => {
  assert.deepEqual(lines({ spec: { image: 'abc', replicas: 'three' } }, crd), [
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
  ]);
  assert.deepEqual(lines({ spec: { image: 'abc', replicas: 1.5 } }, crd), [
    'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
  ]);
  // kube decodes a number no int64 holds as a float64: not an integer, however round.
  assert.deepEqual(lines({ spec: { image: 'abc', replicas: 1e29 } }, crd), [
    'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
  ]);
  assert.deepEqual(lines({ spec: { image: 'abc', replicas: 2 ** 63 } }, crd), [
    'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
  ]);
  assert.deepEqual(lines({ spec: { image: 'abc', port: true } }, crd), [
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
  ]);
  assert.deepEqual(lines({ spec: 'x' }, crd), ['spec: Invalid value: "string": spec in body must be of type object: "string"']);
  assert.deepEqual(lines({ spec: [] }, crd), ['spec: Invalid value: "array": spec in body must be of type object: "array"']);
  const typeError = validateAgainstSchema({ spec: { image: 'abc', replicas: 'x' } }, crd)[0];
  assert.equal(typeError?.type, 'FieldValueTypeInvalid');
});

void test('null handling', () => {
  assert.deepEqual(lines({ spec: { image: 'abc', replicas: null } }, crd), [
    'spec.replicas: Invalid value: "null": spec.replicas in body must be of type integer: "null"',
  ]);
  assert.deepEqual(lines({ spec: { image: 'abc', note: null } }, crd), []);
});

void test('required', () => {
  const errs = validateAgainstSchema({ spec: {} }, crd);
  assert.deepEqual(errs, [{ type: 'FieldValueRequired', field: 'spec.image', message: 'Required value' }]);
});

void test('string constraints', () => {
  assert.deepEqual(lines({ spec: { image: 'ab' } }, crd), ['spec.image: Invalid value: "ab": spec.image in body should be at least 3 chars long']);
  assert.deepEqual(lines({ spec: { image: 'abcdefghi' } }, crd), ['spec.image: Too long: may not be more than 8 bytes']);
  assert.deepEqual(lines({ spec: { image: 'ABC' } }, crd), [`spec.image: Invalid value: "ABC": spec.image in body should match '^[a-z]+$'`]);
  // kube-openapi reports only the first failing string rule of a field (maxLength, minLength, pattern), as kube-apiserver 1.32 answers (issue 23).
  assert.deepEqual(lines({ spec: { image: 'ABCDEFGHI' } }, crd), ['spec.image: Too long: may not be more than 8 bytes']);
  assert.deepEqual(lines({ spec: { image: 'AB' } }, crd), ['spec.image: Invalid value: "AB": spec.image in body should be at least 3 chars long']);
});

void test('enum', () => {
  const errs = validateAgainstSchema({ spec: { image: 'abc', mode: 'c' } }, crd);
  assert.deepEqual(errs, [{ type: 'FieldValueNotSupported', field: 'spec.mode', message: 'Unsupported value: "c": supported values: "a", "b"' }]);
  assert.deepEqual(lines(3, { type: 'integer', enum: [1, 2] }, 'x'), ['x: Unsupported value: 3: supported values: "1", "2"']);
});

void test('numeric bounds', () => {
  assert.deepEqual(lines({ spec: { image: 'abc', replicas: 0 } }, crd), [
    'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
  ]);
  assert.deepEqual(lines({ spec: { image: 'abc', replicas: 11 } }, crd), [
    'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
  ]);
  assert.deepEqual(lines(5, { type: 'integer', maximum: 5, exclusiveMaximum: true } as JSONSchemaProps, 'n'), [
    'n: Invalid value: 5: n in body should be less than 5',
  ]);
});

void test('array constraints and item paths', () => {
  assert.deepEqual(lines({ spec: { image: 'abc', tags: ['a', 'b', 'c'] } }, crd), ['spec.tags: Too many: 3: must have at most 2 items']);
  assert.deepEqual(lines({ spec: { image: 'abc', tags: [] } }, crd), ['spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items']);
  assert.deepEqual(lines({ spec: { image: 'abc', tags: ['a', 1] } }, crd), [
    'spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"',
  ]);
  assert.deepEqual(lines({ spec: { image: 'abc', containers: [{ name: 'a' }, { cpu: 'x' }] } }, crd), [
    'spec.containers[1].cpu: Invalid value: "string": spec.containers[1].cpu in body must be of type integer: "string"',
    'spec.containers[1].name: Required value',
  ]);
});

void test('maps (additionalProperties)', () => {
  assert.deepEqual(lines({ spec: { image: 'abc', env: { A: 'x' } } }, crd), [
    'spec.env.A: Invalid value: "string": spec.env.A in body must be of type integer: "string"',
  ]);
  assert.deepEqual(lines({ spec: { image: 'abc', limits: { a: '1', b: '2' } } }, crd), ['spec.limits: Too many: 2: must have at most 1 items']);
  // kube-openapi still checks the properties of an object with too many: both errors are reported.
  assert.deepEqual(lines({ spec: { image: 'abc', limits: { a: '1', b: 2 } } }, crd), [
    'spec.limits: Too many: 2: must have at most 1 items',
    'spec.limits.b: Invalid value: "integer": spec.limits.b in body must be of type string: "integer"',
  ]);
  assert.deepEqual(lines({ a: 1 }, { type: 'object', properties: {}, additionalProperties: false }), [
    'a: Invalid value: "a": a in body is a forbidden property',
  ].map((l) => l.replace(/^a: /, ': ')));
});

void test('embedded resources need apiVersion and kind', () => {
  assert.deepEqual(lines({ spec: { image: 'abc', template: { metadata: {} } } }, crd), [
    'spec.template.kind: Required value: must not be empty',
    'spec.template.apiVersion: Required value: must not be empty',
  ]);
});

void test('$ref and allOf resolve through definitions', () => {
  const definitions: Record<string, JSONSchemaProps> = {
    'io.example.Port': { type: 'object', required: ['port'], properties: { port: { type: 'integer' } } },
  };
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      a: { $ref: '#/components/schemas/io.example.Port' },
      b: { allOf: [{ $ref: '#/definitions/io.example.Port' }], description: 'x' },
      c: { $ref: 'missing' },
    },
  };
  assert.deepEqual(lines({ a: { port: 'x' }, b: {}, c: 'anything' }, schema, '', definitions), [
    'a.port: Invalid value: "string": a.port in body must be of type integer: "string"',
    'b.port: Required value',
  ]);
});

void test('a path prefix is honoured', () => {
  assert.deepEqual(lines({ x: 'y' }, { type: 'object', properties: { x: { type: 'integer' } } }, 'spec'), [
    'spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"',
  ]);
});

void test('strange input never throws', () => {
  for (const value of [undefined, null, 0, '', [], {}, [[[]]], { spec: { containers: 'x' } }]) {
    assert.ok(Array.isArray(validateAgainstSchema(value, crd)));
  }
});

void test('string length limits count code points (a surrogate pair is one, a lone surrogate one)', () => {
  const schema: JSONSchemaProps = { type: 'string', minLength: 2, maxLength: 3 };
  assert.deepEqual(lines('😀😀😀', schema, 'v'), []);
  assert.deepEqual(lines('😀', schema, 'v'), ['v: Invalid value: "😀": v in body should be at least 2 chars long']);
  assert.equal(lines('😀😀😀😀', schema, 'v').length, 1);
  assert.deepEqual(lines('\ud800\ud800\ud800', schema, 'v'), []);
  assert.equal(lines('\ud800\ud800\ud800\udc00x', schema, 'v').length, 1);
  assert.equal(lines('ab\udc00\ud800', schema, 'v').length, 1);
});

void test("pattern is RE2, as kube's: an inline (?i) after the anchor (kueue v0.10's name patterns)", () => {
  const schema: JSONSchemaProps = { type: 'string', pattern: '^(?i)[a-z]+$' };
  assert.deepEqual(lines('ABC', schema, 'a'), []);
  // kube-apiserver 1.32.13's text for the same value
  assert.deepEqual(lines('AB1', schema, 'a'), ["a: Invalid value: \"AB1\": a in body should match '^(?i)[a-z]+$'"]);
});

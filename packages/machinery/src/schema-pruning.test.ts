import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneUnknownFields } from './schema-pruning.js';
import { applyDefaults } from './schema-defaulting.js';
import type { JSONSchemaProps } from './schema.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer', default: 5 } } } },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { x: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { k: { type: 'string' } } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
        mode: { type: 'string', default: 'auto' },
        nested: { type: 'object', default: {}, properties: { depth: { type: 'integer', default: 2 } } },
        maybe: { type: 'string', nullable: true, default: 'm' },
      },
    },
  },
};

void test('prunes unknown fields and reports their paths', () => {
  const obj = {
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: { name: 'a', whatever: 1 },
    top: 1,
    spec: {
      replicas: 2,
      foo: 'x',
      items: [{ name: 'a', bar: 1 }, { baz: 2 }],
      labels: { one: { x: 'y', extra: true } },
      free: { anything: { goes: 1 }, known: { k: 'v', drop: 1 } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {}, status: {} },
    },
  };
  const pruned = pruneUnknownFields(obj, schema);
  assert.deepEqual(pruned, [
    'top',
    'spec.foo',
    'spec.items[0].bar',
    'spec.items[1].baz',
    'spec.labels[one].extra',
    'spec.free.known.drop',
    'spec.template.status',
  ]);
  assert.deepEqual(obj, {
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: { name: 'a', whatever: 1 },
    spec: {
      replicas: 2,
      items: [{ name: 'a' }, {}],
      labels: { one: { x: 'y' } },
      free: { anything: { goes: 1 }, known: { k: 'v' } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
    },
  });
});

void test('root:false does not protect apiVersion/kind/metadata', () => {
  const obj = { kind: 'x', metadata: {}, spec: {} };
  assert.deepEqual(pruneUnknownFields(obj, schema, { root: false }), ['kind', 'metadata']);
});

void test('path option prefixes reports', () => {
  assert.deepEqual(pruneUnknownFields({ a: 1 }, { type: 'object', properties: {} }, { root: false, path: 'data' }), ['data.a']);
});

void test('$ref targets are used when pruning', () => {
  const definitions = { T: { type: 'object' as const, properties: { keep: { type: 'string' as const } } } };
  const obj = { spec: { keep: 'a', drop: 'b' } };
  assert.deepEqual(pruneUnknownFields(obj, { type: 'object', properties: { spec: { $ref: '#/components/schemas/T' } } }, { definitions }), ['spec.drop']);
  assert.deepEqual(obj, { spec: { keep: 'a' } });
});

void test('scalars and odd values are left alone', () => {
  assert.deepEqual(pruneUnknownFields('x', schema), []);
  assert.deepEqual(pruneUnknownFields(null, schema), []);
  assert.deepEqual(pruneUnknownFields({ spec: null }, schema), []);
});

void test('applyDefaults fills absent and non-nullable null fields', () => {
  const obj: Record<string, unknown> = { spec: { items: [{ name: 'a' }], mode: null, maybe: null } };
  applyDefaults(obj, schema);
  assert.deepEqual(obj, {
    spec: {
      replicas: 1,
      items: [{ name: 'a', size: 5 }],
      mode: 'auto',
      maybe: null,
      nested: { depth: 2 },
    },
  });
});

void test('applyDefaults keeps given values and copies defaults', () => {
  const a: Record<string, unknown> = { spec: { replicas: 3 } };
  const b: Record<string, unknown> = { spec: {} };
  applyDefaults(a, schema);
  applyDefaults(b, schema);
  assert.equal((a.spec as Record<string, unknown>).replicas, 3);
  ((b.spec as Record<string, Record<string, unknown>>).nested!).depth = 9;
  const c: Record<string, unknown> = { spec: {} };
  applyDefaults(c, schema);
  assert.deepEqual((c.spec as Record<string, unknown>).nested, { depth: 2 });
});

void test('applyDefaults follows $ref per definitions (the same schema with other definitions gets their defaults), maps and arrays', () => {
  const refSchema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: { $ref: '#/definitions/Spec' },
      byName: { type: 'object', additionalProperties: { $ref: '#/definitions/Entry', default: { v: 'fill' } } },
      list: { type: 'array', items: { $ref: '#/definitions/Entry' } },
    },
  };
  const one = {
    Spec: { type: 'object', properties: { mode: { type: 'string', default: 'one' } } },
    Entry: { type: 'object', properties: { v: { type: 'string', default: 'e1' } } },
  } satisfies Record<string, JSONSchemaProps>;
  const two = {
    Spec: { type: 'object', properties: { mode: { type: 'string', default: 'two' }, extra: { type: 'integer', default: 7 } } },
    Entry: { type: 'object', properties: { v: { type: 'string' } } },
  } satisfies Record<string, JSONSchemaProps>;
  const make = () => ({ spec: {}, byName: { a: {}, b: null }, list: [{}, { v: 'given' }] });
  const a = applyDefaults(make(), refSchema, { definitions: one });
  assert.deepEqual(a, { spec: { mode: 'one' }, byName: { a: { v: 'e1' }, b: { v: 'fill' } }, list: [{ v: 'e1' }, { v: 'given' }] });
  const b = applyDefaults(make(), refSchema, { definitions: two });
  assert.deepEqual(b, { spec: { mode: 'two', extra: 7 }, byName: { a: {}, b: { v: 'fill' } }, list: [{}, { v: 'given' }] });
  // Again with the first definitions: nothing of the second leaks in.
  assert.deepEqual(applyDefaults(make(), refSchema, { definitions: one }), a);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSchema } from './schema-resolve.js';
import type { JSONSchemaProps } from './schema.js';

void test('resolveSchema merges $ref and allOf, once per schema and definitions', () => {
  const schema: JSONSchemaProps = { $ref: '#/definitions/A', description: 'sibling' };
  const first = { A: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } } satisfies Record<string, JSONSchemaProps>;
  const second = { A: { type: 'object', properties: { b: { type: 'integer' } } } } satisfies Record<string, JSONSchemaProps>;
  const fromFirst = resolveSchema(schema, first);
  assert.deepEqual(fromFirst, { type: 'object', description: 'sibling', properties: { a: { type: 'string' } }, required: ['a'] });
  assert.equal(resolveSchema(schema, first), fromFirst);
  // Other definitions give their own resolution, not the first one's.
  assert.deepEqual(resolveSchema(schema, second), { type: 'object', description: 'sibling', properties: { b: { type: 'integer' } } });
  assert.deepEqual(resolveSchema(schema, undefined), { description: 'sibling' });

  const plain: JSONSchemaProps = { type: 'string' };
  assert.equal(resolveSchema(plain, first), plain);
  const allOf: JSONSchemaProps = { allOf: [{ properties: { x: { type: 'string' } } }, { required: ['x'] }], type: 'object' };
  assert.deepEqual(resolveSchema(allOf, undefined), { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] });
});

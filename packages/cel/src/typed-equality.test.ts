import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '@kapi/machinery';
import { compileRule, declTypeFromSchema } from './index.js';

const schema: JSONSchemaProps = { type: 'object', properties: {
  tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
  ordered: { type: 'array', items: { type: 'string' } },
  ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
} };

function check(rule: string, self: unknown, oldSelf: unknown): unknown {
  const r = compileRule(rule, { self: declTypeFromSchema(schema)!, oldSelf: true });
  assert.ok(r.ok, !r.ok ? r.errors.join() : '');
  const out = r.program.evaluate({ self, oldSelf });
  return out.ok ? out.value : out.error;
}

void describe('equality by list type', () => {
  void it('set lists compare without order, atomic lists in order', () => {
    assert.equal(check('self.tags == oldSelf.tags', { tags: ['a', 'b'] }, { tags: ['b', 'a'] }), true);
    assert.equal(check('self.tags != oldSelf.tags', { tags: ['a', 'b'] }, { tags: ['b', 'a'] }), false);
    assert.equal(check('self.tags == oldSelf.tags', { tags: ['a', 'b'] }, { tags: ['b', 'c'] }), false);
    assert.equal(check('self.ordered == oldSelf.ordered', { ordered: ['a', 'b'] }, { ordered: ['b', 'a'] }), false);
  });

  void it('map lists match items by key', () => {
    const a = { ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] };
    const b = { ports: [{ name: 'https', port: 443 }, { name: 'http', port: 80 }] };
    assert.equal(check('self.ports == oldSelf.ports', a, b), true);
    assert.equal(check('self.ports == oldSelf.ports', a, { ports: [{ name: 'https', port: 443 }, { name: 'http', port: 81 }] }), false);
  });

  void it('objects holding such lists compare the same way (self == oldSelf)', () => {
    assert.equal(check('self == oldSelf', { tags: ['a', 'b'], ordered: ['x'] }, { tags: ['b', 'a'], ordered: ['x'] }), true);
    assert.equal(check('self == oldSelf', { tags: ['a', 'b'], ordered: ['x', 'y'] }, { tags: ['a', 'b'], ordered: ['y', 'x'] }), false);
  });
});

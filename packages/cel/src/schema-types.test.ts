import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '@kapi/machinery';
import { compileRule, declTypeFromSchema, escapePropertyName, unescapePropertyName, MAX_REQUEST_SIZE_BYTES } from './index.js';

function evalRule(schema: JSONSchemaProps, rule: string, self: unknown, isResourceRoot = false): unknown {
  const r = compileRule(rule, { self: declTypeFromSchema(schema, { isResourceRoot })! });
  if (!r.ok) return { compileError: r.errors[0] };
  const out = r.program.evaluate({ self });
  return out.ok ? out.value : { error: out.error };
}

void describe('escaping of property names', () => {
  void it("escapes as kube's Escape does", () => {
    assert.equal(escapePropertyName('foo-bar'), 'foo__dash__bar');
    assert.equal(escapePropertyName('foo.bar'), 'foo__dot__bar');
    assert.equal(escapePropertyName('foo/bar'), 'foo__slash__bar');
    assert.equal(escapePropertyName('foo__bar'), 'foo__underscores__bar');
    assert.equal(escapePropertyName('namespace'), '__namespace__');
    assert.equal(escapePropertyName('if'), '__if__');
    assert.equal(escapePropertyName('1abc'), undefined);
    assert.equal(escapePropertyName(''), undefined);
    assert.equal(escapePropertyName('a b'), undefined);
    assert.equal(unescapePropertyName('foo__dash__bar__dot__x'), 'foo-bar.x');
    assert.equal(unescapePropertyName('__namespace__'), 'namespace');
  });

  void it('rules reach escaped properties by their escaped names', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { 'x-y': { type: 'integer' }, namespace: { type: 'string' }, 'a.b': { type: 'string' } } };
    assert.equal(evalRule(schema, 'self.x__dash__y == 1', { 'x-y': 1 }), true);
    assert.equal(evalRule(schema, "self.__namespace__ == 'n'", { namespace: 'n' }), true);
    assert.equal(evalRule(schema, "has(self.a__dot__b)", {}), false);
  });
});

void describe('schema → CEL types', () => {
  void it('additionalProperties is a map, items a list', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: {
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      ports: { type: 'array', items: { type: 'integer' } },
    } };
    assert.equal(evalRule(schema, "self.labels['a'] == 'b' && 'a' in self.labels && self.labels.size() == 1", { labels: { a: 'b' } }), true);
    assert.equal(evalRule(schema, 'self.ports.all(p, p > 0 && p < 65536)', { ports: [80, 443] }), true);
  });

  void it('x-kubernetes-int-or-string is dyn', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } } };
    const rule = "type(self.port) == int ? self.port < 65536 : self.port.matches('^[a-z]+$')";
    assert.equal(evalRule(schema, rule, { port: 80 }), true);
    assert.equal(evalRule(schema, rule, { port: 'http' }), true);
    assert.equal(evalRule(schema, rule, { port: 'HTTP' }), false);
    assert.equal(declTypeFromSchema(schema)!.fields!.get('port')!.type.maxElements, MAX_REQUEST_SIZE_BYTES - 2);
  });

  void it('formats become bytes, duration and timestamps', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: {
      data: { type: 'string', format: 'byte' }, ttl: { type: 'string', format: 'duration' },
      at: { type: 'string', format: 'date-time' }, day: { type: 'string', format: 'date' },
    } };
    assert.equal(evalRule(schema, 'self.data.size() == 3', { data: Buffer.from('abc').toString('base64') }), true);
    assert.equal(evalRule(schema, "self.ttl > duration('1m')", { ttl: '1h30m' }), true);
    assert.equal(evalRule(schema, "self.at < timestamp('2030-01-01T00:00:00Z')", { at: '2026-11-27T10:00:00Z' }), true);
    assert.equal(evalRule(schema, 'self.day.getFullYear() == 2026', { day: '2026-11-27' }), true);
  });

  void it('resource roots and embedded resources declare apiVersion, kind, metadata.name and generateName only', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: {
      spec: { type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} } } },
    } };
    assert.equal(evalRule(schema, "self.metadata.name.startsWith('w') && self.kind == 'W'", { apiVersion: 'a/v1', kind: 'W', metadata: { name: 'w1' } }, true), true);
    assert.match(String((evalRule(schema, "self.metadata.labels.size() > 0", {}, true) as { compileError: string }).compileError), /undefined field 'labels'/);
    assert.equal(evalRule(schema, "self.spec.template.kind == 'Pod'", { spec: { template: { kind: 'Pod' } } }, true), true);
  });

  void it('a node without a type (bare preserve-unknown-fields) is not declared', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { any: { 'x-kubernetes-preserve-unknown-fields': true } } };
    assert.equal((evalRule(schema, 'has(self.any)', {}) as { compileError: string }).compileError, "ERROR: <input>:1:4: undefined field 'any'\n | has(self.any)\n | ...^");
  });

  void it('maxLength, maxItems and maxProperties size the declared types, else the request limit does', () => {
    const t = declTypeFromSchema({ type: 'object', properties: {
      s: { type: 'string', maxLength: 10 }, e: { type: 'string', enum: ['a', 'bbb'] }, u: { type: 'string' },
      l: { type: 'array', maxItems: 5, items: { type: 'string' } }, ul: { type: 'array', items: { type: 'integer' } },
      m: { type: 'object', additionalProperties: { type: 'boolean' } },
    } })!;
    const size = (f: string): number => t.fields!.get(f)!.type.maxElements;
    assert.equal(size('s'), 40);
    assert.equal(size('e'), 3);
    assert.equal(size('u'), MAX_REQUEST_SIZE_BYTES - 2);
    assert.equal(size('l'), 5);
    assert.equal(size('ul'), Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / 2));
    assert.equal(size('m'), Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / 10));
  });

  void it('optionalOldSelf makes oldSelf optional', () => {
    const self = declTypeFromSchema({ type: 'object', properties: { n: { type: 'integer' } } })!;
    const r = compileRule('oldSelf.hasValue() ? self.n >= oldSelf.value().n : true', { self, oldSelf: true, optionalOldSelf: true });
    assert.ok(r.ok, !r.ok ? r.errors.join() : '');
    assert.deepEqual(r.program.evaluate({ self: { n: 1 } }).ok && r.program.evaluate({ self: { n: 1 } }), { ok: true, value: true, cost: 2 });
    const dec = r.program.evaluate({ self: { n: 1 }, oldSelf: { n: 2 } });
    assert.equal(dec.ok && dec.value, false);
  });
});

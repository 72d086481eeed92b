import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '@kapi/machinery';
import { compileRule, declTypeFromSchema, type Program } from './index.js';

const minMax: JSONSchemaProps = {
  type: 'object',
  properties: { min: { type: 'integer' }, max: { type: 'integer' }, name: { type: 'string' }, ratio: { type: 'number' } },
};

function compileOk(expr: string, schema: JSONSchemaProps, oldSelf = false): Program {
  const self = declTypeFromSchema(schema)!;
  const r = compileRule(expr, { self, oldSelf });
  if (!r.ok) assert.fail(r.errors.join('\n'));
  return r.program;
}

void describe('compileRule', () => {
  void it('evaluates the issue example self.min <= self.max on JSON numbers', () => {
    const p = compileOk('self.min <= self.max', minMax);
    assert.equal(p.outputType, 'bool');
    assert.deepEqual(p.evaluate({ self: { min: 1, max: 5 } }), { ok: true, value: true, cost: 5 });
    const bad = p.evaluate({ self: { min: 5, max: 1 } });
    assert.equal(bad.ok && bad.value, false);
  });

  void it('does arithmetic on integer fields as CEL ints and number fields as doubles', () => {
    assert.equal(compileOk('self.min + 1 == 6', minMax).evaluate({ self: { min: 5 } }).ok, true);
    const r = compileOk('self.ratio * 2.0', minMax).evaluate({ self: { ratio: 1.5 } });
    assert.deepEqual(r.ok && r.value, 3);
  });

  void it('reports an undefined field as cel-go does, with the caret', () => {
    const r = compileRule('self.nope == 1', { self: declTypeFromSchema(minMax)! });
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.errors[0], "ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^");
  });

  void it('has() is false for an absent field and reading it is a runtime error', () => {
    assert.deepEqual(compileOk("has(self.name) ? self.name == 'a' : true", minMax).evaluate({ self: {} }), { ok: true, value: true, cost: 1 });
    const r = compileOk("self.name == 'a'", minMax).evaluate({ self: {} });
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.error, 'no such key: name');
  });

  void it('compares self with oldSelf in transition rules', () => {
    const p = compileOk('self.min >= oldSelf.min', minMax, true);
    assert.deepEqual(p.evaluate({ self: { min: 2 }, oldSelf: { min: 3 } }), { ok: true, value: false, cost: 5 });
  });

  void it('compares objects, and lists of objects, field by field (immutability rules)', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: {
      name: { type: 'string' }, l: { type: 'array', maxItems: 5, items: { type: 'object', properties: { x: { type: 'string', maxLength: 3 } } } },
    } };
    const p = compileOk('self == oldSelf', schema, true);
    const a = { name: 'n', l: [{ x: '1' }] };
    assert.deepEqual(p.evaluate({ self: a, oldSelf: structuredClone(a) }), { ok: true, value: true, cost: 3 });
    const changed = p.evaluate({ self: a, oldSelf: { name: 'n', l: [{ x: '2' }] } });
    assert.equal(changed.ok && changed.value, false);
    const q = compileOk('self.l == oldSelf.l', schema, true);
    const r = q.evaluate({ self: a, oldSelf: { l: [{ x: '1' }, { x: '2' }] } });
    assert.equal(r.ok && r.value, false);
    // kube estimates these at 2 and 5
    assert.equal(compileRule('self == oldSelf', { self: declTypeFromSchema(schema)!, oldSelf: true }).ok && p.estimatedCost.max, 2);
    assert.equal(q.estimatedCost.max, 5);
  });

  void it('has() on a comprehension variable compiles (Gateway API filter rules)', () => {
    const filters: JSONSchemaProps = { type: 'array', maxItems: 16, items: { type: 'object', properties: {
      type: { type: 'string' }, requestRedirect: { type: 'object', properties: { port: { type: 'integer' } } },
    } } };
    const p = compileRule("self.all(f, f.type != 'RequestRedirect' || has(f.requestRedirect))", { self: declTypeFromSchema(filters)! });
    assert.ok(p.ok, !p.ok ? p.errors.join() : '');
    const out = p.program.evaluate({ self: [{ type: 'RequestRedirect' }] });
    assert.deepEqual(out.ok && out.value, false);
  });

  void it('refuses a syntax error', () => {
    const r = compileRule('self.min <=', { self: declTypeFromSchema(minMax)! });
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.errors[0]! : '', /^ERROR: <input>:1:/);
  });
});

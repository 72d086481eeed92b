import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, declTypeFromSchema, PER_CALL_LIMIT, type Program } from './index.js';

const self = declTypeFromSchema({
  type: 'object',
  properties: {
    min: { type: 'integer' }, max: { type: 'integer' }, s: { type: 'string' },
    items: { type: 'array', items: { type: 'string' } },
    objs: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
  },
})!;

function program(rule: string): Program {
  const r = compileRule(rule, { self });
  assert.ok(r.ok, !r.ok ? r.errors.join() : '');
  return r.program;
}

void describe('runtime cost', () => {
  void it('charges what cel-go charges for selections, comparisons and calls', () => {
    assert.equal(program('self.min <= self.max').evaluate({ self: { min: 1, max: 2 } }).cost, 5);
    // ident 1 + select 1, and one comparison of two ints
    assert.equal(program('self.min == 1').evaluate({ self: { min: 1 } }).cost, 3);
    // has() is free; its operand's selection is not
    assert.equal(program('has(self.s)').evaluate({ self: {} }).cost, 1);
  });

  void it('charges a quantifier per element it visits', () => {
    const all = program("self.items.all(x, x.startsWith('a'))");
    // range 2 + result 1 + per element: condition 2, step 1, predicate (x 1 + startsWith 1)
    assert.equal(all.evaluate({ self: { items: ['a', 'ab', 'ac'] } }).cost, 3 + 3 * 5);
    const items = Array.from({ length: 100 }, (_, i) => `a${i}`);
    assert.equal(all.evaluate({ self: { items } }).cost, 3 + 100 * 5);
  });

  void it("stops an evaluation over its limit with cel-go's error, whatever && or || would have absorbed", () => {
    const items = Array.from({ length: 1000 }, (_, i) => `a${i}`);
    const p = program("true || self.items.all(x, self.items.all(y, x != y || x == y))");
    assert.deepEqual(p.evaluate({ self: { items } }), { ok: true, value: true, cost: 0 });
    const q = program("self.items.all(x, self.items.all(y, x != y || x == y)) || true");
    const r = q.evaluate({ self: { items } }, { costLimit: PER_CALL_LIMIT });
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.costExceeded, true);
    assert.equal(!r.ok && r.error, 'operation cancelled: actual cost limit exceeded');
    assert.ok(r.cost > PER_CALL_LIMIT);
  });

  void it("stops exactly where kube-apiserver 1.32.13 stops (9,615 items pass, 9,616 exceed the per-call limit)", () => {
    // kube: 'operation cancelled: actual cost limit exceeded': no further validation rules
    // will be run due to call cost exceeds limit for rule: … (on the 9,616-item object only)
    const pattern = '^a' + '(?:b)?'.repeat(66) + '$';
    const p = program(`self.items.all(x, x.matches('${pattern}'))`);
    const under = p.evaluate({ self: { items: new Array<string>(9615).fill('a') } });
    assert.deepEqual(under, { ok: true, value: true, cost: 999963 });
    const over = p.evaluate({ self: { items: new Array<string>(9616).fill('a') } });
    assert.equal(over.ok, false);
    assert.equal(!over.ok && over.costExceeded, true);
  });

  void it('the same program evaluates under different limits', () => {
    const p = program('self.objs.map(o, o.name).size() > 0');
    const self1 = { objs: [{ name: 'a' }, { name: 'b' }] };
    assert.equal(p.evaluate({ self: self1 }).ok, true);
    assert.equal(p.evaluate({ self: self1 }, { costLimit: 10 }).ok, false);
    assert.equal(p.evaluate({ self: self1 }).ok, true);
  });
});

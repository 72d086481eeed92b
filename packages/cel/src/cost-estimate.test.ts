import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '@kapi/machinery';
import { compileRule, declTypeFromSchema, STATIC_ESTIMATED_COST_LIMIT, costErrorMessage } from './index.js';

/**
 * Estimated costs kube-apiserver v1.32.13 gave for these rules (read from its 422 on CRDs
 * placing the rule under a list with maxItems n: "exceeds budget by factor of f" ⇒ cost = f·1e7/n).
 */
const schema = {
  type: 'object' as const,
  properties: {
    min: { type: 'integer' as const }, max: { type: 'integer' as const }, s: { type: 'string' as const },
    t: { type: 'string' as const, maxLength: 10 },
    items: { type: 'array' as const, items: { type: 'string' as const } },
    objs: { type: 'array' as const, maxItems: 10, items: { type: 'object' as const, properties: { name: { type: 'string' as const, maxLength: 20 } } } },
  },
};
const KUBE: readonly (readonly [string, number])[] = [
  ['self.min <= self.max', 5],
  ['self.min == 1', 2],
  ["self.s == 'x'", 3],
  ["has(self.s) ? self.s.size() < 10 : true", 5],
  ["self.t.matches('^a+$')", 7],
  ["self.objs.exists(o, o.name == 'a')", 73],
  ["self.objs.map(o, o.name).size() > 0", 155],
  ["self.t + self.t == ''", 12],
  ["self.objs.filter(o, o.name.size() > 1).size() > 0", 185],
  ["self.t.lowerAscii() == 'a'", 7],
  ["self.t in ['a','b']", 14],
  ['sets.contains([1],[1])', 22],
  ["self.objs.exists_one(o, o.name == 'a')", 54],
  ['quantity(self.t).isInteger()', 7],
  ["self.t.split(',').size() > 1", 12],
  // kube: factor 1.006634 on its own
  ['format.dns1123Label().validate(self.s).hasValue()', 10066340],
];

/** Gateway API-shaped rules (HTTPRoute matches, headers, filters), kube's estimates. */
const GATEWAY: readonly (readonly [JSONSchemaProps, string, number])[] = (() => {
  const headers: JSONSchemaProps = { type: 'array', maxItems: 16, items: { type: 'object', required: ['name', 'value'], properties: {
    name: { type: 'string', maxLength: 256 }, value: { type: 'string', maxLength: 4096 } } } };
  const path: JSONSchemaProps = { type: 'object', properties: {
    type: { type: 'string', enum: ['Exact', 'PathPrefix', 'RegularExpression'] }, value: { type: 'string', maxLength: 1024 } } };
  const filters: JSONSchemaProps = { type: 'array', maxItems: 16, items: { type: 'object', required: ['type'], properties: {
    type: { type: 'string', enum: ['RequestHeaderModifier', 'RequestRedirect', 'URLRewrite', 'RequestMirror'] },
    requestRedirect: { type: 'object', properties: { port: { type: 'integer' } } } } } };
  return [
    [headers, 'self.all(h1, self.exists_one(h2, h1.name.lowerAscii() == h2.name.lowerAscii()))', 80738],
    [path, "(self.type in ['Exact','PathPrefix']) ? !self.value.contains('//') : true", 427],
    [path, "(self.type in ['Exact','PathPrefix']) ? self.value.matches('^(?:[-A-Za-z0-9/._~!$&()*+,;=:@]|[%][0-9a-fA-F]{2})+$') : true", 5756],
    [filters, "self.all(f, f.type != 'RequestRedirect' || has(f.requestRedirect))", 130],
    [filters, "self.filter(f, f.type == 'RequestHeaderModifier').size() <= 1", 302],
    [filters, "!(self.exists(f, f.type == 'RequestRedirect') && self.exists(f, f.type == 'URLRewrite'))", 245],
  ];
})();

void describe('estimated cost', () => {
  for (const [schema, rule, kube] of GATEWAY) {
    void it(`${rule} costs ${kube} as in kube`, () => {
      const r = compileRule(rule, { self: declTypeFromSchema(schema)! });
      assert.ok(r.ok, !r.ok ? r.errors.join() : '');
      assert.equal(r.estimatedCost.max, kube);
    });
  }

  const self = declTypeFromSchema(schema)!;
  for (const [rule, kube] of KUBE) {
    void it(`${rule} costs ${kube} as in kube`, () => {
      const r = compileRule(rule, { self });
      assert.ok(r.ok, !r.ok ? r.errors.join() : '');
      assert.equal(r.estimatedCost.max, kube);
    });
  }

  void it('an unbounded list of strings makes a quantifier cost what kube says (5242880 ± 5)', () => {
    const r = compileRule("self.items.all(x, x.startsWith('a'))", { self });
    assert.ok(r.ok);
    assert.ok(Math.abs(r.estimatedCost.max - 5242880) <= 5, String(r.estimatedCost.max));
  });

  void it('words the over-budget error as kube does', () => {
    const r = compileRule('self.items.all(x, self.items.all(y, x == y))', { self });
    assert.ok(r.ok && r.estimatedCost.max > STATIC_ESTIMATED_COST_LIMIT);
    assert.equal(costErrorMessage('estimated rule cost', r.ok ? r.estimatedCost.max : 0, STATIC_ESTIMATED_COST_LIMIT),
      'estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)');
    assert.equal(costErrorMessage('estimated rule cost', 10066340, STATIC_ESTIMATED_COST_LIMIT),
      'estimated rule cost exceeds budget by factor of 1.006634x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)');
  });
});

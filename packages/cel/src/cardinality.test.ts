import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, declTypeFromSchema, expressionCost, maxCardinality, STATIC_ESTIMATED_COST_LIMIT } from './index.js';

void describe('maxCardinality', () => {
  const item = { type: 'object' as const, properties: { min: { type: 'integer' as const }, max: { type: 'integer' as const } } };
  const rule = 'self.min <= self.max && self.min <= self.max';

  void it('under an unbounded list, as many smallest values as fit in a request (kube: factor 1.048576x)', () => {
    const self = declTypeFromSchema(item)!;
    const r = compileRule(rule, { self });
    assert.ok(r.ok);
    const total = expressionCost(r.estimatedCost.max, maxCardinality([undefined], self));
    assert.equal(total / STATIC_ESTIMATED_COST_LIMIT, 1.048576);
  });

  void it('required fields make the smallest value bigger (kube accepted this CRD)', () => {
    const self = declTypeFromSchema({ ...item, required: ['min'] })!;
    const r = compileRule(rule, { self });
    assert.ok(r.ok);
    assert.equal(maxCardinality([undefined], self), 285975);
    assert.ok(expressionCost(r.estimatedCost.max, maxCardinality([undefined], self)) <= STATIC_ESTIMATED_COST_LIMIT);
  });

  void it('bounded lists and maps multiply', () => {
    assert.equal(maxCardinality([10, 5], declTypeFromSchema(item)), 50);
    assert.equal(maxCardinality([], declTypeFromSchema(item)), 1);
  });
});

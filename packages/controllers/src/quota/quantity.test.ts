/** Quota's quantities print as kube's canonical texts and keep the left operand's format. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { add, formatQuantity, parseQuantity } from './quantity.js';

const canonical = (text: string) => formatQuantity(parseQuantity(text)!);

void describe('quota quantities', () => {
  void it('prints kube\'s canonical forms', () => {
    assert.equal(canonical('1000m'), '1');
    assert.equal(canonical('0.5'), '500m');
    assert.equal(canonical('1500'), '1500');
    assert.equal(canonical('2000'), '2k');
    assert.equal(canonical('1.5Gi'), '1536Mi');
    assert.equal(canonical('512'), '512');
    assert.equal(canonical('1e3'), '1e3');
    assert.equal(canonical('0'), '0');
    assert.equal(parseQuantity('1.5x'), undefined);
  });
  void it('sums in the left operand\'s format', () => {
    assert.equal(formatQuantity(add(parseQuantity('256Mi')!, parseQuantity('256Mi')!)), '512Mi');
    assert.equal(formatQuantity(add(parseQuantity('250m')!, parseQuantity('250m')!)), '500m');
    assert.equal(formatQuantity(add(parseQuantity('0')!, parseQuantity('1Gi')!)), '1Gi');
  });
});

/** Quantities print as kube's canonical texts (as kube-apiserver 1.32.13 stores them) and add keeping the left operand's format. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addQuantities as add, compareQuantities, formatQuantity, parseQuantity, quantityMilliValue, quantityValue } from './quantity-math.js';

const canonical = (text: string) => formatQuantity(parseQuantity(text)!);

void describe('quantities', () => {
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
  // LimitRanger's cases (kube-apiserver 1.32.13 stored these canonical texts).
  void it('prints kube\'s canonical form for LimitRanger\'s defaults', () => {
    const cases: Record<string, string> = {
      '0.5': '500m', '1024Mi': '1Gi', '1500': '1500', '2000': '2k', '1e3': '1e3', '1536Mi': '1536Mi', '1.5Gi': '1536Mi', '0.1': '100m',
      '100Ki': '100Ki', '512': '512', '1000m': '1', '1e-3': '1e-3', '12e6': '12e6', '1.5': '1500m', '1Mi': '1Mi', '1000Ki': '1000Ki', '0': '0',
    };
    for (const [text, want] of Object.entries(cases)) assert.equal(canonical(text), want, text);
  });
  void it('compares by value and rounds Value/MilliValue up', () => {
    const q = (text: string) => parseQuantity(text)!;
    assert.equal(formatQuantity(add(q('1Gi'), q('512Mi'))), '1536Mi');
    assert.equal(formatQuantity(add(q('100m'), q('1'))), '1100m');
    assert.equal(compareQuantities(q('1Gi'), q('1024Mi')), 0);
    assert.equal(quantityValue(q('1.5')), 2n);
    assert.equal(quantityMilliValue(q('1n')), 1n);
    assert.equal(parseQuantity('x'), undefined);
  });
});

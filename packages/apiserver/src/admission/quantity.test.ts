/** kube's canonical quantity texts (as kube-apiserver 1.32.13 stores them), and the arithmetic LimitRanger uses. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Quantity } from './quantity.js';

const q = (text: string) => Quantity.parse(text)!;

void describe('Quantity', () => {
  void it('prints kube\'s canonical form', () => {
    const cases: Record<string, string> = {
      '0.5': '500m', '1024Mi': '1Gi', '1500': '1500', '2000': '2k', '1e3': '1e3', '1536Mi': '1536Mi', '1.5Gi': '1536Mi', '0.1': '100m',
      '100Ki': '100Ki', '512': '512', '1000m': '1', '1e-3': '1e-3', '12e6': '12e6', '1.5': '1500m', '1Mi': '1Mi', '1000Ki': '1000Ki', '0': '0',
    };
    for (const [text, canonical] of Object.entries(cases)) assert.equal(q(text).toString(), canonical, text);
  });
  void it('adds keeping the left format, compares by value, rounds Value/MilliValue up', () => {
    assert.equal(q('1Gi').add(q('512Mi')).toString(), '1536Mi');
    assert.equal(q('100m').add(q('1')).toString(), '1100m');
    assert.equal(q('1Gi').cmp(q('1024Mi')), 0);
    assert.equal(q('1.5').value(), 2n);
    assert.equal(q('1n').milliValue(), 1n);
    assert.equal(Quantity.parse('x'), undefined);
  });
});

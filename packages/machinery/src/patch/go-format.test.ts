import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { goFormatNumber, goFormatValue, goTypeName } from './go-format.js';

void describe("Go's %v of decoded JSON values", () => {
  void it('prints int64s plainly and other numbers as Go prints a float64', () => {
    // Recorded with fmt.Printf("%v") of float64 values in Go.
    const cases: [number, string][] = [
      [2147483648, '2147483648'],
      [1.5, '1.5'],
      [1e20, '1e+20'],
      [1e21, '1e+21'],
      [1e-5, '1e-05'],
      [0.0001, '0.0001'],
      [123456789.5, '1.234567895e+08'],
      [100000.5, '100000.5'],
      [2 ** 63, '9.223372036854776e+18'],
      [1e29, '1e+29'],
    ];
    for (const [n, text] of cases) assert.equal(goFormatNumber(n), text, String(n));
    assert.equal(goFormatValue({ b: [1.5, 'x'], a: null }), 'map[a:<nil> b:[1.5 x]]');
  });

  void it('types numbers as kube decodes them: int64 when an int64 holds them, else float64', () => {
    assert.deepEqual([goTypeName(3), goTypeName(1.5), goTypeName(1e29), goTypeName('x'), goTypeName({})], ['int64', 'float64', 'float64', 'string', 'map[string]interface {}']);
  });
});

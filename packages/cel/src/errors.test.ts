import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, declTypeFromSchema } from './index.js';

/** Compile errors as kube-apiserver v1.32.13 words them in a CRD's 422 (after "compilation failed: "). */
const KUBE: readonly (readonly [string, string])[] = [
  ["[1, 'a'].size() > 0", "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() > 0\n | ....^"],
  ['1 == 1.0', "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'\n | 1 == 1.0\n | ..^"],
  ["self.min + 'a' == 1", "ERROR: <input>:1:10: found no matching overload for '_+_' applied to '(int, string)'\n | self.min + 'a' == 1\n | .........^"],
  ['self.s.foo()', "ERROR: <input>:1:11: undeclared reference to 'foo' (in container '')\n | self.s.foo()\n | ..........^"],
  ['nope == 1', "ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope == 1\n | ^"],
  ['size(self.min) > 0', "ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'\n | size(self.min) > 0\n | ....^"],
  ['self.s.startsWith(1)', "ERROR: <input>:1:18: found no matching overload for 'startsWith' applied to 'string.(int)'\n | self.s.startsWith(1)\n | .................^"],
  ['self.nope == 1', "ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^"],
  ["'abc'.matches('[')", "ERROR: <input>:1:15: invalid matches argument\n | 'abc'.matches('[')\n | ..............^"],
  ['cel.bind(x, 1, x == 1)', "ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n | cel.bind(x, 1, x == 1)\n | ^"],
];

void describe('compile errors in kube’s words', () => {
  const self = declTypeFromSchema({ type: 'object', properties: { min: { type: 'integer' }, max: { type: 'integer' }, s: { type: 'string' } } })!;
  for (const [rule, kube] of KUBE) {
    void it(rule, () => {
      const r = compileRule(rule, { self });
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.errors[0], kube);
    });
  }
});

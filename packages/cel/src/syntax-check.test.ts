import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, declTypeFromSchema } from './index.js';
import { syntaxIssues } from './syntax-check.js';

/**
 * Syntax errors as kube-apiserver v1.32.13 reported them for the same CRD rules (the text
 * after "compilation failed: "), with `self` of {min: integer, max: integer, s: string}.
 */
const KUBE: readonly (readonly [string, string])[] = [
  ["self.min <", "ERROR: <input>:1:11: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.min <\n | ..........^"],
  ["(self.min", "ERROR: <input>:1:10: Syntax error: missing ')' at '<EOF>'\n | (self.min\n | .........^"],
  ["self.min)", "ERROR: <input>:1:9: Syntax error: extraneous input ')' expecting <EOF>\n | self.min)\n | ........^"],
  ["((self.min == 1)", "ERROR: <input>:1:17: Syntax error: missing ')' at '<EOF>'\n | ((self.min == 1)\n | ................^"],
  ["self.min === 1", "ERROR: <input>:1:12: Syntax error: token recognition error at: '= '\n | self.min === 1\n | ...........^"],
  ["self.min => 1", "ERROR: <input>:1:10: Syntax error: token recognition error at: '=>'\n | self.min => 1\n | .........^\nERROR: <input>:1:13: Syntax error: extraneous input '1' expecting <EOF>\n | self.min => 1\n | ............^"],
  ["self.min # 1", "ERROR: <input>:1:10: Syntax error: token recognition error at: '#'\n | self.min # 1\n | .........^\nERROR: <input>:1:12: Syntax error: extraneous input '1' expecting <EOF>\n | self.min # 1\n | ...........^"],
  ["self.s == 'abc", "ERROR: <input>:1:11: Syntax error: token recognition error at: ''abc'\n | self.s == 'abc\n | ..........^\nERROR: <input>:1:15: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.s == 'abc\n | ..............^"],
  ["self.", "ERROR: <input>:1:6: Syntax error: no viable alternative at input '.'\n | self.\n | .....^"],
  ["self.min <> 1", "ERROR: <input>:1:11: Syntax error: extraneous input '>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.min <> 1\n | ..........^"],
  ["self.min && && true", "ERROR: <input>:1:13: Syntax error: extraneous input '&&' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.min && && true\n | ............^"],
  ["[1, 2", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}\n | [1, 2\n | .....^"],
  ["{'a': 1", "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'}', ','}\n | {'a': 1\n | .......^"],
  ["self.min ! 1", "ERROR: <input>:1:10: Syntax error: mismatched input '!' expecting <EOF>\n | self.min ! 1\n | .........^"],
  ["size(self.s", "ERROR: <input>:1:12: Syntax error: missing ')' at '<EOF>'\n | size(self.s\n | ...........^"],
  ["1 +* 2", "ERROR: <input>:1:4: Syntax error: extraneous input '*' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +* 2\n | ...^"],
  ["a.b(", "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a.b(\n | ....^"],
  [")", "ERROR: <input>:1:1: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | )\n | ^"],
  ["true ? 1", "ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting ':'\n | true ? 1\n | ........^"],
  ["self..min", "ERROR: <input>:1:6: Syntax error: no viable alternative at input '..'\n | self..min\n | .....^"],
  ["'a' 'b'", "ERROR: <input>:1:5: Syntax error: extraneous input ''b'' expecting <EOF>\n | 'a' 'b'\n | ....^"],
  ["1.2.3", "ERROR: <input>:1:4: Syntax error: extraneous input '.3' expecting <EOF>\n | 1.2.3\n | ...^"],
  ["self[", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self[\n | .....^"],
  ["!", "ERROR: <input>:1:2: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !\n | .^"],
  ["-", "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-'\n | -\n | .^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | -\n | .^"],
  ["foo(,)", "ERROR: <input>:1:5: Syntax error: extraneous input ',' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | foo(,)\n | ....^"],
  ["null null", "ERROR: <input>:1:6: Syntax error: extraneous input 'null' expecting <EOF>\n | null null\n | .....^"],
  ["[1, 2,", "ERROR: <input>:1:7: Syntax error: missing ']' at '<EOF>'\n | [1, 2,\n | ......^"],
  ["{1 2}", "ERROR: <input>:1:4: Syntax error: missing ':' at '2'\n | {1 2}\n | ...^"],
  ["true ? : false", "ERROR: <input>:1:8: Syntax error: extraneous input ':' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | true ? : false\n | .......^\nERROR: <input>:1:15: Syntax error: mismatched input '<EOF>' expecting ':'\n | true ? : false\n | ..............^"],
  ["self.min == if", "ERROR: <input>:1:13: reserved identifier: if\n | self.min == if\n | ............^"],
  ["b'abc", "ERROR: <input>:1:2: Syntax error: token recognition error at: ''abc'\n | b'abc\n | .^"],
  ["'''abc", "ERROR: <input>:1:3: Syntax error: token recognition error at: ''abc'\n | '''abc\n | ..^"],
  ["- -", "ERROR: <input>:1:4: Syntax error: no viable alternative at input '-'\n | - -\n | ...^\nERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | - -\n | ...^"],
  ["-!", "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-!'\n | -!\n | .^\nERROR: <input>:1:3: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | -!\n | ..^"],
  ["self.min ==== 1", "ERROR: <input>:1:12: Syntax error: extraneous input '==' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.min ==== 1\n | ...........^"],
  ["a.b.c{", "ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER}\n | a.b.c{\n | ......^"],
  ["Foo{a 1}", "ERROR: <input>:1:7: Syntax error: missing ':' at '1'\n | Foo{a 1}\n | ......^"],
  ["'é' == 'a' +", "ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 'é' == 'a' +\n | .．..........^"],
  ["!-x", "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-x'\n | !-x\n | ..^"],
  ["self.s.matches('a', )", "ERROR: <input>:1:21: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.s.matches('a', )\n | ....................^"],
  ["'a\\qb' == 'a'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''a\\q'\n | 'a\\qb' == 'a'\n | ^\nERROR: <input>:1:12: Syntax error: extraneous input 'a' expecting <EOF>\n | 'a\\qb' == 'a'\n | ...........^\nERROR: <input>:1:13: Syntax error: token recognition error at: '''\n | 'a\\qb' == 'a'\n | ............^"],
  ["r'abc", "ERROR: <input>:1:2: Syntax error: token recognition error at: ''abc'\n | r'abc\n | .^"],
  ["1e", "ERROR: <input>:1:2: Syntax error: extraneous input 'e' expecting <EOF>\n | 1e\n | .^"],
  ["0x", "ERROR: <input>:1:2: Syntax error: extraneous input 'x' expecting <EOF>\n | 0x\n | .^"],
  // Several errors: ANTLR's recovery goes on after the first.
  ["in", "ERROR: <input>:1:1: Syntax error: mismatched input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | in\n | ^\nERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | in\n | ..^"],
  ["[1,2,3].all(x x > 0)", "ERROR: <input>:1:15: Syntax error: mismatched input 'x' expecting ')'\n | [1,2,3].all(x x > 0)\n | ..............^\nERROR: <input>:1:20: Syntax error: extraneous input ')' expecting <EOF>\n | [1,2,3].all(x x > 0)\n | ...................^"],
  ["true && in", "ERROR: <input>:1:9: Syntax error: mismatched input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | true && in\n | ........^\nERROR: <input>:1:11: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | true && in\n | ..........^"],
  ["(1 2 3)", "ERROR: <input>:1:4: Syntax error: mismatched input '2' expecting ')'\n | (1 2 3)\n | ...^"],
  ["f(1 2, 3)", "ERROR: <input>:1:5: Syntax error: mismatched input '2' expecting ')'\n | f(1 2, 3)\n | ....^"],
  ["{1: 2 3: 4}", "ERROR: <input>:1:7: Syntax error: mismatched input '3' expecting {'}', ','}\n | {1: 2 3: 4}\n | ......^"],
  ["a.b(c d).e(f g)", "ERROR: <input>:1:7: Syntax error: extraneous input 'd' expecting ')'\n | a.b(c d).e(f g)\n | ......^\nERROR: <input>:1:14: Syntax error: extraneous input 'g' expecting ')'\n | a.b(c d).e(f g)\n | .............^"],
  ["true ? 1 2 : 3", "ERROR: <input>:1:10: Syntax error: extraneous input '2' expecting ':'\n | true ? 1 2 : 3\n | .........^"],
  ["!(", "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !(\n | ..^"],
  ["( ( (", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | ( ( (\n | .....^"],
  [") ) )", "ERROR: <input>:1:1: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | ) ) )\n | ^"],
  ["self.min ? ? 1 : 2", "ERROR: <input>:1:12: Syntax error: extraneous input '?' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.min ? ? 1 : 2\n | ...........^"],
  ["1 2 + 3", "ERROR: <input>:1:3: Syntax error: mismatched input '2' expecting <EOF>\n | 1 2 + 3\n | ..^"],
  ["self.min == 1 && && self.max == 2 ||", "ERROR: <input>:1:18: Syntax error: extraneous input '&&' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.min == 1 && && self.max == 2 ||\n | .................^\nERROR: <input>:1:37: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.min == 1 && && self.max == 2 ||\n | ....................................^"],
  ["{1:2,,}", "ERROR: <input>:1:6: Syntax error: extraneous input ',' expecting '}'\n | {1:2,,}\n | .....^"],
  ["self.min == 1; self.max == 2", "ERROR: <input>:1:14: Syntax error: token recognition error at: ';'\n | self.min == 1; self.max == 2\n | .............^\nERROR: <input>:1:16: Syntax error: mismatched input 'self' expecting <EOF>\n | self.min == 1; self.max == 2\n | ...............^"],
  ["self.s.size() > 0 ? self.s : 'x' == 'y'", "ERROR: <input>:1:19: found no matching overload for '_?_:_' applied to '(bool, string, bool)'\n | self.s.size() > 0 ? self.s : 'x' == 'y'\n | ..................^"],
];

void describe('syntax errors in cel-go’s words', () => {
  const self = declTypeFromSchema({ type: 'object', properties: { min: { type: 'integer' }, max: { type: 'integer' }, s: { type: 'string' } } })!;
  for (const [rule, kube] of KUBE) {
    void it(rule, () => {
      const r = compileRule(rule, { self });
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.errors.join('\n'), kube);
    });
  }

  void it('counts lines and columns across a multi-line expression (kube, through a policy)', () => {
    const r = compileRule('true\n&& (false', {});
    assert.equal(!r.ok && r.errors.join('\n'), "ERROR: <input>:2:10: Syntax error: missing ')' at '<EOF>'\n | && (false\n | .........^");
    const c = compileRule('true &&\n  // comment\n  )', {});
    assert.equal(!c.ok && c.errors.join('\n'), "ERROR: <input>:3:3: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n |   )\n | ..^");
  });

  void it('accepts what cel-go accepts: trailing commas in literals, optional syntax, signed numbers, comments', () => {
    for (const ok of ['[,] == []', '[1, 2,].size() == 2', "{'a': 1,}.size() == 1", 'self.?min.hasValue()', '- 1 < 1 - -2', '1 -- 2 == 3', 'true // done', "r'a\\q' != 'b'"]) {
      assert.deepEqual(syntaxIssues(ok), [], ok);
    }
  });
});

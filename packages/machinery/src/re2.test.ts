import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { translateRe2 } from './re2.js';

const re = (p: string) => new RegExp(translateRe2(p), 'u');
const refused = (p: string) => {
  try {
    translateRe2(p);
  } catch (err) {
    return (err as Error).message;
  }
  return assert.fail(`${p} was accepted`);
};

void describe('RE2 patterns as JavaScript RegExps', () => {
  void it('(?i) after an anchor, as in Gateway API GRPCRoute, covers literals and class ranges', () => {
    const grpc = re('^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$');
    for (const ok of ['foo.bar', 'Foo.Bar', '.FOO_1.x']) assert.ok(grpc.test(ok), ok);
    for (const bad of ['foo..bar', '1foo', 'foo-bar']) assert.ok(!grpc.test(bad), bad);
  });

  void it('flags are scoped: (?i:...) groups, clearing with -, and to the end of the enclosing group', () => {
    assert.ok(re('a(?i:b)c').test('aBc'));
    assert.ok(!re('a(?i:b)c').test('aBC'));
    assert.ok(re('(?i)a(?-i)b').test('Ab'));
    assert.ok(!re('(?i)a(?-i)b').test('AB'));
    assert.ok(re('(x(?i)y)Y').test('xYY'));
    assert.ok(!re('(x(?i)y)y').test('xYY'));
  });

  void it('(?s) lets . match a newline, which it does not by default (but it does match \\r)', () => {
    assert.ok(!re('^a.b$').test('a\nb'));
    assert.ok(re('^a.b$').test('a\rb'));
    assert.ok(re('(?s)^a.b$').test('a\nb'));
  });

  void it('(?m) makes ^ and $ match at line breaks; without it $ is only the end of the text', () => {
    assert.ok(!re('^b$').test('a\nb'));
    assert.ok(re('(?m)^b$').test('a\nb\nc'));
    assert.ok(!re('a$').test('a\n'));
    assert.ok(re('\\Aab\\z').test('ab'));
  });

  void it('(?U) swaps greedy and lazy repetition', () => {
    assert.equal(re('(?U)a+').exec('aaa')![0], 'a');
    assert.equal(re('(?U)a+?').exec('aaa')![0], 'aaa');
    assert.equal(re('a{1,3}').exec('aaa')![0], 'aaa');
  });

  void it('named groups, \\Q…\\E, POSIX classes, \\pL, \\x{…}, escaped punctuation', () => {
    assert.equal(re('(?P<x>a)').exec('a')!.groups!['x'], 'a');
    assert.ok(re('\\Qa.b\\E').test('a.b') && !re('^\\Qa.b\\E$').test('axb'));
    assert.ok(re('^[[:alpha:]_]+$').test('ab_C'));
    assert.ok(re('^\\pL\\p{Greek}$').test('aλ'));
    assert.ok(re('\\x{41}\\-\\#\\~').test('A-#~'));
    assert.ok(re('^[\\s]$').test('\t') && !re('^\\s$').test('\u00a0'));
    assert.ok(re('a{').test('a{') && re('a}').test('a}') && re('[]a]').test(']'));
  });

  void it('refuses what RE2 refuses, with Go\'s message', () => {
    assert.equal(refused('(a)\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
    assert.equal(refused('a(?=b)'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    assert.equal(refused('a(?!b)'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?!`');
    assert.equal(refused('(?<!b)a'), 'error parsing regexp: invalid named capture: `(?<!b)a`');
    assert.equal(refused('a++'), 'error parsing regexp: invalid nested repetition operator: `++`');
    assert.equal(refused('a{1001}'), 'error parsing regexp: invalid repeat count: `{1001}`');
    assert.equal(refused('*a'), 'error parsing regexp: missing argument to repetition operator: `*`');
    assert.equal(refused('(a'), 'error parsing regexp: missing closing ): `(a`');
    assert.equal(refused('a)'), 'error parsing regexp: unexpected ): `a)`');
    assert.equal(refused('[a'), 'error parsing regexp: missing closing ]: `[a`');
    assert.equal(refused('[z-a]'), 'error parsing regexp: invalid character class range: `z-a`');
    assert.equal(refused('\\Z'), 'error parsing regexp: invalid escape sequence: `\\Z`');
  });
});

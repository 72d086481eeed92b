import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelSelectorFromObject, labelSelectorFromSet, parseLabelSelector, everythingLabels, nothingLabels } from './labels.js';
import { isStatusError } from './status.js';

function parseError(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (err) {
    assert.ok(isStatusError(err), 'expected a StatusError');
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    return err.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to fail`);
}

void test('empty selector matches everything', () => {
  const sel = parseLabelSelector('');
  assert.equal(sel.empty, true);
  assert.equal(sel.matches(undefined), true);
  assert.equal(sel.matches({ a: 'b' }), true);
  assert.equal(sel.toString(), '');
  assert.equal(everythingLabels.empty, true);
  assert.equal(parseLabelSelector('   ').empty, true);
});

void test('equality operators', () => {
  for (const text of ['app=web', 'app==web', ' app = web ']) {
    const sel = parseLabelSelector(text);
    assert.equal(sel.matches({ app: 'web' }), true, text);
    assert.equal(sel.matches({ app: 'db' }), false, text);
    assert.equal(sel.matches({}), false, text);
    assert.equal(sel.exactMatch('app'), 'web');
  }
  const ne = parseLabelSelector('app!=web');
  assert.equal(ne.matches({ app: 'web' }), false);
  assert.equal(ne.matches({ app: 'db' }), true);
  assert.equal(ne.matches({}), true, '!= matches an absent key');
  assert.equal(ne.exactMatch('app'), undefined);
});

void test('empty value after = means the empty string', () => {
  const sel = parseLabelSelector('a=,b');
  assert.equal(sel.matches({ a: '', b: 'x' }), true);
  assert.equal(sel.matches({ a: 'x', b: 'x' }), false);
  assert.equal(sel.toString(), 'a=,b');
});

void test('set operators', () => {
  const sel = parseLabelSelector('env in (prod, staging),tier notin (cache)');
  assert.equal(sel.matches({ env: 'prod', tier: 'web' }), true);
  assert.equal(sel.matches({ env: 'prod' }), true, 'notin matches absent key');
  assert.equal(sel.matches({ env: 'dev' }), false);
  assert.equal(sel.matches({ env: 'prod', tier: 'cache' }), false);
  assert.equal(sel.matches({ tier: 'web' }), false, 'in requires the key');
  assert.equal(sel.toString(), 'env in (prod,staging),tier notin (cache)');
  assert.equal(parseLabelSelector('x in (a)').exactMatch('x'), 'a');
});

void test('in/notin are plain identifiers in value position', () => {
  const sel = parseLabelSelector('x in (in,notin)');
  assert.equal(sel.matches({ x: 'notin' }), true);
  assert.equal(parseLabelSelector('in=notin').matches({ in: 'notin' }), true);
});

void test('empty members in sets', () => {
  assert.equal(parseLabelSelector('x in ()').matches({ x: '' }), true);
  const sel = parseLabelSelector('x in (foo,,baz)');
  assert.equal(sel.matches({ x: '' }), true);
  assert.equal(sel.toString(), 'x in (,baz,foo)');
});

void test('existence operators', () => {
  const sel = parseLabelSelector('a,!b');
  assert.equal(sel.matches({ a: '1' }), true);
  assert.equal(sel.matches({ a: '1', b: '2' }), false);
  assert.equal(sel.matches({ b: '2' }), false);
  assert.equal(sel.toString(), 'a,!b');
});

void test('numeric comparisons', () => {
  const gt = parseLabelSelector('n>5');
  assert.equal(gt.matches({ n: '6' }), true);
  assert.equal(gt.matches({ n: '5' }), false);
  assert.equal(gt.matches({ n: 'x' }), false);
  assert.equal(gt.matches({}), false);
  const lt = parseLabelSelector('n<1');
  assert.equal(lt.matches({ n: '-2' }), true);
  assert.equal(lt.matches({ n: '1' }), false);
  // kube also checks the bound as a label value, so negative bounds are rejected.
  assert.match(parseError('n<-1'), /^unable to parse requirement: values\[0\]\[n\]: Invalid value: "-1": a valid label/);
  assert.equal(gt.toString(), 'n>5');
});

void test('toString sorts requirements by key', () => {
  assert.equal(parseLabelSelector('z=1,a=2,m').toString(), 'a=2,m,z=1');
});

void test('prefixed keys', () => {
  assert.equal(parseLabelSelector('app.kubernetes.io/name=web').matches({ 'app.kubernetes.io/name': 'web' }), true);
});

void test('parse errors carry kube texts', () => {
  assert.equal(parseError('a=b c'), "found 'c', expected: ',' or 'end of string'");
  assert.equal(parseError('a=b,'), "found '', expected: identifier after ','");
  assert.equal(parseError(','), "found ',', expected: !, identifier, or 'end of string'");
  assert.equal(parseError('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(parseError('x in a'), "unable to parse requirement: found 'a' expected: '('");
  assert.equal(parseError('x in (a b)'), "unable to parse requirement: found 'b', expected: ',' or ')'");
  assert.equal(parseError('x in (a'), "unable to parse requirement: found '', expected: ',' or ')'");
  assert.equal(parseError('x in ('), "unable to parse requirement: found '', expected: ',', ')' or identifier");
  assert.equal(parseError('a=('), "unable to parse requirement: found '(', expected: identifier");
  assert.equal(parseError('!'), "unable to parse requirement: found '', expected: identifier");
  assert.equal(parseError('!=a'), "found '!=', expected: !, identifier, or 'end of string'");
  assert.equal(parseError('! =a'), "unable to parse requirement: found '=', expected: identifier");
});

void test('key and value validation errors', () => {
  assert.equal(
    parseError('Bad Key=x'),
    "unable to parse requirement: found 'Key', expected: in, notin, =, ==, !=, gt, lt",
  );
  assert.equal(
    parseError('-a=b'),
    `unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
  );
  assert.equal(
    parseError('a=-b'),
    `unable to parse requirement: values[0][a]: Invalid value: "-b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
  );
  assert.equal(
    parseError('a>b'),
    `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`,
  );
  assert.equal(
    parseError(`a=${'x'.repeat(64)}`),
    `unable to parse requirement: values[0][a]: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
  );
});

void test('labelSelectorFromObject', () => {
  assert.equal(labelSelectorFromObject(undefined), nothingLabels);
  assert.equal(labelSelectorFromObject(null).matches({}), false);
  assert.equal(labelSelectorFromObject({}).empty, true);
  assert.equal(labelSelectorFromObject({}).matches({ a: 'b' }), true);
  const sel = labelSelectorFromObject({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['a', 'b'] },
      { key: 'gone', operator: 'DoesNotExist' },
      { key: 'here', operator: 'Exists' },
      { key: 'env', operator: 'NotIn', values: ['dev'] },
    ],
  });
  assert.equal(sel.toString(), 'app=web,env notin (dev),!gone,here,tier in (a,b)');
  assert.equal(sel.matches({ app: 'web', tier: 'a', here: '' }), true);
  assert.equal(sel.matches({ app: 'web', tier: 'a', here: '', gone: 'x' }), false);
  assert.throws(
    () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }),
    (err: unknown) => isStatusError(err) && err.message === '"Gt" is not a valid label selector operator',
  );
  assert.throws(
    () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
    (err: unknown) => isStatusError(err) && err.message === `values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`,
  );
  assert.throws(
    () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    (err: unknown) => isStatusError(err) && err.message === `values: Invalid value: ["x"]: values set must be empty for exists and does not exist`,
  );
});

void test('labelSelectorFromSet', () => {
  const sel = labelSelectorFromSet({ b: '2', a: '1' });
  assert.equal(sel.toString(), 'a=1,b=2');
  assert.equal(sel.matches({ a: '1', b: '2', c: '3' }), true);
  assert.equal(sel.matches({ a: '1' }), false);
});

void test('garbage never crashes', () => {
  for (const text of ['((((', '))', '=', '==', '!!', 'a in (b,', 'a notin', 'a<', '\u0000', 'a=b\u0000c', 'é=1', '<>']) {
    try {
      parseLabelSelector(text);
    } catch (err) {
      assert.ok(isStatusError(err), `${JSON.stringify(text)} threw ${String(err)}`);
      assert.equal(err.code, 400);
    }
  }
});

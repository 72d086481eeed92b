import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { isStatusError } from './status.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

function decodeError(token: string, prefix = '/registry/pods/'): string {
  try {
    decodeContinue(token, prefix);
  } catch (err) {
    assert.ok(isStatusError(err));
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    return err.message;
  }
  assert.fail('expected a failure');
}

const VECTOR = 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDUsInN0YXJ0IjoiZGVmYXVsdC9uZ2lueFx1MDAwMCJ9';

void test('reference vector encodes byte for byte', () => {
  assert.equal(encodeContinue('/registry/pods/default/nginx\u0000', '/registry/pods/', 12345), VECTOR);
  assert.equal(
    Buffer.from(VECTOR, 'base64url').toString(),
    '{"v":"meta.k8s.io/v1","rv":12345,"start":"default/nginx\\u0000"}',
  );
});

void test('reference vector decodes', () => {
  assert.deepEqual(decodeContinue(VECTOR, '/registry/pods/'), {
    fromKey: '/registry/pods/default/nginx\u0000',
    resourceVersion: 12345,
  });
});

void test('round trip for namespaced prefix, negative rv and Go HTML escapes', () => {
  const token = encodeContinue('/registry/pods/ns/a<b>&c\u0000', '/registry/pods/ns/', -1);
  assert.equal(Buffer.from(token, 'base64url').toString(), '{"v":"meta.k8s.io/v1","rv":-1,"start":"a\\u003cb\\u003e\\u0026c\\u0000"}');
  assert.ok(!token.includes('='));
  assert.deepEqual(decodeContinue(token, '/registry/pods/ns/'), { fromKey: '/registry/pods/ns/a<b>&c\u0000', resourceVersion: -1 });
});

void test('encode rejects a key outside the prefix', () => {
  assert.throws(() => encodeContinue('/registry/x/a', '/registry/pods/', 1), (err: unknown) => isStatusError(err) && err.code === 500);
});

void test('bad base64', () => {
  assert.equal(decodeError('abc$'), 'invalid continue token: continue key is not valid: illegal base64 data at input byte 3');
  assert.equal(decodeError('eyJ2Ijo='), 'invalid continue token: continue key is not valid: illegal base64 data at input byte 7');
  assert.equal(decodeError('a'), 'invalid continue token: continue key is not valid: illegal base64 data at input byte 0');
  assert.equal(decodeError('abcde'), 'invalid continue token: continue key is not valid: illegal base64 data at input byte 4');
});

void test('bad JSON', () => {
  assert.match(decodeError(b64('{not json')), /^invalid continue token: continue key is not valid: /);
  // Bytes that cannot start a JSON value: Go's scanner text, its byte quoted as Go quotes it (issue 23).
  assert.equal(decodeError('garbage'), "invalid continue token: continue key is not valid: invalid character '\\u0081' looking for beginning of value");
  assert.equal(decodeError(b64('xyz')), "invalid continue token: continue key is not valid: invalid character 'x' looking for beginning of value");
  assert.equal(decodeError(b64('\x01')), "invalid continue token: continue key is not valid: invalid character '\\x01' looking for beginning of value");
  assert.equal(
    decodeError(b64('[1]')),
    'invalid continue token: continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken',
  );
  assert.equal(
    decodeError(b64('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}')),
    'invalid continue token: continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64',
  );
  assert.equal(
    decodeError(b64('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}')),
    'invalid continue token: continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64',
  );
});

void test('unknown version', () => {
  assert.equal(
    decodeError(b64('{"v":"v2","rv":5,"start":"a"}')),
    'invalid continue token: continue key is not valid: server does not recognize this encoded version v2',
  );
  assert.equal(decodeError(b64('{}')), 'invalid continue token: continue key is not valid: server does not recognize this encoded version ');
});

void test('zero rv', () => {
  assert.equal(
    decodeError(b64('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}')),
    'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
});

void test('empty start', () => {
  assert.equal(
    decodeError(b64('{"v":"meta.k8s.io/v1","rv":3,"start":""}')),
    'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
  );
});

void test('path traversal', () => {
  for (const start of ['../secrets/x', 'a/../../b', 'a//b', 'a/./b', 'a/']) {
    assert.equal(
      decodeError(b64(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 3, start }))),
      `invalid continue token: continue key is not valid: ${start}`,
    );
  }
});

void test('leading slash is accepted and stripped', () => {
  assert.deepEqual(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":7,"start":"/ns/a\\u0000"}'), '/registry/pods/'), {
    fromKey: '/registry/pods/ns/a\u0000',
    resourceVersion: 7,
  });
});

void test('keys match case-insensitively, as Go does', () => {
  assert.deepEqual(decodeContinue(b64('{"V":"meta.k8s.io/v1","RV":7,"Start":"a"}'), '/p/'), { fromKey: '/p/a', resourceVersion: 7 });
});

void test('rv is an int64 literal as written: exponents, fractions and values past int64 are type errors', () => {
  const rvError = (literal: string) => `invalid continue token: continue key is not valid: json: cannot unmarshal number ${literal} into Go struct field continueToken.rv of type int64`;
  for (const literal of ['1e30', '1E2', '1.0', '5e0', '9223372036854775808', '-9223372036854775809', '100000000000000000000000000000']) {
    assert.equal(decodeError(b64(`{"v":"meta.k8s.io/v1","rv":${literal},"start":"a"}`)), rvError(literal));
  }
  assert.deepEqual(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":-9223372036854775808,"start":"a"}'), '/p/').fromKey, '/p/a');
  assert.equal(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":-1,"start":"a"}'), '/p/').resourceVersion, -1);
  // Members apply in order; the first type error is the one reported, as Go's decoder saves it.
  assert.equal(decodeError(b64('{"v":"meta.k8s.io/v1","rv":1e30,"rv":5,"start":"a"}')), rvError('1e30'));
  assert.equal(decodeError(b64('{"v":"meta.k8s.io/v1","rv":5,"RV":1.5,"start":"a"}')), rvError('1.5'));
  assert.equal(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":5,"rv":7,"start":"a"}'), '/p/').resourceVersion, 7);
  // Other members, nested values and strings holding braces are skipped whole.
  assert.equal(decodeContinue(b64('{"x":{"rv":"\\"}","y":[1e30,{}]},"v":"meta.k8s.io/v1", "rv" : 9 ,"start":"a"}'), '/p/').resourceVersion, 9);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJsonSyntaxError } from './go-json-syntax.js';

// Each text with the error kube-apiserver 1.32 (Go's encoding/json) reported for it, read from
// the oracle as `couldn't get version/kind; json parse error: <this>` for a stored value.
const CASES: readonly [string, string][] = [
  ['{"kind":"ConfigMap","metadata":{"name":"bad1"', 'unexpected end of JSON input'],
  ['{"a":"b"} trailing', "invalid character 't' after top-level value"],
  ['{nope', "invalid character 'n' looking for beginning of object key string"],
  ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
  ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
  ['{"a" "b"}', `invalid character '"' after object key`],
  ['{"a":"b" "c":"d"}', `invalid character '"' after object key:value pair`],
  ['{"x":[1 2]}', "invalid character '2' after array element"],
  ['{"x":01}', "invalid character '1' after object key:value pair"],
  ['{"x":1.}', "invalid character '}' after decimal point in numeric literal"],
  ['{"x":1e}', "invalid character '}' in exponent of numeric literal"],
  ['{"x":-}', "invalid character '}' in numeric literal"],
  ['{"x":}', "invalid character '}' looking for beginning of value"],
  ['{"x":"\\u12"}', `invalid character '"' in \\u hexadecimal character escape`],
  ['{"x":nul}', "invalid character '}' in literal null (expecting 'l')"],
  ['{"x":[1,]}', "invalid character ']' looking for beginning of value"],
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ['{"a":1}}', "invalid character '}' after top-level value"],
  [`{"x":'a'}`, "invalid character '\\'' looking for beginning of value"],
  ['', 'unexpected end of JSON input'],
  ['   ', 'unexpected end of JSON input'],
  ['{"a":"line\nbreak"}', "invalid character '\\n' in string literal"],
  // At the end Go's scanner feeds one space: an open literal or fraction fails on it.
  ['{"a":fals', "invalid character ' ' in literal false (expecting 'e')"],
  ['{"x":1.', "invalid character ' ' after decimal point in numeric literal"],
  ['{"x":12', 'unexpected end of JSON input'],
  ['{"x":"\u00e9', 'unexpected end of JSON input'],
  ['{"a":\u00e9}', "invalid character 'Ã' looking for beginning of value"],
];

void test('Go encoding/json syntax errors, as kube reports them', () => {
  for (const [text, want] of CASES) assert.equal(goJsonSyntaxError(text), want, text);
});

void test('valid JSON has no error', () => {
  for (const text of ['{}', '[]', '1', '-0.5e+10', ' "x" ', '{"a":[1,{"b":null}],"c":true,"d":false}', '{"é":"\\u00e9"}', '[ ]', '{ }']) {
    assert.equal(goJsonSyntaxError(text), undefined, text);
  }
});

void test('nesting past 10000 levels is refused as Go refuses it', () => {
  assert.equal(goJsonSyntaxError('['.repeat(10_001)), "invalid character '[' exceeded max depth");
  assert.equal(goJsonSyntaxError('['.repeat(10_000) + ']'.repeat(10_000)), undefined);
});

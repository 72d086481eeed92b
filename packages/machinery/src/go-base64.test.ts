import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { base64ErrorOffset } from './go-base64.js';

void describe('base64ErrorOffset (Go encoding/json []byte rules)', () => {
  void it('accepts valid, padded text and ignores newlines', () => {
    for (const ok of ['', 'YQ==', 'YWI=', 'YWJj', 'YWJj\nZGVm', 'YW\r\nJj']) assert.equal(base64ErrorOffset(ok), undefined, ok);
  });
  void it('reports the offsets Go reports', () => {
    assert.equal(base64ErrorOffset('YWJj!'), 4);
    assert.equal(base64ErrorOffset('abc'), 0);
    assert.equal(base64ErrorOffset('YWJjZ'), 4);
    assert.equal(base64ErrorOffset('YQ='), 3);
    assert.equal(base64ErrorOffset('Y==='), 1);
    assert.equal(base64ErrorOffset('YQ==YQ=='), 4);
    assert.equal(base64ErrorOffset('YQ=x'), 2);
  });
});

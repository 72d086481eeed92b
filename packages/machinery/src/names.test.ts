import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateName, newUID, nowRFC3339 } from './names.js';
import { formatApiVersion, parseApiVersion } from './gvk.js';

void test('generateName appends 5 characters from kube alphabet', () => {
  const name = generateName('web-');
  assert.match(name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const long = generateName('x'.repeat(80));
  assert.equal(long.length, 63);
  assert.ok(long.startsWith('x'.repeat(58)));
  assert.notEqual(generateName('a-'), generateName('a-') + 'z');
});

void test('newUID is a v4 UUID', () => {
  assert.match(newUID(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(newUID(), newUID());
});

void test('nowRFC3339 has seconds precision', () => {
  assert.equal(nowRFC3339(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678))), '2024-01-02T03:04:05Z');
  assert.match(nowRFC3339(), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
});

void test('apiVersion helpers', () => {
  assert.deepEqual(parseApiVersion('apps/v1'), { group: 'apps', version: 'v1' });
  assert.deepEqual(parseApiVersion('v1'), { group: '', version: 'v1' });
  assert.deepEqual(parseApiVersion(''), { group: '', version: '' });
  assert.equal(parseApiVersion('a/b/c'), undefined);
  assert.equal(formatApiVersion('', 'v1'), 'v1');
  assert.equal(formatApiVersion('apps', 'v1'), 'apps/v1');
});

void test('nowRFC3339 without an argument is the current second, in UTC', () => {
  const before = Math.floor(Date.now() / 1000) * 1000;
  const now = nowRFC3339();
  const after = Date.now();
  assert.match(now, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const ms = Date.parse(now);
  assert.ok(ms >= before && ms <= after, `${now} not within [${before}, ${after}]`);
  assert.equal(nowRFC3339(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678))), '2024-01-02T03:04:05Z');
});

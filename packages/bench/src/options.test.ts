import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSuiteOptions } from './options.js';

void test('defaults and --quick', () => {
  const full = parseSuiteOptions([], '/out');
  assert.deepEqual([full.concurrency, full.durationMs, full.warmupMs, full.url, full.pin, full.outDir], [[1, 16, 64], 60_000, 30_000, undefined, true, '/out']);
  const quick = parseSuiteOptions(['--quick'], '/out');
  assert.deepEqual([quick.quick, quick.concurrency, quick.durationMs, quick.warmupMs], [true, [16], 10_000, 2_000]);
});

void test('flags in both --flag value and --flag=value forms', () => {
  const o = parseSuiteOptions(
    ['--concurrency=4,8', '--duration', '5', '--warmup=0', '--url', 'http://127.0.0.1:8080/', '--server-pid', '42', '--etcd-servers', 'http://a:1,http://b:2', '--no-pin', '--out', 'x'],
    '/out',
  );
  assert.deepEqual(o.concurrency, [4, 8]);
  assert.equal(o.durationMs, 5000);
  assert.equal(o.warmupMs, 0);
  assert.equal(o.url, 'http://127.0.0.1:8080');
  assert.equal(o.serverPid, 42);
  assert.deepEqual(o.etcdServers, ['http://a:1', 'http://b:2']);
  assert.equal(o.pin, false);
  assert.equal(o.outDir, 'x');
});

void test('bad input is a clear error', () => {
  assert.throws(() => parseSuiteOptions(['--bogus'], '/o'), /unknown option --bogus/);
  assert.throws(() => parseSuiteOptions(['--duration', '0'], '/o'), /--duration needs a positive number/);
  assert.throws(() => parseSuiteOptions(['--concurrency', '1,x'], '/o'), /--concurrency needs a positive number, got x/);
  assert.throws(() => parseSuiteOptions(['--url', 'localhost'], '/o'), /--url needs an http\(s\) URL/);
  assert.throws(() => parseSuiteOptions(['--url'], '/o'), /got nothing/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSuiteOptions } from './options.js';

void test('defaults and --quick', () => {
  const full = parseSuiteOptions([], '/out');
  assert.deepEqual([full.concurrency, full.durationMs, full.warmupMs, full.url, full.pin, full.outDir], [[1, 16, 64, 256], 4_000, 3_000, undefined, true, '/out']);
  assert.deepEqual(
    [full.scenarios, full.listObjects, full.listSizes, full.listConcurrency, full.watchers, full.fanoutRates, full.memoryObjects],
    [['crud', 'list', 'fanout', 'memory', 'restart', 'mixed', 'large', 'replicas', 'pods', 'admission'], 10_000, [10_000, 50_000], [1, 10], 1000, [10, 100, 300], [10_000, 50_000]],
  );
  assert.deepEqual([full.restartObjects, full.restartInformers, full.mixedDurationMs, full.largeObjects, full.largeConcurrency], [50_000, 500, 300_000, 300, 10]);
  const quick = parseSuiteOptions(['--quick'], '/out');
  assert.deepEqual([quick.quick, quick.concurrency, quick.durationMs, quick.warmupMs], [true, [16], 2_000, 1_000]);
  assert.deepEqual([quick.listSizes, quick.listConcurrency, quick.fanoutRates, quick.memoryObjects, quick.mixedDurationMs], [[5_000], [1], [100], [5_000], 10_000]);
  assert.equal(quick.scenarios.includes('representations'), false);
  assert.deepEqual([full.objectSizes, quick.objectSizes], [[1024, 10240], [1024, 10240]]);
  assert.deepEqual(parseSuiteOptions(['--object-sizes=2048'], '/out').objectSizes, [2048]);
  assert.throws(() => parseSuiteOptions(['--object-sizes', '1024,0'], '/out'), /--object-sizes needs a positive number, got 0/);
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
  assert.equal(o.workers, 1);
  assert.deepEqual(o.etcdServers, ['http://a:1', 'http://b:2']);
  assert.equal(o.pin, false);
  assert.equal(o.outDir, 'x');
});

void test('scenario flags', () => {
  const o = parseSuiteOptions(['--scenarios=list,fanout', '--list-objects', '500', '--watchers=10', '--fanout-rates', '5,50', '--memory-objects=2000,1000', '--scenario-duration', '3'], '/o');
  assert.deepEqual(o.scenarios, ['list', 'fanout']);
  assert.equal(o.listObjects, 500);
  assert.equal(o.watchers, 10);
  assert.deepEqual(o.fanoutRates, [5, 50]);
  assert.deepEqual(o.memoryObjects, [1000, 2000]);
  assert.equal(o.scenarioDurationMs, 3000);
  assert.deepEqual(o.fanoutVariants, ['all', 'tls', 'field-selector']);
  assert.deepEqual(parseSuiteOptions(['--fanout-variants', 'field-selector'], '/o').fanoutVariants, ['field-selector']);
  assert.throws(() => parseSuiteOptions(['--fanout-variants', 'all,nope'], '/o'), /--fanout-variants takes all,tls,field-selector; got nope/);
  assert.throws(() => parseSuiteOptions(['--scenarios', 'list,nope'], '/o'), /--scenarios takes crud,list,fanout,memory,representations,restart,mixed,large,replicas,pods,admission,client-go; got nope/);
  assert.deepEqual(parseSuiteOptions(['--list-objects', '50000,10000'], '/o').listSizes, [10_000, 50_000]);
});

void test('--raw-etcd-go-clients: clients of the Go raw-etcd baseline, 0 leaves it out', () => {
  assert.equal(parseSuiteOptions([], '/o').rawEtcdGoClients, 1);
  assert.equal(parseSuiteOptions(['--raw-etcd-go-clients', '4'], '/o').rawEtcdGoClients, 4);
  assert.equal(parseSuiteOptions(['--raw-etcd-go-clients=0'], '/o').rawEtcdGoClients, 0);
  assert.throws(() => parseSuiteOptions(['--raw-etcd-go-clients', '-1'], '/o'), /--raw-etcd-go-clients needs a positive number/);
  assert.throws(() => parseSuiteOptions(['--raw-etcd-go-clients'], '/o'), /--raw-etcd-go-clients needs a positive number, got nothing/);
});

void test('bad input is a clear error', () => {
  assert.throws(() => parseSuiteOptions(['--bogus'], '/o'), /unknown option --bogus/);
  assert.throws(() => parseSuiteOptions(['--duration', '0'], '/o'), /--duration needs a positive number/);
  assert.throws(() => parseSuiteOptions(['--concurrency', '1,x'], '/o'), /--concurrency needs a positive number, got x/);
  assert.throws(() => parseSuiteOptions(['--url', 'localhost'], '/o'), /--url needs an http\(s\) URL/);
  assert.throws(() => parseSuiteOptions(['--url'], '/o'), /got nothing/);
  assert.throws(() => parseSuiteOptions(['--kubeconfig', 'k', '--url', 'http://x'], '/o'), /exclude each other/);
  assert.throws(() => parseSuiteOptions(['--context', 'c'], '/o'), /--context needs --kubeconfig/);
});

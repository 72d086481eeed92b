/**
 * /debug/pprof as kube-apiserver 1.32 serves it (--profiling, default on), answered from V8:
 * a real server on etcd, profiles read back with the pprof reader kapi-bench uses for kube's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodePprof } from '@kapi/machinery';
import { request as httpsRequest } from 'node:https';
import { eventuallyValue, startSecureServer, type SecureServer } from '../testing/secure-server.js';

const NOSNIFF = 'nosniff';

void describe('/debug/pprof with --profiling (the default)', () => {
  let s: SecureServer;
  let admin: { cert: SecureServer['admin'] };
  before(async () => {
    // A request timeout shorter than the profile: kube runs /debug/pprof/ requests as long-running.
    s = await startSecureServer({ requestTimeoutMs: 500 });
    admin = { cert: s.admin };
  });
  after(async () => {
    await s?.close();
  });

  void it('serves a CPU profile of the given seconds in pprof format, with kapi\'s own functions in it', async () => {
    let loading = true;
    const load = (async () => {
      while (loading) await s.request(admin, 'GET', '/api/v1/namespaces/default/configmaps');
    })();
    const started = Date.now();
    const profiled = s.request(admin, 'GET', '/debug/pprof/profile?seconds=1');
    // A second profile while one runs: Go's 500.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await s.request(admin, 'GET', '/debug/pprof/profile?seconds=1');
    const res = await profiled;
    loading = false;
    await load;
    assert.equal(busy.status, 500);
    assert.equal(busy.text, 'Could not enable CPU profiling: cpu profiling already in use\n');
    assert.equal(busy.headers['x-go-pprof'], '1');
    assert.equal(busy.headers['content-type'], 'text/plain; charset=utf-8');

    assert.equal(res.status, 200, res.text);
    assert.ok(Date.now() - started >= 1000);
    assert.equal(res.headers['content-type'], 'application/octet-stream');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="profile"');
    assert.equal(res.headers['x-content-type-options'], NOSNIFF);
    assert.deepEqual([...res.body.subarray(0, 2)], [0x1f, 0x8b]);
    const profile = decodePprof(res.body);
    assert.deepEqual(profile.sampleTypes, [['samples', 'count'], ['cpu', 'nanoseconds']]);
    assert.deepEqual(profile.periodType, ['cpu', 'nanoseconds']);
    assert.equal(profile.period, 1_000_000);
    assert.ok(profile.durationNanos >= 0.9e9 && profile.durationNanos < 5e9, String(profile.durationNanos));
    assert.ok(profile.samples.length > 0);
    for (const sample of profile.samples) assert.equal(sample.values[1], sample.values[0]! * profile.period);
    const frames = profile.samples.flatMap((sample) => sample.stack);
    assert.ok(!frames.some((f) => f.function === '(idle)' || f.function === '(root)'));
    const own = frames.filter((f) => f.file.includes('/packages/apiserver/dist/') && f.line > 0);
    assert.ok(own.length > 0, 'no frame of kapi\'s apiserver code');
    assert.ok(own.some((f) => f.function === 'handler' || f.function === 'dispatch'), [...new Set(own.map((f) => f.function))].join(', '));
  });

  void it('profiles 30 s for a seconds value that is not a positive integer, as Go, and stops when the client goes away', async () => {
    for (const seconds of ['abc', '0', '1.5']) {
      let answered = false;
      const req = httpsRequest(`${s.server.url!}/debug/pprof/profile?seconds=${seconds}`, { rejectUnauthorized: false, agent: false, cert: s.admin.cert, key: s.admin.key }, () => {
        answered = true;
      });
      req.on('error', () => {});
      req.end();
      await new Promise((resolve) => setTimeout(resolve, 1200));
      assert.equal(answered, false, seconds);
      req.destroy();
      // The profiler is free again once the server has seen the client go.
      await eventuallyValue('the profiler freed', async () => {
        const res = await s.request(admin, 'GET', '/debug/pprof/profile?seconds=1');
        return res.status === 200 ? res : undefined;
      });
    }
  });
});

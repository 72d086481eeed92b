/**
 * /debug/pprof as kube-apiserver 1.32 serves it (--profiling, default on), answered from V8:
 * a real server on etcd, profiles read back with the pprof reader kapi-bench uses for kube's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodePprof } from '@kapi/machinery';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { eventuallyValue, startSecureServer, type SecureServer } from '../testing/secure-server.js';

const NOSNIFF = 'nosniff';

/** This process's main thread's CPU time (Linux /proc; clock ticks of 10 ms). */
function mainThreadCpuNanos(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000_000;
}

void describe('/debug/pprof with --profiling (the default)', () => {
  let s: SecureServer;
  let admin: { cert: SecureServer['admin'] };
  before(async () => {
    // A request timeout shorter than the profile and one read seat: kube runs /debug/pprof/
    // requests as long-running, with no deadline and no seat.
    s = await startSecureServer({ requestTimeoutMs: 500, maxRequestsInflight: 1, authorizationModes: ['RBAC'], anonymousAuth: true, tokens: ['alice-token,alice,1,"dev"'] });
    admin = { cert: s.admin };
  });
  after(async () => {
    await s?.close();
  });

  void it('serves a CPU profile of the given seconds in pprof format, with kapi\'s own functions in it', async () => {
    let loading = true;
    const loadStatuses = new Set<number>();
    const load = (async () => {
      while (loading) loadStatuses.add((await s.request(admin, 'GET', '/api/v1/namespaces/default/configmaps')).status);
    })();
    const started = Date.now();
    const cpuBefore = mainThreadCpuNanos();
    const profiled = s.request(admin, 'GET', '/debug/pprof/profile?seconds=1');
    // A second profile while one runs: Go's 500.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await s.request(admin, 'GET', '/debug/pprof/profile?seconds=1');
    const res = await profiled;
    const cpuAfter = mainThreadCpuNanos();
    loading = false;
    await load;
    // The running profile held no read seat: no list alongside it was refused 429 (a slow one may meet the 500 ms deadline).
    assert.ok(loadStatuses.has(200) && !loadStatuses.has(429), [...loadStatuses].join(','));
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
    // A sample's CPU is the gap to the next one (at most four median gaps): one thread's, never more than the profile's span.
    for (const sample of profile.samples) assert.ok(sample.values[0]! >= 1 && sample.values[1]! > 0, JSON.stringify(sample.values));
    const cpu = profile.samples.reduce((t, sample) => t + sample.values[1]!, 0);
    assert.ok(cpu > 0 && cpu <= 1.05 * profile.durationNanos, `${cpu} ns of CPU in ${profile.durationNanos} ns`);
    // They add up to the server thread's CPU time over the profile (this process's main thread: the server runs in it), within a clock tick.
    assert.ok(cpu <= cpuAfter - cpuBefore + 10_000_000, `${cpu} ns sampled, ${cpuAfter - cpuBefore} ns used`);
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

  void it('serves the live heap sampled since the start, its change over seconds, and a text form', async () => {
    const res = await s.request(admin, 'GET', '/debug/pprof/heap?gc=1');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'application/octet-stream');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="heap"');
    assert.equal(res.headers['x-content-type-options'], NOSNIFF);
    const heap = decodePprof(res.body);
    assert.deepEqual(heap.sampleTypes, [['inuse_objects', 'count'], ['inuse_space', 'bytes']]);
    assert.deepEqual(heap.periodType, ['space', 'bytes']);
    assert.equal(heap.period, 512 * 1024);
    assert.equal(heap.defaultSampleType, 'inuse_space');
    assert.ok(heap.samples.length > 0);
    // Every sample stands for about the sampling interval or more, and at least one object.
    for (const sample of heap.samples) assert.ok(sample.values[0]! >= 1 && sample.values[1]! >= 512 * 1024, JSON.stringify(sample.values));
    assert.ok(heap.samples.some((sample) => sample.stack.some((f) => f.file.includes('/packages/') && f.file.includes('/dist/'))), 'no kapi frame in the heap');

    const allocs = await s.request(admin, 'GET', '/debug/pprof/allocs');
    assert.equal(allocs.headers['content-disposition'], 'attachment; filename="allocs"');
    assert.deepEqual(decodePprof(allocs.body).sampleTypes, heap.sampleTypes);

    const text = await s.request(admin, 'GET', '/debug/pprof/heap?debug=1');
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(text.headers['content-disposition'], undefined);
    assert.match(text.text, /^heap profile: \d+: \d+ \[0: 0\] @ heap\/1048576\n/);

    const delta = await s.request(admin, 'GET', '/debug/pprof/heap?seconds=1');
    assert.equal(delta.status, 200, delta.text);
    assert.equal(delta.headers['content-disposition'], 'attachment; filename="heap-delta"');
    const change = decodePprof(delta.body);
    assert.ok(change.durationNanos >= 0.9e9, String(change.durationNanos));
  });

  void it('answers Go\'s errors for seconds and debug on the other profiles', async () => {
    const goError = async (path: string, status: number, text: string) => {
      const res = await s.request(admin, 'GET', path);
      assert.equal(res.status, status, path);
      assert.equal(res.text, text, path);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8', path);
      assert.equal(res.headers['x-go-pprof'], '1', path);
      assert.equal(res.headers['x-content-type-options'], NOSNIFF, path);
    };
    for (const seconds of ['x', '0', '-1', '1.5']) await goError(`/debug/pprof/heap?seconds=${seconds}`, 400, 'invalid value for "seconds" - must be a positive integer\n');
    await goError('/debug/pprof/goroutine?seconds=1&debug=1', 400, 'seconds and debug params are incompatible\n');
    // kube routes no cmdline handler: it is one of the index's unknown profiles.
    for (const name of ['cmdline', 'nope', 'profile/x', 'heap/x']) await goError(`/debug/pprof/${name}`, 404, 'Unknown profile\n');
    const trace = await s.request(admin, 'GET', '/debug/pprof/trace?seconds=1');
    assert.equal(trace.status, 500);
    assert.match(trace.text, /^Could not enable tracing: /);
    assert.equal(trace.headers['x-go-pprof'], '1');
  });

  void it('serves the index, the redirect, symbol and the Node stand-ins for goroutines, threads, block and mutex', async () => {
    const redirect = await s.request(admin, 'GET', '/debug/pprof');
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers['location'], '/debug/pprof/');
    assert.equal(redirect.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(redirect.text, '<a href="/debug/pprof/">Found</a>.\n\n');
    const posted = await s.request(admin, 'POST', '/debug/pprof');
    assert.equal(posted.status, 302);
    assert.equal(posted.headers['content-type'], undefined);

    for (const method of ['GET', 'POST']) {
      const index = await s.request(admin, method, '/debug/pprof/');
      assert.equal(index.status, 200);
      assert.equal(index.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(index.headers['x-content-type-options'], NOSNIFF);
      for (const name of ['allocs', 'block', 'cmdline', 'goroutine', 'heap', 'mutex', 'profile', 'symbol', 'threadcreate', 'trace']) {
        assert.match(index.text, new RegExp(`<tr><td>\\d+</td><td><a href='${name}\\?debug=1'>${name}</a></td></tr>`), name);
      }
      assert.ok(index.text.endsWith('</body>\n</html>'));
      const symbol = await s.request(admin, method, '/debug/pprof/symbol');
      assert.equal(symbol.text, 'num_symbols: 0\n');
      assert.equal(symbol.headers['content-type'], 'text/plain; charset=utf-8');
    }

    const goroutine = decodePprof((await s.request(admin, 'GET', '/debug/pprof/goroutine')).body);
    assert.deepEqual(goroutine.sampleTypes, [['goroutine', 'count']]);
    assert.ok(goroutine.samples.some((sample) => sample.stack[0]!.function === 'TCPServerWrap'), JSON.stringify(goroutine.samples));
    const threads = decodePprof((await s.request(admin, 'GET', '/debug/pprof/threadcreate')).body);
    assert.ok(threads.samples[0]!.values[0]! > 1);
    for (const name of ['block', 'mutex']) {
      const res = await s.request(admin, 'GET', `/debug/pprof/${name}`);
      assert.equal(res.headers['content-disposition'], `attachment; filename="${name}"`);
      const profile = decodePprof(res.body);
      assert.deepEqual(profile.sampleTypes, [['contentions', 'count'], ['delay', 'nanoseconds']]);
      assert.equal(profile.samples.length, 0);
    }
    // Only /debug/pprof and /debug/flags are served under /debug.
    for (const path of ['/debug/pprofx', '/debug/', '/debug/flagsx']) {
      const res = await s.request(admin, 'GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.text, '404 page not found\n', path);
    }
  });

  void it('lets cluster admins profile and refuses everyone else before any profile starts, as kube\'s authorization', async () => {
    for (const who of ['anonymous', { token: 'alice-token' }] as const) {
      const started = Date.now();
      const res = await s.request(who, 'GET', '/debug/pprof/profile?seconds=5');
      assert.equal(res.status, 403, JSON.stringify(who));
      assert.equal(res.json['reason'], 'Forbidden');
      assert.match(String(res.json['message']), /cannot get path "\/debug\/pprof\/profile"/);
      assert.ok(Date.now() - started < 4000);
    }
  });
});

void describe('/debug/pprof and /debug/flags with --profiling=false', () => {
  let s: SecureServer | undefined;
  after(async () => {
    await s?.close();
  });

  void it('is 404 page not found, as kube serves no profiling routes', async () => {
    s = await startSecureServer({ profiling: false });
    for (const path of ['/debug/pprof', '/debug/pprof/', '/debug/pprof/heap', '/debug/pprof/profile?seconds=1', '/debug/flags', '/debug/flags/v']) {
      const res = await s.request({ cert: s.admin }, 'GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.text, '404 page not found\n', path);
    }
  });
});

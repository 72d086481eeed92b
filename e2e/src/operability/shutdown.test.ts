/**
 * SIGTERM on a real kapi-apiserver process: readyz flips at once, everything is served during
 * --shutdown-delay-duration, watches end cleanly after it, the request in flight completes,
 * and the process exits 0.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { openWatch, type WatchEvent } from '../harness/watch-stream.js';
import { http, isResult, slowPost, spawnServer } from './process.js';

const ns = '/api/v1/namespaces/default/configmaps';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

void describe('kapi-apiserver on SIGTERM', () => {
  let etcd: TestEtcd;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.stop();
  });

  void it('fails readyz first, serves through the delay, ends watches cleanly, completes in-flight requests and exits 0', async () => {
    const server = await spawnServer(etcd.endpoints, ['--shutdown-delay-duration=1s', '-v=3']);
    try {
      const events: WatchEvent[] = [];
      const watch = openWatch(server.url, `${ns}?watch=1`, (e) => events.push(e));
      await sleep(200);
      const inflight = slowPost(`${server.url}${ns}`, { metadata: { name: 'inflight' } });
      await sleep(100);
      const signalled = Date.now();
      server.child.kill('SIGTERM');

      // readyz fails within moments; livez does not.
      let readyzFailedAt = 0;
      while (readyzFailedAt === 0 && Date.now() - signalled < 900) {
        const r = await http(`${server.url}/readyz`);
        if (isResult(r) && r.status === 500) readyzFailedAt = Date.now();
        else await sleep(20);
      }
      assert.ok(readyzFailedAt > 0, 'readyz did not fail during the shutdown delay');
      const verbose = await http(`${server.url}/readyz?verbose`);
      assert.ok(isResult(verbose) && /\[-\]shutdown failed: reason withheld/.test(verbose.body), JSON.stringify(verbose));
      const livez = await http(`${server.url}/livez`);
      assert.ok(isResult(livez) && livez.status === 200);
      // Still serving writes during the delay, and the watch sees them.
      const created = await http(`${server.url}${ns}`, { method: 'POST', body: { metadata: { name: 'during-delay' } } });
      assert.ok(isResult(created) && created.status === 201, JSON.stringify(created));

      // After the delay: the watch ends (server side, clean), with every event before it.
      const end = await watch.done;
      assert.equal(end.reason, 'server');
      assert.equal(end.status, 200);
      assert.deepEqual(end.badLines, []);
      assert.ok(Date.now() - signalled >= 1000, 'the watch outlived the shutdown delay');
      assert.ok(events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'during-delay'));
      // New connections are refused now, but the request in flight still completes.
      const refused = await http(`${server.url}/livez`);
      assert.ok(!isResult(refused) && refused.error === 'ECONNREFUSED', JSON.stringify(refused));
      inflight.finish();
      const done = await inflight.response;
      assert.ok(isResult(done) && done.status === 201, JSON.stringify(done));
      assert.deepEqual(await server.exited, { code: 0, signal: null });
      // The process logged its requests as JSON lines (-v=3) and its shutdown.
      const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.ok(lines.some((l) => l['msg'] === 'HTTP' && l['verb'] === 'POST' && l['resp'] === 201));
      assert.ok(lines.some((l) => l['msg'] === 'shutdown complete'));
    } finally {
      await server.cleanup();
    }
  });

  void it('with --shutdown-send-retry-after, answers 429 with Retry-After while draining, then exits 0', async () => {
    const server = await spawnServer(etcd.endpoints, ['--shutdown-delay-duration=200ms', '--shutdown-send-retry-after']);
    try {
      const inflight = slowPost(`${server.url}${ns}`, { metadata: { name: 'inflight-2' } });
      await sleep(100);
      server.child.kill('SIGTERM');
      await sleep(500);
      const refused = await http(`${server.url}${ns}`);
      assert.ok(isResult(refused), JSON.stringify(refused));
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '5');
      assert.equal(refused.headers['connection'], 'close');
      assert.equal(refused.body, 'The apiserver is shutting down, please try again later.\n');
      inflight.finish();
      const done = await inflight.response;
      assert.ok(isResult(done) && done.status === 201, JSON.stringify(done));
      assert.deepEqual(await server.exited, { code: 0, signal: null });
    } finally {
      await server.cleanup();
    }
  });
});

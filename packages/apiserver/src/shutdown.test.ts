import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { SHUTTING_DOWN_MESSAGE } from './filters/lifecycle.js';
import { startTestServer } from './testing/fixture.js';
import { isWatchClient, openWatch, type WatchClient } from './testing/watch-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ns = '/api/v1/namespaces/default/configmaps';

/** A POST whose body is sent only at `finish`: a request in flight across the shutdown. */
function slowPost(url: string, obj: unknown) {
  const body = Buffer.from(JSON.stringify(obj));
  const req = request(`${url}${ns}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, 3));
  req.flushHeaders();
  return { finish: () => req.end(body.subarray(3)), response };
}

/** GET on a fresh connection; the status, or the socket error's code. */
function freshGet(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

async function openWatchClient(url: string, path: string): Promise<WatchClient> {
  const watch = await openWatch(url, path);
  assert.ok(isWatchClient(watch));
  return watch;
}

void describe('graceful shutdown', () => {
  void it('fails readyz at once, serves through the delay, then ends watches cleanly, drains in-flight requests and stops listening', async () => {
    const t = await startTestServer({ shutdownDelayMs: 800 });
    try {
      const watch = await openWatchClient(t.url, `${ns}?watch=true`);
      let watchEndedAt = 0;
      void watch.ended.then(() => (watchEndedAt = Date.now()));
      const inflight = slowPost(t.url, { metadata: { name: 'inflight' } });
      await sleep(100);
      const started = Date.now();
      const closing = t.server.close();
      let closedAt = 0;
      void closing.then(() => (closedAt = Date.now()));
      assert.equal(t.server.shuttingDown, true);

      // Readiness flips first; liveness stays; everything is still served during the delay.
      const readyz = await t.request('GET', '/readyz?verbose');
      assert.equal(readyz.status, 500);
      assert.match(readyz.text, /\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
      assert.equal((await t.request('GET', '/readyz/shutdown')).status, 500);
      assert.equal((await t.request('GET', '/readyz?exclude=shutdown')).status, 200);
      assert.equal((await t.request('GET', '/livez')).status, 200);
      assert.equal((await t.request('GET', '/healthz')).status, 200);
      assert.equal((await t.request('POST', ns, { body: { metadata: { name: 'during-delay' } } })).status, 201);
      const fresh = await freshGet(`${t.url}${ns}`);
      assert.ok('status' in fresh && fresh.status === 200, JSON.stringify(fresh));
      const added = await watch.take(1, 5000);
      assert.equal(added[0]!.object.metadata?.['name'], 'during-delay');
      assert.equal(watchEndedAt, 0, 'the watch is still open during the delay');

      // After the delay: the watch ends with a clean end of stream; new connections are refused.
      assert.deepEqual(await watch.ended, { clean: true });
      assert.ok(watchEndedAt - started >= 800, `the watch ended ${watchEndedAt - started} ms after close()`);
      const refused = await freshGet(`${t.url}/livez`);
      assert.deepEqual(refused, { error: 'ECONNREFUSED' });
      // The in-flight request still completes, and only then does close() finish.
      await sleep(200);
      assert.equal(closedAt, 0, 'close() waits for the in-flight request');
      inflight.finish();
      assert.equal((await inflight.response).status, 201);
      await closing;
    } finally {
      await t.close();
    }
  });

  void it('with send-retry-after, answers new requests 429 + Retry-After + Connection: close until drained', async () => {
    const t = await startTestServer({ shutdownDelayMs: 200, shutdownSendRetryAfter: true });
    try {
      const inflight = slowPost(t.url, { metadata: { name: 'inflight' } });
      await sleep(100);
      const closing = t.server.close();
      await sleep(400);
      const res = await freshGet(`${t.url}${ns}`);
      assert.ok('status' in res, JSON.stringify(res));
      assert.equal(res.status, 429);
      assert.equal(res.headers['retry-after'], '5');
      assert.equal(res.headers['connection'], 'close');
      assert.equal(res.body, `${SHUTTING_DOWN_MESSAGE}\n`);
      // Probes still see the truth.
      const readyz = await freshGet(`${t.url}/readyz`);
      assert.ok('status' in readyz && readyz.status === 500);
      inflight.finish();
      assert.equal((await inflight.response).status, 201);
      await closing;
      assert.deepEqual(await freshGet(`${t.url}/livez`), { error: 'ECONNREFUSED' });
    } finally {
      await t.close();
    }
  });

  void it('spreads the ending of watches over --shutdown-watch-termination-grace-period', async () => {
    const t = await startTestServer({ shutdownWatchTerminationGracePeriodMs: 1000 });
    try {
      const watches = await Promise.all([0, 1, 2, 3].map(() => openWatchClient(t.url, `${ns}?watch=true`)));
      const ends: number[] = [];
      for (const w of watches) void w.ended.then((r) => ends.push(r.clean ? Date.now() : -1));
      await t.server.close();
      await Promise.all(watches.map((w) => w.ended));
      assert.equal(ends.length, 4);
      assert.ok(ends.every((e) => e > 0), 'every watch ended cleanly');
      ends.sort((a, b) => a - b);
      // Four watches over 1 s: one every 250 ms, so the last ends at least 500 ms after the first.
      assert.ok(ends[3]! - ends[0]! >= 500, `spread ${ends[3]! - ends[0]!} ms`);
    } finally {
      await t.close();
    }
  });
});

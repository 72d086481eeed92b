import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { TOO_MANY_REQUESTS_MESSAGE } from './filters/max-inflight.js';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { isWatchClient, openWatch } from './testing/watch-client.js';

interface SlowRequest {
  /** Sends the rest of the body. */
  finish(): void;
  readonly response: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
}

/** A POST whose body is only partly sent: the server's handler is busy reading it until `finish`. */
function slowPost(url: string, path: string, obj: unknown): SlowRequest {
  const body = Buffer.from(JSON.stringify(obj));
  const req = request(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } });
  const response = new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, 5));
  req.flushHeaders();
  return {
    finish: () => req.end(body.subarray(5)),
    response,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function metric(t: TestServer, pattern: RegExp): Promise<number | undefined> {
  const text = (await t.request('GET', '/metrics')).text;
  const m = pattern.exec(text);
  return m === null ? undefined : Number(m[1]);
}

void describe('max in-flight limits', () => {
  let t: TestServer;
  const ns = '/api/v1/namespaces/default/configmaps';
  before(async () => {
    t = await startTestServer({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1, watchCacheTuning: { waitTimeoutMs: 1500 } });
  });
  after(async () => {
    await t.close();
  });

  void it('refuses a mutating request over the limit with 429, Retry-After: 1 and kube\'s body; reads and probes go on', async () => {
    const slow = slowPost(t.url, ns, { metadata: { name: 'slow' } });
    await sleep(200);
    const refused = await t.request('POST', ns, { body: { metadata: { name: 'refused' } } });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(refused.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(refused.text, `${TOO_MANY_REQUESTS_MESSAGE}\n`);
    assert.equal((await t.request('GET', ns)).status, 200);
    assert.equal((await t.request('GET', '/livez')).status, 200);
    assert.equal((await t.request('GET', '/readyz')).status, 200);
    slow.finish();
    assert.equal((await slow.response).status, 201);
    assert.equal((await t.request('POST', ns, { body: { metadata: { name: 'after' } } })).status, 201);
    assert.equal(await metric(t, /^apiserver_request_total\{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="429"\} (\d+)$/m), 1);
    assert.equal(await metric(t, /^apiserver_request_terminations_total\{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="429"\} (\d+)$/m), 1);
  });

  void it('counts a watch only while it initializes', async () => {
    const established = await openWatch(t.url, `${ns}?watch=true`);
    assert.ok(isWatchClient(established));
    // The open watch holds no seat: a read still gets the only one.
    assert.equal((await t.request('GET', ns)).status, 200);
    // A watch waiting for a future resourceVersion is initializing: it holds the read seat.
    const current = Number(((await t.request('GET', ns)).json['metadata'] as { resourceVersion: string }).resourceVersion);
    const waiting = openWatch(t.url, `${ns}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${current + 100_000}`);
    await sleep(300);
    const refused = await t.request('GET', ns);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    const ended = await waiting;
    if (isWatchClient(ended)) ended.close();
    assert.equal((await t.request('GET', ns)).status, 200);
    established.close();
  });
});

void describe('request timeout', () => {
  let t: TestServer;
  const ns = '/api/v1/namespaces/default/configmaps';
  before(async () => {
    t = await startTestServer({ requestTimeoutMs: 500 });
  });
  after(async () => {
    await t.close();
  });

  /** kube's timeout filter answer: the Status without kind/apiVersion, as text/plain, whatever was negotiated. */
  const assertTimedOut = (res: { status: number; headers: Record<string, string | string[] | undefined> | Headers; body?: string; text?: string }) => {
    assert.equal(res.status, 504);
    const contentType = res.headers instanceof Headers ? res.headers.get('content-type') : res.headers['content-type'];
    assert.equal(contentType, 'text/plain; charset=utf-8');
    assert.equal(
      res.body ?? res.text,
      '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n',
    );
  };

  void it('answers 504 with kube\'s timeout answer when a request outlives --request-timeout', async () => {
    const slow = slowPost(t.url, ns, { metadata: { name: 'late' } });
    assertTimedOut(await slow.response);
    slow.finish();
    assert.equal(await metric(t, /^apiserver_request_terminations_total\{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="504"\} (\d+)$/m), 1);
  });

  void it('a shorter `timeout` parameter shortens the deadline; a longer one does not lengthen it', async () => {
    t.etcd.pause();
    try {
      const started = Date.now();
      const short = await t.request('GET', `${ns}/x?timeout=100ms`, { headers: { accept: 'application/json' } });
      const shortMs = Date.now() - started;
      assertTimedOut(short);
      assert.ok(shortMs < 450, `timeout=100ms answered after ${shortMs} ms`);
      const capped = Date.now();
      assertTimedOut(await t.request('GET', `${ns}/x?timeout=1h`));
      assert.ok(Date.now() - capped >= 450, 'timeout=1h is capped by --request-timeout, not shortened');
    } finally {
      t.etcd.resume();
    }
  });

  void it('never cuts a watch: it outlives the request timeout and keeps delivering events', async () => {
    const other = '/api/v1/namespaces/kube-public/configmaps';
    const watch = await openWatch(t.url, `${other}?watch=true&timeoutSeconds=3`);
    assert.ok(isWatchClient(watch));
    await sleep(1200);
    assert.equal((await t.request('POST', other, { body: { metadata: { name: 'w1' } } })).status, 201);
    const event = await watch.next(5000);
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.metadata?.['name'], 'w1');
    assert.deepEqual(await watch.ended, { clean: true });
  });
});

void describe('etcd\'s own limits', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({}, { extraArgs: ['--max-request-bytes=8192'] });
  });
  after(async () => {
    await t.close();
  });

  void it('a write etcd refuses as too large is a Status carrying etcd\'s text, and the server goes on', async () => {
    const res = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'big' }, data: { v: 'x'.repeat(16_384) } } });
    assert.equal(res.status, 500);
    assert.equal(res.json['kind'], 'Status');
    assert.match(String(res.json['message']), /etcdserver: request is too large/);
    assert.doesNotMatch(res.text, /\n\s+at /, 'no stack trace');
    assert.equal((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'small' } } })).status, 201);
    assert.match((await t.request('GET', '/metrics')).text, /^etcd_request_errors_total\{operation="create",group="",resource="configmaps"\} 1$/m);
  });
});

void describe('connection timeouts', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ connectionTimeouts: { headersTimeoutMs: 500, keepAliveTimeoutMs: 500, requestReceiveTimeoutMs: 800, checkIntervalMs: 100 } });
  });
  after(async () => {
    await t.close();
  });

  /** Rejects when `promise` has not settled within `ms`. */
  const within = async (promise: Promise<void>, ms: number, what: string): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([promise, new Promise<void>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} not closed within ${ms} ms`)), ms)))]);
    clearTimeout(timer);
  };

  const connect = async () => {
    const { port, hostname } = new URL(t.url);
    const socket = (await import('node:net')).createConnection({ port: Number(port), host: hostname });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (received += c));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return { socket, closed, received: () => received };
  };

  void it('cuts a client that trickles its headers (slowloris) and one that trickles its body', async () => {
    const headers = await connect();
    headers.socket.write('GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => headers.socket.write('X-Slow: 1\r\n'), 100);
    await within(headers.closed, 5000, 'a connection trickling headers').finally(() => clearInterval(trickle));
    assert.match(headers.received(), /^(HTTP\/1\.1 408|$)/);

    const body = await connect();
    body.socket.write('POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    const drip = setInterval(() => body.socket.write(' '), 100);
    await within(body.closed, 5000, 'a connection trickling a body').finally(() => clearInterval(drip));
  });

  void it('closes idle keep-alive connections', async () => {
    const idle = await connect();
    idle.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n');
    await within(idle.closed, 5000, 'an idle keep-alive connection');
    assert.match(idle.received(), /^HTTP\/1\.1 200 /);
  });

  void it('never cuts a watch, however long past those timeouts', async () => {
    const watch = await openWatch(t.url, '/api/v1/namespaces/kube-public/configmaps?watch=true&timeoutSeconds=3');
    assert.ok(isWatchClient(watch));
    await sleep(2000);
    assert.equal((await t.request('POST', '/api/v1/namespaces/kube-public/configmaps', { body: { metadata: { name: 'late' } } })).status, 201);
    assert.equal((await watch.next(3000)).object.metadata?.['name'], 'late');
    assert.deepEqual(await watch.ended, { clean: true });
  });
});

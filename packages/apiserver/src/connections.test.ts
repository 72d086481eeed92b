/**
 * Connection limits against a live server on real etcd: connections that never send a
 * request are closed (plain HTTP and HTTPS), idle sockets do not slow anyone down, and the
 * --max-connections cap closes idle connections for new ones and refuses only when every
 * connection is busy.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { effectiveConnectionCap } from './http/connection-guard.js';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { isWatchClient, openWatch, type WatchClient } from './testing/watch-client.js';

const CM = '/api/v1/namespaces/default/configmaps';

interface OpenSocket {
  readonly socket: Socket;
  readonly closed: Promise<void>;
  isClosed(): boolean;
}

/** A TCP connection to `url`'s host and port that sends nothing. */
async function idleSocket(url: string): Promise<OpenSocket> {
  const { hostname, port } = new URL(url);
  const socket = createConnection({ host: hostname, port: Number(port) });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let closed = false;
  return { socket, closed: new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve()))), isClosed: () => closed };
}

/** Rejects when `promise` has not settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms)))]);
  clearTimeout(timer);
}

/** GET `path` on a fresh connection; the status, or 0 when the connection was closed without an answer. */
function getStatus(url: string, path: string): Promise<number> {
  return new Promise((resolve) => {
    get(`${url}${path}`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', () => resolve(0));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

void describe('connections that never send a request', () => {
  let t: TestServer;
  let certDir: string;
  let secureUrl: string;
  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'kapi-certs-'));
    t = await startTestServer({
      securePort: 0,
      bindAddress: '127.0.0.1',
      certDir,
      connectionTimeouts: { headersTimeoutMs: 500, keepAliveTimeoutMs: 500, requestReceiveTimeoutMs: 800, checkIntervalMs: 100 },
    });
    secureUrl = t.server.url!;
  });
  after(async () => {
    await t.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  void it('plain HTTP: a silent socket is closed after the header timeout; a normal client is served meanwhile', async () => {
    const silent = await idleSocket(t.url);
    const started = Date.now();
    assert.equal((await t.request('GET', CM)).status, 200);
    await within(silent.closed, 10_000, 'a silent connection closed');
    const after = Date.now() - started;
    assert.ok(after >= 400, `closed after ${after} ms, before the 500 ms header timeout`);
  });

  void it('HTTPS: a socket that never starts TLS, and one that completes the handshake and then sends nothing, are closed', async () => {
    const raw = await idleSocket(secureUrl);
    const { port } = new URL(secureUrl);
    const tls = tlsConnect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false });
    tls.on('error', () => {});
    await new Promise<void>((resolve) => tls.once('secureConnect', () => resolve()));
    const tlsClosed = new Promise<void>((resolve) => tls.once('close', () => resolve()));
    await within(raw.closed, 10_000, 'a connection that never started TLS closed');
    await within(tlsClosed, 10_000, 'a TLS connection that sent no request closed');
  });

  void it('HTTPS: headers or a body trickled byte by byte, and an idle keep-alive connection, are closed', async () => {
    const { port } = new URL(secureUrl);
    const open = async () => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false });
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      return { socket, closed: new Promise<void>((resolve) => socket.once('close', () => resolve())), received: () => received };
    };
    const headers = await open();
    const headerText = 'GET /readyz HTTP/1.1\r\nHost: x\r\nX-Slow: 0123456789012345678901234567890123456789\r\n';
    let at = 0;
    const trickle = setInterval(() => headers.socket.write(headerText[at++ % headerText.length]!), 50);
    await within(headers.closed, 10_000, 'a TLS connection trickling headers closed').finally(() => clearInterval(trickle));

    const body = await open();
    body.socket.write('POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    const drip = setInterval(() => body.socket.write(' '), 50);
    await within(body.closed, 10_000, 'a TLS connection trickling a body closed').finally(() => clearInterval(drip));

    const keepAlive = await open();
    keepAlive.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n');
    await within(keepAlive.closed, 10_000, 'an idle TLS keep-alive connection closed');
    assert.match(keepAlive.received(), /^HTTP\/1\.1 200 /);
  });
});

void describe('many idle sockets', () => {
  let t: TestServer;
  const sockets: OpenSocket[] = [];
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    for (const s of sockets) s.socket.destroy();
    await t.close();
  });

  void it('with 1,000 idle sockets open, /readyz and a list answer fast', async (ctx) => {
    for (let i = 0; i < 1000; i++) sockets.push(await idleSocket(t.url));
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = process.hrtime.bigint();
      assert.equal(await getStatus(t.url, '/readyz'), 200);
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    assert.equal(await getStatus(t.url, CM), 200);
    ctx.diagnostic(`/readyz with 1,000 idle sockets open: ${latencies.map((ms) => ms.toFixed(1)).join(', ')} ms`);
    assert.ok(Math.max(...latencies) < 1000, `/readyz took ${Math.max(...latencies)} ms`);
    assert.equal(sockets.filter((s) => s.isClosed()).length, 0, 'all 1,000 still open (well under the cap)');
  });
});

void describe('--max-connections', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ maxConnections: 20 });
  });
  after(async () => {
    await t.close();
  });

  void it('at the cap, a new connection closes the one idle the longest; busy ones are kept; refused only when all are busy', async () => {
    const idle: OpenSocket[] = [];
    for (let i = 0; i < 20; i++) idle.push(await idleSocket(t.url));
    // A new client gets in: the oldest idle connection makes room, and the next one after it.
    assert.equal(await getStatus(t.url, '/readyz'), 200);
    await within(idle[0]!.closed, 2000, 'the oldest idle connection closed');
    idle.push(await idleSocket(t.url));
    assert.equal(await getStatus(t.url, CM), 200);
    await within(idle[1]!.closed, 2000, 'the next oldest idle connection closed');
    assert.deepEqual(idle.map((s) => s.isClosed()).filter(Boolean).length, 2, 'one closed per new connection');
    for (const s of idle) s.socket.destroy();
    await sleep(100);

    // Every connection busy (watches): a new one is refused; the watches go on.
    const watches: WatchClient[] = [];
    for (let i = 0; i < 20; i++) {
      const w = await openWatch(t.url, `${CM}?watch=1&timeoutSeconds=30`);
      assert.ok(isWatchClient(w));
      watches.push(w);
    }
    assert.equal(await getStatus(t.url, '/readyz'), 0, 'refused while every connection serves a request');
    watches.pop()!.close();
    await sleep(100);
    assert.equal((await t.request('POST', CM, { body: { metadata: { name: 'seen' } } })).status, 201);
    for (const w of watches) assert.equal((await w.next(5000)).object.metadata?.['name'], 'seen');
    for (const w of watches) w.close();
  });

  void it('the cap leaves a quarter (at most 1024) of the open-files limit to the rest of the process', () => {
    assert.equal(effectiveConnectionCap(20_000, 1024), 768);
    assert.equal(effectiveConnectionCap(20_000, 20_000), 18_976);
    assert.equal(effectiveConnectionCap(20_000, 1_048_576), 20_000);
    assert.equal(effectiveConnectionCap(20_000, undefined), 20_000);
    assert.equal(effectiveConnectionCap(0, 1024), 0);
  });
});

void describe('watch lifetime (--min-request-timeout)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ minRequestTimeoutSeconds: 1 });
  });
  after(async () => {
    await t.close();
  });

  void it('a watch without timeoutSeconds ends cleanly after a random time between min and 2×min', async () => {
    const started = Date.now();
    const lifetimes = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const w = await openWatch(t.url, `${CM}?watch=1`);
        assert.ok(isWatchClient(w));
        assert.deepEqual(await w.ended, { clean: true });
        return Date.now() - started;
      }),
    );
    for (const ms of lifetimes) assert.ok(ms >= 950 && ms < 2500, `a watch lasted ${ms} ms`);
    assert.ok(Math.max(...lifetimes) - Math.min(...lifetimes) > 20, `not spread: ${lifetimes.join(', ')} ms`);
  });
});

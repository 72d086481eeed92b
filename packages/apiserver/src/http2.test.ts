/**
 * HTTP/2 on the secure port against a live server on real etcd, with Node's HTTP/2 client:
 * ALPN picks h2 (HTTP/1.1 still served on the same port), requests and watches share one
 * connection, a watch whose reader stalls does not hold up the others on its connection,
 * kube's limits and timeouts hold per session, GOAWAY ends sessions for --goaway-chance and
 * the shutdown, and an oversized body resets only its stream.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { startSecureServer } from './testing/secure-server.js';

const CM = '/api/v1/namespaces/default/configmaps';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * An HTTP/2 connection to `url`. Its connection-level receive window is 1 GiB, as Go's client
 * sets it (only the 64 KiB stream windows throttle): with Node's default 64 KiB for the whole
 * connection, one stream the client does not read would stop every stream of the
 * connection on the client's side, whatever the server does.
 */
function session(url: string): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = connect(url, { rejectUnauthorized: false });
    s.once('connect', () => {
      s.setLocalWindowSize(1 << 30);
      resolve(s);
    });
    s.once('error', reject);
  });
}

function send(s: ClientHttp2Session, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = s.request({ ':method': method, ':path': path, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers });
    let text = '';
    let head: IncomingHttpHeaders = {};
    stream.setEncoding('utf8');
    stream.on('response', (h) => (head = h));
    stream.on('data', (c: string) => (text += c));
    stream.on('end', () => resolve({ status: Number(head[':status']), headers: head, body: text }));
    stream.on('error', reject);
    stream.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

interface Http2Watch {
  readonly stream: ClientHttp2Stream;
  readonly headers: IncomingHttpHeaders;
  readonly names: string[];
  /** Resolves when `name` has been received. */
  seen(name: string, timeoutMs: number): Promise<void>;
  readonly ended: Promise<boolean>;
}

function watch(s: ClientHttp2Session, path: string): Promise<Http2Watch> {
  return new Promise((resolve, reject) => {
    const stream = s.request({ ':path': path });
    const names: string[] = [];
    let buffer = '';
    let waiter: (() => void) | undefined;
    const ended = new Promise<boolean>((done) => {
      stream.on('end', () => done(true));
      stream.on('close', () => done(false));
    });
    stream.on('error', () => {});
    stream.setEncoding('utf8');
    stream.once('response', (headers) => {
      stream.on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const event = JSON.parse(buffer.slice(0, nl)) as { object: { metadata: { name: string } } };
          names.push(event.object.metadata.name);
          buffer = buffer.slice(nl + 1);
        }
        waiter?.();
      });
      resolve({
        stream,
        headers,
        names,
        ended,
        async seen(name, timeoutMs) {
          const deadline = Date.now() + timeoutMs;
          while (!names.includes(name)) {
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`${name} not received within ${timeoutMs} ms (got ${names.length} events)`);
            await new Promise<void>((r) => {
              const timer = setTimeout(r, Math.min(left, 100));
              waiter = () => {
                clearTimeout(timer);
                r();
              };
            });
          }
        },
      });
    });
    stream.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function closedWithin(s: ClientHttp2Session, ms: number): Promise<{ goaway: boolean }> {
  let goaway = false;
  s.on('goaway', () => (goaway = true));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`session not closed within ${ms} ms`)), ms);
    s.once('close', () => {
      clearTimeout(timer);
      resolve({ goaway });
    });
  });
}

void describe('HTTP/2 on the secure port', () => {
  let t: TestServer;
  let certDir: string;
  let url: string;
  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'kapi-certs-'));
    t = await startTestServer({
      securePort: 0,
      bindAddress: '127.0.0.1',
      certDir,
      http2: { maxStreamsPerConnection: 20 },
      connectionTimeouts: { headersTimeoutMs: 1000, keepAliveTimeoutMs: 1500, requestReceiveTimeoutMs: 1500, checkIntervalMs: 100 },
    });
    url = t.server.url!;
  });
  after(async () => {
    await t.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  void it('negotiates h2 by ALPN, and still serves HTTP/1.1 to clients that offer only it', async () => {
    const s = await session(url);
    try {
      assert.equal(s.alpnProtocol, 'h2');
      const version = await send(s, 'GET', '/version');
      assert.equal(version.status, 200);
      assert.ok(typeof version.headers['audit-id'] === 'string' && version.headers['audit-id'] !== '');
      assert.equal(version.headers['connection'], undefined);
    } finally {
      s.close();
    }
    const h1 = await new Promise<{ status: number; alpn: string | false | null }>((resolve, reject) => {
      const req = httpsRequest(`${url}/version`, { rejectUnauthorized: false, agent: false }, (res) => {
        res.resume();
        const socket = res.socket as { alpnProtocol?: string | false | null };
        res.on('end', () => resolve({ status: res.statusCode ?? 0, alpn: socket.alpnProtocol ?? null }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.deepEqual(h1, { status: 200, alpn: false });
  });

  void it('multiplexes creates, lists and watches on one connection; watch responses carry no hop-by-hop headers', async () => {
    const s = await session(url);
    try {
      const watches = await Promise.all([0, 1, 2].map(() => watch(s, `${CM}?watch=true&labelSelector=mux%3Dyes`)));
      for (const w of watches) {
        assert.equal(w.headers[':status'], 200);
        assert.equal(w.headers['transfer-encoding'], undefined);
        assert.equal(w.headers['content-type'], 'application/json');
      }
      const created = await Promise.all(
        [0, 1, 2, 3, 4].map((i) => send(s, 'POST', CM, { metadata: { name: `mux-${i}`, labels: { mux: 'yes' } }, data: { i: String(i) } })),
      );
      assert.deepEqual(created.map((c) => c.status), [201, 201, 201, 201, 201]);
      const list = await send(s, 'GET', `${CM}?labelSelector=mux%3Dyes`);
      assert.equal((JSON.parse(list.body) as { items: unknown[] }).items.length, 5);
      for (const w of watches) await w.seen('mux-4', 10_000);
      // One connection served it all.
      assert.equal(s.state.nextStreamID! > 9, true);
    } finally {
      s.destroy();
    }
  });

  void it('40 watches on two connections (more than HTTP/1.1 flushes at once) and a burst of writes: each watch gets every event once, in revision order', async () => {
    const sessions = await Promise.all([session(url), session(url)]);
    try {
      const watches = await Promise.all(Array.from({ length: 40 }, (_, i) => watch(sessions[i % 2]!, `${CM}?watch=true&labelSelector=burst2%3Dyes`)));
      const names = Array.from({ length: 30 }, (_, i) => `burst2-${i}`);
      // Written over HTTP/1.1: the watches fill both connections (20 streams each).
      const created = await Promise.all(names.map((name) => t.request('POST', CM, { body: { metadata: { name, labels: { burst2: 'yes' } } } })));
      assert.deepEqual(new Set(created.map((c) => c.status)), new Set([201]));
      const inRevisionOrder = created
        .map((c) => c.json as { metadata: { name: string; resourceVersion: string } })
        .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
        .map((o) => o.metadata.name);
      const last = inRevisionOrder[inRevisionOrder.length - 1]!;
      for (const w of watches) {
        await w.seen(last, 15_000);
        assert.deepEqual(w.names, inRevisionOrder);
      }
    } finally {
      for (const s of sessions) s.destroy();
    }
  });

  void it('a watch whose reader stalls does not hold up the other watches on its connection', async () => {
    const s = await session(url);
    try {
      const slow = await watch(s, `${CM}?watch=true&labelSelector=flow%3Dyes`);
      const fast = await watch(s, `${CM}?watch=true&labelSelector=flow%3Dyes`);
      slow.stream.pause();
      // ~3 MiB of events: far past the slow stream's 64 KiB window and its buffers.
      const value = 'x'.repeat(30 * 1024);
      for (let i = 0; i < 100; i += 10) {
        await Promise.all(
          Array.from({ length: 10 }, (_, k) => t.request('POST', CM, { body: { metadata: { name: `flow-${i + k}`, labels: { flow: 'yes' } }, data: { v: value } } })),
        );
      }
      await fast.seen('flow-99', 15_000);
      assert.ok(slow.names.length < 100, `the paused watch took every event (${slow.names.length})`);
      // And the connection still takes new requests at once.
      const started = Date.now();
      assert.equal((await send(s, 'GET', '/readyz')).status, 200);
      assert.ok(Date.now() - started < 2000, `a new stream waited ${Date.now() - started} ms`);
    } finally {
      s.destroy();
    }
  });

  void it('takes new streams while more than 10 MB of watch events wait for their readers (no session memory cap)', async () => {
    const value = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 16; i += 8) {
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, k) => t.request('POST', CM, { body: { metadata: { name: `queued-${i + k}`, labels: { queued: 'yes' } }, data: { v: value } } })),
      );
      assert.deepEqual(created.map((c) => c.status), Array(8).fill(201));
    }
    const s = await session(url);
    try {
      // Twelve watches nobody reads, each sent ~1 MiB of ADDED events at once: ~12 MiB waits in
      // the server's session, past Node's default maxSessionMemory (10 MB), which would refuse
      // every new stream with ENHANCE_YOUR_CALM; kube's server has no such cap.
      const unread: ClientHttp2Stream[] = [];
      for (let i = 0; i < 12; i++) {
        const w = await watch(s, `${CM}?watch=true&labelSelector=queued%3Dyes&resourceVersion=0`);
        w.stream.pause();
        unread.push(w.stream);
      }
      await sleep(200);
      for (let i = 0; i < 3; i++) assert.equal((await send(s, 'GET', '/readyz')).status, 200);
      for (const stream of unread) assert.equal(stream.closed, false);
    } finally {
      s.destroy();
      await t.request('DELETE', `${CM}?labelSelector=queued%3Dyes`);
    }
  });

  void it('keeps a watch (a request without a body) open past the body-receive deadline', async () => {
    const s = await session(url);
    try {
      const w = await watch(s, `${CM}?watch=true&labelSelector=late%3Dyes`);
      await sleep(2500);
      assert.equal((await t.request('POST', CM, { body: { metadata: { name: 'late', labels: { late: 'yes' } } } })).status, 201);
      await w.seen('late', 10_000);
      assert.equal(w.stream.closed, false);
    } finally {
      s.destroy();
    }
  });

  void it('answers Expect: 100-continue, and resets only the stream of an oversized body', async () => {
    const s = await session(url);
    try {
      const continued = await new Promise<boolean>((resolve, reject) => {
        const stream = s.request({ ':method': 'POST', ':path': CM, 'content-type': 'application/json', expect: '100-continue' });
        stream.on('continue', () => {
          stream.end(JSON.stringify({ metadata: { name: 'continued' } }));
        });
        stream.on('response', (h) => resolve(h[':status'] === 201));
        stream.on('error', reject);
        stream.resume();
      });
      assert.equal(continued, true);
      const big = await new Promise<number>((resolve) => {
        const stream = s.request({ ':method': 'POST', ':path': CM, 'content-type': 'application/json' });
        stream.on('response', (h) => resolve(Number(h[':status'])));
        stream.on('error', () => {});
        stream.resume();
        stream.write('{"metadata":{"name":"big"},"data":{"v":"');
        const chunk = Buffer.alloc(256 * 1024, 'a');
        for (let i = 0; i < 16; i++) stream.write(chunk);
      });
      assert.equal(big, 413);
      assert.equal(s.closed, false);
      assert.equal((await send(s, 'GET', '/livez')).status, 200);
    } finally {
      s.destroy();
    }
  });

  void it('limits concurrent streams to --http2-max-streams-per-connection', async () => {
    const s = await session(url);
    try {
      await sleep(50);
      assert.equal(s.remoteSettings.maxConcurrentStreams, 20);
      assert.equal(s.remoteSettings.initialWindowSize, 256 * 1024);
    } finally {
      s.destroy();
    }
  });

  void it('closes a session idle past the idle timeout (GOAWAY), one that never opens a stream, and resets a trickled body', async () => {
    const idle = await session(url);
    assert.equal((await send(idle, 'GET', '/livez')).status, 200);
    const started = Date.now();
    assert.deepEqual(await closedWithin(idle, 5000), { goaway: true });
    assert.ok(Date.now() - started >= 1000, `closed ${Date.now() - started} ms after its last stream`);

    // A TLS connection that chose h2 and sends nothing: the first-request deadline.
    const { port } = new URL(url);
    const silent = tlsConnect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false, ALPNProtocols: ['h2'] });
    silent.on('error', () => {});
    await new Promise<void>((resolve) => silent.once('secureConnect', () => resolve()));
    // Read (and drop) what the server sends, so that its closing is seen.
    silent.resume();
    assert.equal(silent.alpnProtocol, 'h2');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('a silent h2 connection stayed open')), 5000);
      silent.once('close', () => (clearTimeout(timer), resolve()));
    });

    const s = await session(url);
    try {
      const reset = await new Promise<number>((resolve) => {
        const stream = s.request({ ':method': 'POST', ':path': CM, 'content-type': 'application/json', 'content-length': '100000' });
        stream.on('error', () => {});
        stream.on('close', () => resolve(stream.rstCode));
        stream.write('{');
        const drip = setInterval(() => (stream.writable ? stream.write(' ') : clearInterval(drip)), 50);
        stream.once('close', () => clearInterval(drip));
      });
      assert.equal(reset, constants.NGHTTP2_CANCEL);
    } finally {
      s.destroy();
    }
  });

  void it('sends GOAWAY at shutdown: open watches end cleanly, the session closes, new connections are refused', async () => {
    const own = await startTestServer({ securePort: 0, bindAddress: '127.0.0.1', certDir });
    try {
      const s = await session(own.server.url!);
      const w = await watch(s, `${CM}?watch=true`);
      const closed = closedWithin(s, 10_000);
      await own.server.close();
      assert.equal(await w.ended, true);
      assert.deepEqual(await closed, { goaway: true });
      await assert.rejects(session(own.server.url!), /ECONNREFUSED/);
    } finally {
      await own.close();
    }
  });
});

void describe('--disable-http2-serving', () => {
  void it('answers a client that offers h2 with HTTP/1.1', async () => {
    const certDir = mkdtempSync(join(tmpdir(), 'kapi-certs-'));
    const t = await startTestServer({ securePort: 0, bindAddress: '127.0.0.1', certDir, http2: { disabled: true } });
    try {
      const { port } = new URL(t.server.url!);
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] });
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
      assert.notEqual(socket.alpnProtocol, 'h2');
      socket.destroy();
    } finally {
      await t.close();
      rmSync(certDir, { recursive: true, force: true });
    }
  });
});

void describe('--goaway-chance', () => {
  let t: TestServer;
  let certDir: string;
  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'kapi-certs-'));
    t = await startTestServer({ securePort: 0, bindAddress: '127.0.0.1', certDir, http2: { goawayChance: 0.02 } });
  });
  after(async () => {
    await t.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  void it('sends GOAWAY after about that fraction of HTTP/2 requests; the request and the open watch finish', async () => {
    let sessions = 0;
    let goaways = 0;
    const goneAway = new WeakSet<ClientHttp2Session>();
    const open = async () => {
      const fresh = await session(t.server.url!);
      sessions++;
      fresh.once('goaway', () => {
        goaways++;
        goneAway.add(fresh);
      });
      return fresh;
    };
    const first = await open();
    let s = first;
    const w = await watch(s, `${CM}?watch=true&labelSelector=goaway%3Dyes`);
    for (let i = 0; i < 600 && !(goaways > 0 && i > 100); i++) {
      if (s.closed || goneAway.has(s)) s = await open();
      const answer = await send(s, 'GET', '/livez');
      // The request that drew the GOAWAY is answered in full.
      assert.equal(answer.status, 200);
      assert.equal(answer.body, 'ok');
    }
    assert.ok(goaways >= 1, `no GOAWAY in ${sessions} sessions`);
    // The watch opened on the first session was not cut by its GOAWAY.
    assert.equal((await t.request('POST', CM, { body: { metadata: { name: 'after-goaway', labels: { goaway: 'yes' } } } })).status, 201);
    await w.seen('after-goaway', 10_000);
    w.stream.close();
    s.destroy();
    first.destroy();
  });
});

void describe('client certificates over HTTP/2', () => {
  void it('authenticates every stream of a connection by its certificate; kubectl works over h2', async () => {
    const t = await startSecureServer();
    try {
      const user = t.ca.client('h2-user', ['h2-group']);
      const s = await new Promise<ClientHttp2Session>((resolve, reject) => {
        const c = connect(t.server.url!, { ca: t.server.certificate, cert: user.cert, key: user.key });
        c.once('connect', () => resolve(c));
        c.once('error', reject);
      });
      try {
        assert.equal(s.alpnProtocol, 'h2');
        for (let i = 0; i < 3; i++) {
          const review = await send(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
          assert.equal(review.status, 201, review.body);
          const info = (JSON.parse(review.body) as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo;
          assert.equal(info.username, 'h2-user');
          assert.ok(info.groups.includes('h2-group'));
        }
        // Another connection without a certificate is not that user.
        const anonymous = await session(t.server.url!);
        assert.equal((await send(anonymous, 'GET', '/api/v1/namespaces')).status, 401);
        anonymous.destroy();
      } finally {
        s.destroy();
      }
      const kubectl = await t.kubectl({ cert: t.admin }, ['get', 'namespaces', 'default', '-o', 'name', '-v=6']);
      assert.equal(kubectl.code, 0, kubectl.stderr);
      assert.match(kubectl.stdout, /namespace\/default/);
    } finally {
      await t.close();
    }
  });
});

/**
 * A keep-alive connection carries each response whole and in order, over a raw socket
 * (exact bytes): `Expect: 100-continue` on a request sent while the previous response is
 * still in progress, and a request Node's parser refuses (an unknown method: kube's 405 Status) sent right
 * after another — both after a GET that waits for a resourceVersion ahead of the store
 * (kube waits 3 s, then 504).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from '../testing/fixture.js';

interface RawResponse {
  readonly statusLine: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Sends `bytes` on a new connection; the bytes received until the server closes it (or `quietMs` without any). */
function exchange(url: string, bytes: string, quietMs = 5_000): Promise<{ received: Buffer; closedByServer: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let timer = setTimeout(() => finish(false), quietMs);
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(chunks), closedByServer });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), quietMs);
    });
    socket.on('end', () => finish(true));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

/** Splits `received` into HTTP/1.1 responses framed by Content-Length; fails on any byte that is not part of one. */
function responses(received: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = received.toString('latin1');
  while (rest.length > 0) {
    assert.ok(rest.startsWith('HTTP/1.1 '), `a response must start with HTTP/1.1, got ${JSON.stringify(rest.slice(0, 80))}`);
    const end = rest.indexOf('\r\n\r\n');
    assert.ok(end > 0, `an incomplete header block: ${JSON.stringify(rest)}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = statusLine!.startsWith('HTTP/1.1 1') ? 0 : Number(headers['content-length'] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    assert.equal(body.length, length, `a body cut short: ${JSON.stringify(rest)}`);
    out.push({ statusLine: statusLine!, headers, body });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

const AHEAD = 'GET /api/v1/namespaces/default/configmaps?resourceVersion=99999999999 HTTP/1.1\r\nHost: kapi\r\n\r\n';

/** kube-apiserver 1.32's answer to a method it does not route (Go's parser reads any token). */
const UNKNOWN_METHOD_BODY = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}\n';
const UNKNOWN_METHOD_ANSWER =
  'HTTP/1.1 405 Method Not Allowed\r\nAudit-Id: <uuid>\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n' +
  `Content-Length: ${UNKNOWN_METHOD_BODY.length}\r\nConnection: close\r\n\r\n${UNKNOWN_METHOD_BODY}`;
/** The bytes with the answer's Audit-Id (a fresh UUID each time) written as `<uuid>`. */
const withoutAuditId = (text: string): string => text.replace(/Audit-Id: [0-9a-f-]{36}\r\n/g, 'Audit-Id: <uuid>\r\n');

void describe('keep-alive connections: whole responses, in order', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('Expect: 100-continue behind a response in progress: no interim response inside the final one; the connection then closes', async () => {
    const { received, closedByServer } = await exchange(t.url, `${AHEAD}GET /api HTTP/1.1\r\nHost: kapi\r\nExpect: 100-continue\r\n\r\n`);
    const [waited, next, ...extra] = responses(received);
    assert.equal(waited?.statusLine, 'HTTP/1.1 504 Gateway Timeout');
    assert.match(JSON.parse(waited.body).message as string, /^Timeout: Too large resource version: 99999999999, current: \d+$/);
    assert.equal(waited.headers['connection'], 'keep-alive');
    // Its final response was ready before it owned the connection: no 100 at all, as Go's
    // server when the body was never asked for, and the connection is not reused.
    assert.equal(next?.statusLine, 'HTTP/1.1 200 OK');
    assert.equal(JSON.parse(next.body).kind, 'APIVersions');
    assert.equal(next.headers['connection'], 'close');
    assert.deepEqual(extra, []);
    assert.ok(closedByServer);
  });

  void it('Expect: 100-continue on an idle keep-alive connection: 100 Continue, then the response, and the connection stays open', async () => {
    const { received, closedByServer } = await exchange(t.url, 'GET /api HTTP/1.1\r\nHost: kapi\r\nExpect: 100-continue\r\n\r\n', 1_000);
    const [interim, final, ...extra] = responses(received);
    assert.equal(interim?.statusLine, 'HTTP/1.1 100 Continue');
    assert.deepEqual(interim.headers, {});
    assert.equal(final?.statusLine, 'HTTP/1.1 200 OK');
    assert.equal(final.headers['connection'], 'keep-alive');
    assert.deepEqual(extra, []);
    assert.equal(closedByServer, false);
  });

  void it('a method Node\'s parser does not know, right behind another request: that response whole, then kube\'s 405 with Connection: close', async () => {
    for (const first of [AHEAD, 'GET /api HTTP/1.1\r\nHost: kapi\r\n\r\n']) {
      const { received, closedByServer } = await exchange(t.url, `${first}FUZZ /api HTTP/1.1\r\nHost: kapi\r\n\r\n`);
      const [answered, refused, ...extra] = responses(received);
      assert.equal(answered?.statusLine, first === AHEAD ? 'HTTP/1.1 504 Gateway Timeout' : 'HTTP/1.1 200 OK');
      JSON.parse(answered.body);
      assert.ok(withoutAuditId(received.toString('latin1')).endsWith(UNKNOWN_METHOD_ANSWER));
      assert.equal(refused?.statusLine, 'HTTP/1.1 405 Method Not Allowed');
      assert.deepEqual(extra, []);
      assert.ok(closedByServer);
    }
  });

  void it('a method Node\'s parser does not know on a fresh connection: the same 405 Status', async () => {
    const { received, closedByServer } = await exchange(t.url, 'FUZZ /api HTTP/1.1\r\nHost: kapi\r\n\r\n');
    assert.equal(withoutAuditId(received.toString('latin1')), UNKNOWN_METHOD_ANSWER);
    assert.ok(closedByServer);
  });
});

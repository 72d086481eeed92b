/**
 * Aggregated APIs against a real HTTPS backend (testing/aggregated-backend.ts) reached through
 * an APIService and an ExternalName Service: its OpenAPI v2 document merged into
 * `/openapi/v2` (JSON and protobuf) as kube's aggregator merges it — only its group-version's
 * paths, clashing definitions renamed `_v2`, refreshed when the backend's document changes,
 * gone with the APIService; and upgrade requests (SPDY, WebSocket: exec-style) tunnelled to
 * it both ways with the front-proxy certificate and X-Remote-* identity, as kube's
 * upgrade-aware proxy does. Checked against kube-apiserver 1.32.13 with the same backend
 * (behind Endpoints, --enable-aggregator-routing): the same merged paths and definitions
 * (`ObjectMeta_v2`), the same download (system:aggregator, Accept: application/json), the
 * same 101 headers, a stream past ?timeout=, a refused upgrade passed on.
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startAggregatedBackend, type AggregatedBackend } from './testing/aggregated-backend.js';
import { createTestCa, type TestCa } from './testing/client-certs.js';
import { startSecureServer, eventuallyValue, type SecureServer } from './testing/secure-server.js';

type Json = Record<string, unknown>;

const GROUP = 'wardle.example.com';
const APISERVICE = `/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.${GROUP}`;
const FLUNDER = 'com.example.wardle.v1alpha1.Flunder';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The backend's document: one path of its group-version, one of another group, one outside /apis, and an ObjectMeta unlike kapi's. */
function backendSwagger(description: string): Json {
  const get = (ref: string) => ({ get: { operationId: 'readFlunder', responses: { '200': { description: 'OK', schema: { $ref: `#/definitions/${ref}` } } } } });
  return {
    swagger: '2.0',
    info: { title: 'wardle', version: 'v0' },
    paths: {
      [`/apis/${GROUP}/v1alpha1/namespaces/{namespace}/flunders/{name}`]: get(FLUNDER),
      '/apis/other.example.com/v1/things': get('com.example.other.Thing'),
      '/version': get('com.example.Version'),
    },
    definitions: {
      [FLUNDER]: { description, type: 'object', properties: { metadata: { $ref: `#/definitions/${OBJECT_META}` } } },
      [OBJECT_META]: { description: 'the backend\'s own ObjectMeta', type: 'object' },
      'com.example.other.Thing': { type: 'object' },
      'com.example.Version': { type: 'object' },
    },
  };
}

void describe('aggregated APIs: OpenAPI v2 and upgrades', () => {
  let s: SecureServer;
  let proxyCa: TestCa;
  let backend: AggregatedBackend;
  const admin = () => ({ cert: s.admin });
  const swagger = async () => (await s.request(admin(), 'GET', '/openapi/v2')).json as { paths: Json; definitions: Json };

  before(async () => {
    proxyCa = createTestCa('front-proxy-ca');
    const proxyClient = proxyCa.client('front-proxy-client');
    const serving = proxyCa.client('wardle-server', [], { usage: 'serverAuth' });
    backend = await startAggregatedBackend({ cert: serving.cert, key: serving.key, proxyCa: proxyCa.cert, group: GROUP, version: 'v1alpha1' });
    backend.swagger = backendSwagger('a flunder');
    s = await startSecureServer({ proxyClientCertFile: proxyClient.certFile, proxyClientKeyFile: proxyClient.keyFile });
    const create = async (path: string, body: Json) => {
      const res = await s.request(admin(), 'POST', path, { body });
      assert.equal(res.status, 201, res.text);
    };
    await create('/api/v1/namespaces', { metadata: { name: 'wardle' } });
    await create('/api/v1/namespaces/wardle/services', { metadata: { name: 'api' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } });
    await create('/apis/apiregistration.k8s.io/v1/apiservices', {
      metadata: { name: `v1alpha1.${GROUP}` },
      spec: { group: GROUP, version: 'v1alpha1', service: { namespace: 'wardle', name: 'api', port: backend.port }, insecureSkipTLSVerify: true, groupPriorityMinimum: 1000, versionPriority: 15 },
    });
  });
  after(async () => {
    await s?.close();
    await backend?.close();
    proxyCa?.remove();
  });

  void it('merges the backend\'s group-version paths and definitions; clashing definitions are renamed', async () => {
    const doc = await eventuallyValue('the aggregated path in /openapi/v2', async () => {
      const d = await swagger();
      return d.definitions[FLUNDER] !== undefined ? d : undefined;
    });
    const path = `/apis/${GROUP}/v1alpha1/namespaces/{namespace}/flunders/{name}`;
    assert.ok(doc.paths[path], 'the group-version\'s path is merged');
    assert.equal(doc.paths['/apis/other.example.com/v1/things'], undefined, 'a path of another group-version is not');
    assert.equal(doc.definitions['com.example.other.Thing'], undefined, 'nor the definitions only it used');
    assert.notEqual(((doc.paths['/version'] as Json | undefined)?.['get'] as Json | undefined)?.['operationId'], 'readFlunder', 'nor one outside /apis');
    assert.equal(doc.definitions['com.example.Version'], undefined);
    // kapi's ObjectMeta stays; the backend's, different, is renamed and referenced under its new name.
    assert.notEqual((doc.definitions[OBJECT_META] as Json)['description'], 'the backend\'s own ObjectMeta');
    assert.deepEqual(doc.definitions[`${OBJECT_META}_v2`], { description: 'the backend\'s own ObjectMeta', type: 'object' });
    assert.deepEqual(doc.definitions[FLUNDER], { description: 'a flunder', type: 'object', properties: { metadata: { $ref: `#/definitions/${OBJECT_META}_v2` } } });
    // Sorted, as kube prints it.
    const keys = Object.keys(doc.paths);
    assert.deepEqual(keys, [...keys].sort());
    // The protobuf form carries it too.
    const pb = await s.request(admin(), 'GET', '/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.ok(pb.text.includes(path) && pb.text.includes(`${OBJECT_META}_v2`));
    // Downloaded as kube's aggregator does: as system:aggregator, with the front-proxy certificate.
    const download = backend.seen.find((r) => r.path === '/openapi/v2');
    assert.equal(download?.clientCn, 'front-proxy-client');
    assert.equal(download?.headers['x-remote-user'], 'system:aggregator');
  });

  void it('tunnels upgrade requests to the backend both ways (SPDY and WebSocket), with the front-proxy identity', { timeout: 30_000 }, async () => {
    /** Opens an upgraded connection through kapi; resolves with the 101's headers and the socket. */
    const upgrade = (protocol: string, extra: Record<string, string>, query = '') => new Promise<{ status: number; headers: Record<string, unknown>; socket: Duplex }>((resolve, reject) => {
      const req = httpsRequest(`${s.server.url!}/apis/${GROUP}/v1alpha1/namespaces/wardle/flunders/f1/exec?command=sh${query}`, {
        method: 'POST', rejectUnauthorized: false, agent: false, cert: s.admin.cert, key: s.admin.key,
        headers: { connection: 'Upgrade', upgrade: protocol, ...extra },
      });
      req.on('upgrade', (res, socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket }));
      req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
      req.on('error', reject);
      req.end();
    });
    const echo = (socket: Duplex, text: string) => new Promise<string>((resolve, reject) => {
      let got = '';
      const onClose = () => reject(new Error(`the stream closed after ${JSON.stringify(got)}`));
      const onData = (chunk: Buffer) => {
        got += chunk.toString('latin1');
        if (got.length >= text.length) {
          socket.off('data', onData);
          socket.off('close', onClose);
          resolve(got);
        }
      };
      socket.on('data', onData);
      socket.once('close', onClose);
      socket.write(text);
    });
    // A stream is long-running: a request deadline (here 1 s) does not cut it.
    const spdy = await upgrade('SPDY/3.1', { 'x-stream-protocol-version': 'v4.channel.k8s.io' }, '&timeout=1s');
    assert.equal(spdy.status, 101);
    assert.equal(spdy.headers['upgrade'], 'SPDY/3.1');
    assert.equal(spdy.headers['x-stream-protocol-version'], 'v4.channel.k8s.io');
    // The backend's 101 as kube passes it on: nothing of this server's.
    assert.deepEqual(Object.keys(spdy.headers).sort(), ['connection', 'upgrade', 'x-stream-protocol-version']);
    assert.equal(await echo(spdy.socket, 'hello through kapi'), 'HELLO THROUGH KAPI');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(await echo(spdy.socket, 'and back again'), 'AND BACK AGAIN');
    const closed = new Promise((resolve) => spdy.socket.on('close', resolve));
    spdy.socket.end();
    await closed;
    const ws = await upgrade('websocket', { 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13', 'sec-websocket-protocol': 'v5.channel.k8s.io' });
    assert.equal(ws.status, 101);
    assert.equal(await echo(ws.socket, 'ws bytes'), 'WS BYTES');
    ws.socket.destroy();
    const seen = backend.seen.filter((r) => r.upgrade);
    assert.equal(seen.length, 2);
    for (const r of seen) {
      assert.equal(r.clientCn, 'front-proxy-client');
      assert.equal(r.headers['x-remote-user'], 'kapi-admin');
      assert.ok(String(r.headers['x-remote-group']).includes('system:masters'), String(r.headers['x-remote-group']));
      assert.equal(r.headers['authorization'], undefined);
      assert.match(r.path, new RegExp(`^/apis/${GROUP}/v1alpha1/namespaces/wardle/flunders/f1/exec\\?command=sh`));
    }
    assert.equal(seen[1]!.headers['sec-websocket-key'], 'dGhlIHNhbXBsZSBub25jZQ==');
    // A backend that refuses the upgrade is answered as any request.
    const refused = await new Promise<{ status: number; auditId: unknown }>((resolve, reject) => {
      const req = httpsRequest(`${s.server.url!}/apis/${GROUP}/v1alpha1/namespaces/wardle/flunders/f1/attach`, {
        method: 'POST', rejectUnauthorized: false, agent: false, cert: s.admin.cert, key: s.admin.key, headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1' },
      });
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, auditId: res.headers['audit-id'] });
      });
      req.on('error', reject);
      req.end();
    });
    assert.deepEqual(refused, { status: 403, auditId: undefined });
  });

  void it('follows the backend\'s document when it changes, drops it while the APIService is unavailable and when it is deleted', async () => {
    backend.swagger = backendSwagger('a changed flunder');
    // Re-read at the next check (every 30 s) or, as here, when the APIService changes.
    assert.equal((await s.request(admin(), 'PATCH', APISERVICE, { body: { metadata: { labels: { touched: 'yes' } } }, headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    await eventuallyValue('the changed definition', async () => (((await swagger()).definitions[FLUNDER] as Json | undefined)?.['description'] === 'a changed flunder' ? true : undefined));
    // Unavailable (its Service gone): out of the document; available again: back.
    assert.equal((await s.request(admin(), 'DELETE', '/api/v1/namespaces/wardle/services/api')).status, 200);
    await eventuallyValue('dropped while unavailable', async () => ((await swagger()).definitions[FLUNDER] === undefined ? true : undefined));
    assert.equal((await s.request(admin(), 'POST', '/api/v1/namespaces/wardle/services', { body: { metadata: { name: 'api' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } } })).status, 201);
    await eventuallyValue('back once available', async () => ((await swagger()).definitions[FLUNDER] !== undefined ? true : undefined));
    const etag = (await s.request(admin(), 'GET', '/openapi/v2')).headers['etag'];
    assert.equal((await s.request(admin(), 'DELETE', APISERVICE)).status, 200);
    const doc = await eventuallyValue('the aggregated definitions gone', async () => {
      const d = await swagger();
      return d.definitions[FLUNDER] === undefined ? d : undefined;
    });
    assert.equal(doc.definitions[`${OBJECT_META}_v2`], undefined);
    assert.equal(doc.paths[`/apis/${GROUP}/v1alpha1/namespaces/{namespace}/flunders/{name}`], undefined);
    assert.notEqual((await s.request(admin(), 'GET', '/openapi/v2')).headers['etag'], etag);
  });
});

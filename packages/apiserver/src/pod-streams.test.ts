/**
 * pods/exec, attach, log and portforward over HTTP when the node's kubelet does not answer,
 * byte for byte as kube-apiserver 1.32.13 answered the same requests: a v5 WebSocket exec is
 * accepted and carries kube's Status on the error channel; SPDY is a 500 `error dialing
 * backend`; a request without an upgrade is a 400.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestServer, type TestServer } from './testing/fixture.js';

const NS = '/api/v1/namespaces/default';

/** A raw HTTP/1.1 request; for a 101, the bytes the server sent after the headers until it closed. */
function raw(url: string, method: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers });
    req.on('upgrade', (res, socket, head) => {
      const chunks: Buffer[] = [head];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      socket.on('error', reject);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const websocket = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' };

void describe('pod streams without a kubelet', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } } })).status, 201);
    const status = { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } };
    assert.equal((await t.request('PATCH', '/api/v1/nodes/node-a/status', { body: status, headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p2' }, spec: { nodeName: 'node-a', initContainers: [{ name: 'i', image: 'busybox:1.0' }], containers: [{ name: 'c', image: 'busybox' }] } };
    assert.equal((await t.request('POST', `${NS}/pods`, { body: pod })).status, 201);
  });
  after(async () => t.close());

  void it('accepts a v5 WebSocket exec and reports the kubelet\'s failure on the error channel', async () => {
    const res = await raw(`${t.url}${NS}/pods/p2/exec?command=ls&stdout=true&stderr=true`, 'GET', websocket);
    assert.equal(res.status, 101);
    assert.equal(res.headers['sec-websocket-accept'], 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    assert.equal(res.headers['sec-websocket-protocol'], 'v5.channel.k8s.io');
    const status =
      '{"metadata":{},"status":"Failure","message":"Internal error occurred: error sending request: Post \\"https://127.0.0.1:1/exec/default/p2/c?command=ls\\u0026error=1\\u0026output=1\\": dial tcp 127.0.0.1:1: connect: connection refused","reason":"InternalError","details":{"causes":[{"message":"error sending request: Post \\"https://127.0.0.1:1/exec/default/p2/c?command=ls\\u0026error=1\\u0026output=1\\": dial tcp 127.0.0.1:1: connect: connection refused"}]},"code":500}';
    const payload = Buffer.concat([Buffer.from([3]), Buffer.from(status)]);
    // What kube-apiserver 1.32.13 sent: an empty stdout frame, the error frame, a normal close.
    const expected = Buffer.concat([Buffer.from([0x82, 0x01, 0x01, 0x82, 0x7e, payload.length >> 8, payload.length & 0xff]), payload, Buffer.from([0x88, 0x02, 0x03, 0xe8])]);
    assert.deepEqual(res.body, expected);
  });

  void it('answers SPDY with kube\'s dial error and a plain request with a 400', async () => {
    const spdy = await raw(`${t.url}${NS}/pods/p2/exec?command=ls&stdout=true`, 'POST', { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' });
    assert.equal(spdy.status, 500);
    const body = JSON.parse(spdy.body.toString()) as Record<string, unknown>;
    assert.equal(body['message'], 'error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused');
    assert.equal(body['reason'], undefined);
    const plain = await t.request('POST', `${NS}/pods/p2/portforward`);
    assert.equal(plain.status, 400);
    assert.equal(plain.json['message'], 'Upgrade request required');
  });

  void it('answers a log request with the dial error and lists the containers when none is named', async () => {
    const log = await t.request('GET', `${NS}/pods/p2/log`);
    assert.equal(log.status, 500);
    assert.equal(log.json['message'], 'Get "https://127.0.0.1:1/containerLogs/default/p2/c": dial tcp 127.0.0.1:1: connect: connection refused');
    const twoContainers = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'two' }, spec: { nodeName: 'node-a', initContainers: [{ name: 'i', image: 'x' }], containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }] } };
    assert.equal((await t.request('POST', `${NS}/pods`, { body: twoContainers })).status, 201);
    const ambiguous = await t.request('GET', `${NS}/pods/two/log`);
    assert.equal(ambiguous.status, 400);
    assert.equal(ambiguous.json['message'], 'a container name must be specified for pod two, choose one of: [i a b]');
    const unknownVerb = await t.request('PUT', `${NS}/pods/two/log`, { body: {} });
    assert.equal(unknownVerb.status, 405);
  });

  void it('resolves services/proxy as kube does: endpoints, port names, pods behind the addresses', async () => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'foo' }, spec: { ports: [{ port: 80 }] } };
    assert.equal((await t.request('POST', `${NS}/services`, { body: service })).status, 201);
    // kube reports the missing Endpoints as a missing service.
    const noEndpoints = await t.request('GET', `${NS}/services/foo/proxy`);
    assert.equal(noEndpoints.status, 404);
    assert.equal(noEndpoints.json['message'], 'services "foo" not found');
    const wrongPort = await t.request('GET', `${NS}/services/foo:81/proxy/x`);
    assert.equal(wrongPort.status, 503);
    assert.equal(wrongPort.json['message'], 'no service port 81 found for service "foo"');
    const endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'foo' }, subsets: [{ addresses: [{ ip: '10.255.0.1' }], ports: [{ port: 80 }] }] };
    assert.equal((await t.request('POST', `${NS}/endpoints`, { body: endpoints })).status, 201);
    // An address without a pod behind it is skipped.
    const unbacked = await t.request('GET', `${NS}/services/foo/proxy`);
    assert.equal(unbacked.status, 503);
    assert.equal(unbacked.json['message'], 'no endpoints available for service "foo"');
  });
});

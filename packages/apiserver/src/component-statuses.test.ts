import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '@kapi/machinery';
import { parseFieldSelector, StatusError } from '@kapi/machinery';
import { componentStatusResource } from './component-statuses.js';
import { createTestCa, type TestCa } from './testing/client-certs.js';
import { startSecureServer, type SecureServer } from './testing/secure-server.js';

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const condition = (cs: KubeObject) => (cs['conditions'] as Record<string, string>[])[0];

void describe('componentstatuses', () => {
  let ca: TestCa;
  const servers: Server[] = [];
  const serve = async (status: number, body: string): Promise<string> => {
    const cert = ca.client('127.0.0.1', [], { usage: 'serverAuth' });
    const server = createServer({ cert: cert.cert, key: cert.key }, (_req, res) => res.writeHead(status).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return `https://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
  };
  before(() => {
    ca = createTestCa();
  });
  after(() => {
    for (const s of servers) s.close();
    ca.remove();
  });

  void it('probes each component on every read: 2xx is Healthy with the body, the rest Unhealthy with kube\'s texts', async () => {
    const refused = await closedPort();
    let etcdDown = false;
    const resource = componentStatusResource({
      checkEtcd: () => (etcdDown ? Promise.reject(new Error('etcd check timed out after 2000ms')) : Promise.resolve()),
      components: [
        ['scheduler', await serve(200, 'ok')],
        ['controller-manager', await serve(500, 'broken')],
        ['gone', `https://127.0.0.1:${refused}/healthz`],
      ],
    });
    const list = await resource.lister!.list({ namespace: '' }, {});
    assert.deepEqual(list.items.map((cs) => [cs.metadata.name, condition(cs)]), [
      ['scheduler', { type: 'Healthy', status: 'True', message: 'ok' }],
      ['controller-manager', { type: 'Healthy', status: 'False', message: 'HTTP probe failed with statuscode: 500' }],
      ['gone', { type: 'Healthy', status: 'False', message: `Get "https://127.0.0.1:${refused}/healthz": dial tcp 127.0.0.1:${refused}: connect: connection refused` }],
      ['etcd-0', { type: 'Healthy', status: 'True', message: 'ok' }],
    ]);
    assert.deepEqual(list.items[0]!.metadata, { name: 'scheduler', creationTimestamp: null });
    etcdDown = true;
    assert.deepEqual(condition(await resource.getter!.get({ namespace: '' }, 'etcd-0', {})), { type: 'Healthy', status: 'False', message: 'etcd check timed out after 2000ms' });
    const byName = await resource.lister!.list({ namespace: '' }, { fieldSelector: parseFieldSelector('metadata.name=scheduler') });
    assert.deepEqual(byName.items.map((cs) => cs.metadata.name), ['scheduler']);
    await assert.rejects(resource.getter!.get({ namespace: '' }, 'nope', {}), (err: unknown) => err instanceof StatusError && err.code === 500 && err.message === 'Component not found: nope' && err.reason === undefined);
    await assert.rejects(resource.lister!.list({ namespace: '' }, { fieldSelector: parseFieldSelector('status.x=y') }), /"status.x" is not a known field selector: only "metadata.name", "metadata.namespace"/);
  });

  void describe('served by kapi', () => {
    let t: SecureServer;
    before(async () => {
      t = await startSecureServer({ tokens: ['admin-token,admin,admin-uid,"system:masters"'] });
    });
    after(async () => t?.close());

    void it('kubectl get componentstatuses: etcd-0 from the server\'s etcd check, the deprecation warning; get and list only', async () => {
      const r = await t.kubectl({ token: 'admin-token' }, ['get', 'cs', 'etcd-0']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, 'Warning: v1 ComponentStatus is deprecated in v1.19+\n');
      assert.match(r.stdout, /^NAME\s+STATUS\s+MESSAGE\s+ERROR\netcd-0\s+Healthy\s+ok\s*\n$/);
      const list = await t.request({ token: 'admin-token' }, 'GET', '/api/v1/componentstatuses');
      assert.deepEqual((list.json['items'] as KubeObject[]).map((cs) => cs.metadata.name), ['scheduler', 'controller-manager', 'etcd-0']);
      const watchPath = await t.request({ token: 'admin-token' }, 'GET', '/api/v1/watch/componentstatuses');
      assert.equal(watchPath.status, 404);
      const watchParam = await t.request({ token: 'admin-token' }, 'GET', '/api/v1/componentstatuses?watch=true');
      assert.deepEqual([watchParam.status, watchParam.json['message'], watchParam.json['details']], [405, 'watch is not supported on resources of kind "componentstatuses"', { kind: 'componentstatuses' }]);
      const removed = await t.request({ token: 'admin-token' }, 'DELETE', '/api/v1/componentstatuses/etcd-0');
      assert.equal(removed.status, 405);
    });
  });
});

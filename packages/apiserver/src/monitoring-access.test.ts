/**
 * Who may read what outside the API (kube's bootstrap roles under --authorization-mode=RBAC):
 * /metrics needs system:monitoring (or more), /debug paths are for cluster admins only, health
 * and version are public (system:public-info-viewer), discovery and OpenAPI need an
 * authenticated user (system:discovery).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSecureServer, type SecureServer } from './testing/secure-server.js';

void describe('access to metrics, debug, health, version, discovery and OpenAPI under RBAC', () => {
  let s: SecureServer;
  const alice = { token: 'alice-token' };
  const monitor = { token: 'monitor-token' };
  before(async () => {
    s = await startSecureServer({ authorizationModes: ['RBAC'], anonymousAuth: true, tokens: ['alice-token,alice,1,"dev"', 'monitor-token,prometheus,2,"system:monitoring"'] });
  });
  after(async () => {
    await s?.close();
  });

  void it('lets system:monitoring read /metrics and health, nobody else but admins', async () => {
    const status = async (who: Parameters<SecureServer['request']>[0], path: string) => (await s.request(who, 'GET', path)).status;
    assert.equal(await status(monitor, '/metrics'), 200);
    assert.equal(await status({ cert: s.admin }, '/metrics'), 200);
    assert.equal(await status(alice, '/metrics'), 403);
    assert.equal(await status('anonymous', '/metrics'), 403);
    for (const path of ['/debug/pprof/', '/debug/pprof/heap', '/debug/flags/v']) {
      for (const who of ['anonymous', alice, monitor] as const) assert.equal(await status(who, path), 403, `${JSON.stringify(who)} ${path}`);
    }
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
      assert.equal(await status('anonymous', path), 200, path);
      assert.equal(await status(monitor, path), 200, path);
    }
    // Single checks are not public information (system:public-info-viewer lists the bare paths); monitoring may read them.
    assert.equal(await status('anonymous', '/readyz/etcd'), 403);
    assert.equal(await status(monitor, '/readyz/etcd'), 200);
    assert.equal(await status(monitor, '/livez/ping'), 200);
    for (const path of ['/api', '/apis', '/openapi/v3', '/api/v1']) {
      assert.equal(await status('anonymous', path), 403, path);
      assert.equal(await status(alice, path), 200, path);
    }
  });
});

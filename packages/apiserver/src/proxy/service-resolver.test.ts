import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject } from '@kapi/machinery';
import { backendUrl, clusterIpServiceResolver, endpointServiceResolver, endpointUrls, serviceServerName, type ObjectLookup } from './service-resolver.js';
import { authProxyHeaders, escapeExtraKey } from './auth-proxy-headers.js';

function lookup(objects: Record<string, unknown>): ObjectLookup {
  return { get: (namespace, name) => objects[`${namespace}/${name}`] as KubeObject | undefined };
}

const services = lookup({
  'm/ms': { metadata: { namespace: 'm', name: 'ms' }, spec: { type: 'ClusterIP', clusterIP: '10.0.0.7', ports: [{ name: 'https', port: 443, targetPort: 4443 }] } },
  'm/headless': { metadata: { namespace: 'm', name: 'headless' }, spec: { type: 'ClusterIP', clusterIP: 'None', ports: [{ port: 443 }] } },
  'm/ext': { metadata: { namespace: 'm', name: 'ext' }, spec: { type: 'ExternalName', externalName: 'metrics.example.com' } },
  'm/v6': { metadata: { namespace: 'm', name: 'v6' }, spec: { type: 'ClusterIP', clusterIP: 'fd00::7', ports: [{ port: 443 }] } },
});
const endpoints = lookup({
  'm/ms': { metadata: { namespace: 'm', name: 'ms' }, subsets: [{ addresses: [{ ip: '192.0.2.5' }, { ip: '192.0.2.6' }], ports: [{ name: 'https', port: 4443 }, { name: 'other', port: 1 }] }] },
  'm/v6': { metadata: { namespace: 'm', name: 'v6' }, subsets: [{ addresses: [{ ip: '192.0.2.9' }], ports: [{ name: 'x', port: 4443 }] }] },
});

function thrown(fn: () => unknown): { code?: number; message: string } {
  try {
    fn();
  } catch (err) {
    return { ...(isStatusError(err) ? { code: err.code } : {}), message: (err as Error).message };
  }
  assert.fail('expected an error');
}

void describe('proxy: service resolution and identity headers', () => {
  void it('ClusterIP resolution: the Service IP and port, kube\'s errors otherwise', () => {
    const r = clusterIpServiceResolver(services);
    assert.equal(backendUrl(r.resolve({ namespace: 'm', name: 'ms', port: 443 }), '/apis?x=1'), 'https://10.0.0.7:443/apis?x=1');
    assert.equal(backendUrl(r.resolve({ namespace: 'm', name: 'v6', port: 443 })), 'https://[fd00::7]:443/');
    assert.deepEqual(r.resolve({ namespace: 'm', name: 'ext', port: 8443 }), { host: 'metrics.example.com', port: 8443 });
    assert.deepEqual(thrown(() => r.resolve({ namespace: 'm', name: 'nope', port: 443 })), { code: 404, message: 'service "nope" not found' });
    assert.deepEqual(thrown(() => r.resolve({ namespace: 'm', name: 'ms', port: 444 })), { code: 503, message: 'no service port 444 found for service "ms"' });
    assert.deepEqual(thrown(() => r.resolve({ namespace: 'm', name: 'headless', port: 443 })), { message: 'cannot route to service with ClusterIP "None"' });
  });

  void it('endpoint routing: the addresses of the port with the Service port\'s name', () => {
    assert.deepEqual(endpointUrls(services, endpoints, { namespace: 'm', name: 'ms', port: 443 }), [{ host: '192.0.2.5', port: 4443 }, { host: '192.0.2.6', port: 4443 }]);
    const r = endpointServiceResolver(services, endpoints);
    assert.match(backendUrl(r.resolve({ namespace: 'm', name: 'ms', port: 443 })), /^https:\/\/192\.0\.2\.[56]:4443\/$/);
    // The Service's port is unnamed; the endpoints' port is named "x": no match.
    assert.deepEqual(thrown(() => r.resolve({ namespace: 'm', name: 'v6', port: 443 })), { code: 503, message: 'no endpoints available for service "v6"' });
    assert.deepEqual(thrown(() => r.resolve({ namespace: 'm', name: 'headless', port: 443 })), { code: 404, message: 'endpoints "headless" not found' });
    assert.deepEqual(thrown(() => r.resolve({ namespace: 'm', name: 'ext', port: 443 })), { code: 503, message: 'no service port 443 found for service "ext"' });
    assert.equal(serviceServerName({ namespace: 'm', name: 'ms' }), 'ms.m.svc');
  });

  void it('front-proxy identity headers: kube\'s names, extra keys escaped', () => {
    assert.equal(escapeExtraKey('authentication.kubernetes.io/credential-id'), 'authentication.kubernetes.io%2Fcredential-id');
    assert.equal(escapeExtraKey('a%b é'), 'a%25b%20%C3%A9');
    assert.deepEqual(authProxyHeaders({ name: 'alice', uid: 'u1', groups: ['g1', 'system:authenticated'], extra: { 'scopes/x': ['a', 'b'], empty: [] } }), {
      'X-Remote-User': 'alice',
      'X-Remote-Group': ['g1', 'system:authenticated'],
      'X-Remote-Extra-scopes%2Fx': ['a', 'b'],
    });
    assert.equal(authProxyHeaders({ name: 'alice', uid: 'u1', groups: [], extra: {} }, { uid: true })['X-Remote-Uid'], 'u1');
  });
});

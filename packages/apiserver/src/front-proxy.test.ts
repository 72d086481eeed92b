/**
 * Front-proxy authentication (`--requestheader-*`), as kube-apiserver 1.32 does it (the same
 * requests were answered identically by the real binary): a client certificate of the
 * front-proxy CA with an allowed CN asserts the user in headers; a user's certificate of the
 * client CA is still its own user whatever headers it sends; a proxy certificate is no user
 * by itself. The settings are published in kube-system/extension-apiserver-authentication.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestCa, type Pem, type TestCa } from './testing/client-certs.js';
import { startSecureServer, type SecureServer } from './testing/secure-server.js';

const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const REVIEW = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

void describe('front-proxy request headers', () => {
  let s: SecureServer;
  let proxyCa: TestCa;
  let proxy: Pem;
  let otherProxy: Pem;
  before(async () => {
    proxyCa = createTestCa('front-proxy-ca');
    proxy = proxyCa.client('front-proxy-client');
    otherProxy = proxyCa.client('other-proxy');
    s = await startSecureServer({
      authorizationModes: ['RBAC'],
      requestHeader: {
        clientCaFile: proxyCa.certFile,
        allowedNames: ['front-proxy-client'],
        usernameHeaders: ['X-Remote-User', 'X-Other-User'],
        uidHeaders: [],
        groupHeaders: ['X-Remote-Group'],
        extraHeaderPrefixes: ['X-Remote-Extra-', 'X-Ex2-'],
      },
    });
  });
  after(async () => {
    await s.close();
    proxyCa.remove();
  });

  const whoami = async (cert: Pem, headers: Record<string, string | string[]>) => {
    const r = await s.request({ cert }, 'POST', WHOAMI, { body: REVIEW, headers: headers as Record<string, string> });
    return r.status === 201 ? (r.json['status'] as { userInfo: unknown }).userInfo : r.status;
  };

  void it('takes the user, groups and extra from the headers of an allowed proxy', async () => {
    assert.deepEqual(await whoami(proxy, {
      'X-Remote-User': 'alice', 'X-Remote-Group': ['g1', 'g2'], 'X-Remote-Extra-Foo%2fBar': 'x', 'X-Ex2-Scopes': 'a',
    }), { username: 'alice', groups: ['g1', 'g2', 'system:authenticated'], extra: { 'foo/bar': ['x'], scopes: ['a'] } });
    assert.deepEqual(await whoami(proxy, { 'X-Remote-User': '', 'X-Other-User': 'carol' }), { username: 'carol', groups: ['system:authenticated'] });
    const asMaster = await s.request({ cert: proxy }, 'GET', '/api/v1/namespaces/default/secrets', { headers: { 'X-Remote-User': 'bob', 'X-Remote-Group': 'system:masters' } });
    assert.equal(asMaster.status, 200);
    const denied = await s.request({ cert: proxy }, 'GET', '/api/v1/namespaces/default/secrets', { headers: { 'X-Remote-User': 'bob' } });
    assert.equal(denied.json['message'], 'secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "default"');
  });

  void it('refuses a proxy whose CN is not allowed, and a proxy certificate without a user header', async () => {
    assert.equal(await whoami(otherProxy, { 'X-Remote-User': 'alice' }), 401);
    assert.equal(await whoami(proxy, {}), 401);
  });

  void it('keeps a client-CA certificate its own user whatever headers it sends', async () => {
    const info = await whoami(s.admin, { 'X-Remote-User': 'alice' }) as { username: string };
    assert.equal(info.username, 'kapi-admin');
  });

  void it('publishes the settings in kube-system/extension-apiserver-authentication', async () => {
    let data: Record<string, string> | undefined;
    for (let i = 0; i < 100 && data === undefined; i++) {
      const r = await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
      if (r.status === 200) data = r.json['data'] as Record<string, string>;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(data, {
      'client-ca-file': s.ca.cert,
      'requestheader-allowed-names': '["front-proxy-client"]',
      'requestheader-client-ca-file': proxyCa.cert,
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-","X-Ex2-"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-username-headers': '["X-Remote-User","X-Other-User"]',
    });
  });
});

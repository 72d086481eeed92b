/**
 * The admission chain as configured: NamespaceLifecycle and ServiceAccount are plugins that
 * --disable-admission-plugins (here `admissionPlugins`) turns off, as in kube.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './testing/fixture.js';

const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

void describe('admission plugins turned off', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ admissionPlugins: [] });
  });
  after(async () => {
    await t.close();
  });

  void it('without NamespaceLifecycle: creates in a missing namespace are stored, and kube-public may be deleted', async () => {
    const created = await t.request('POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'x' } } });
    assert.equal(created.status, 201, created.text);
    const deleted = await t.request('DELETE', '/api/v1/namespaces/kube-public');
    assert.equal(deleted.status, 200, deleted.text);
  });

  void it('without ServiceAccount: pods are stored as sent', async () => {
    const created = await t.request('POST', '/api/v1/namespaces/default/pods', { body: pod('p') });
    assert.equal(created.status, 201, created.text);
    const spec = created.json['spec'] as Record<string, unknown>;
    assert.equal(spec['serviceAccountName'], undefined);
    assert.equal(spec['volumes'], undefined);
  });
});

void describe('admission plugins by default', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('NamespaceLifecycle refuses creates in a missing namespace and keeps the immortal ones', async () => {
    const created = await t.request('POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'x' } } });
    assert.equal(created.status, 404);
    assert.equal(created.json['message'], 'namespaces "nowhere" not found');
    const deleted = await t.request('DELETE', '/api/v1/namespaces/kube-public');
    assert.equal(deleted.status, 403);
  });

  void it('ServiceAccount refuses a pod whose account does not exist (yet)', async () => {
    assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'fresh' } } })).status, 201);
    const refused = await t.request('POST', '/api/v1/namespaces/fresh/pods', { body: { ...pod('p'), spec: { ...pod('p').spec, serviceAccountName: 'robot' } } });
    assert.equal(refused.status, 403);
    assert.equal(refused.json['message'], 'pods "p" is forbidden: error looking up service account fresh/robot: serviceaccount "robot" not found');
    assert.equal((await t.request('POST', '/api/v1/namespaces/fresh/serviceaccounts', { body: { metadata: { name: 'robot' } } })).status, 201);
    const created = await t.request('POST', '/api/v1/namespaces/fresh/pods', { body: { ...pod('p'), spec: { ...pod('p').spec, serviceAccountName: 'robot' } } });
    assert.equal(created.status, 201, created.text);
    assert.match(String(((created.json['spec'] as Record<string, unknown>)['volumes'] as { name: string }[])[0]!.name), /^kube-api-access-/);
  });
});

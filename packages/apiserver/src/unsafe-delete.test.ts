/**
 * The AllowUnsafeMalformedObjectDeletion gate under RBAC, as kube-apiserver 1.32 checks it
 * (e2e/src/reference/unsafe-delete-vs-kube.test.ts compares the rest with kube): the delete
 * option needs the verb `unsafe-delete-ignore-read-errors` on the object besides `delete`
 * (kube's 403 text, taken from the reference server); granted, the unreadable key goes.
 * Without the gate the option is dropped and the delete fails as any read of the value does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { eventuallyValue as eventually, startSecureServer, type SecureServer } from './testing/secure-server.js';

const PREFIX = '/unsafe-delete-test';
const KEY = `${PREFIX}/configmaps/default/broken`;
const PATH = '/api/v1/namespaces/default/configmaps/broken';
// The option as a query parameter (kube reads DeleteOptions from the query when there is no body).
const UNSAFE_PATH = `${PATH}?ignoreStoreReadErrorWithClusterBreakingPotential=true`;
const ROLES = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';

for (const gate of [true, false]) {
  void describe(`the unsafe delete option, AllowUnsafeMalformedObjectDeletion=${gate}`, () => {
    let s: SecureServer;
    let etcd: Etcd3;
    const bob = { token: 'bob-token' };
    const role = (verbs: string[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }] });

    before(async () => {
      s = await startSecureServer({ authorizationModes: ['RBAC'], tokens: ['bob-token,bob,bob-uid'], etcdPrefix: PREFIX, allowUnsafeMalformedObjectDeletion: gate });
      etcd = new Etcd3({ hosts: s.etcd.endpoints });
      const admin = { cert: s.admin };
      assert.equal((await s.request(admin, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'broken', finalizers: ['example.com/keep'] } } })).status, 201);
      assert.equal((await s.request(admin, 'POST', ROLES, { body: role(['get', 'list', 'delete']) })).status, 201);
      const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }] };
      assert.equal((await s.request(admin, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { body: binding })).status, 201);
      await etcd.put(KEY).value(Buffer.from('k8s\0garbage'));
    });
    after(async () => {
      etcd?.close();
      await s?.close();
    });

    if (!gate) {
      void it('is dropped: the delete fails as a read of the value does', async () => {
        const res = await eventually('bob may delete', async () => {
          const r = await s.request(bob, 'DELETE', UNSAFE_PATH);
          return r.status === 403 ? undefined : r;
        });
        assert.equal(res.status, 500);
        assert.equal(res.json['message'], 'proto: illegal wireType 7');
        assert.notEqual(await etcd.get(KEY).buffer(), null);
      });
      return;
    }

    void it("needs the verb unsafe-delete-ignore-read-errors (kube's 403), then deletes the unreadable key", async () => {
      const refused = await eventually('bob may delete', async () => {
        const r = await s.request(bob, 'DELETE', UNSAFE_PATH);
        return r.status === 403 && String(r.json['message']).includes('cannot delete') ? undefined : r;
      });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(
        refused.text.trim(),
        JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "broken" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: ', reason: 'Forbidden', details: { name: 'broken', kind: 'configmaps' }, code: 403 }),
      );
      const plain = await s.request(bob, 'DELETE', PATH);
      assert.equal(plain.status, 500);
      assert.match(String(plain.json['message']), /^Internal error occurred: StorageError: corrupt object, Code: 7, Key: \/configmaps\/default\/broken, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=\d+: proto: illegal wireType 7$/);

      assert.equal((await s.request({ cert: s.admin }, 'PUT', `${ROLES}/cm`, { body: role(['get', 'list', 'delete', 'unsafe-delete-ignore-read-errors']) })).status, 200);
      const deleted = await eventually('bob may delete unsafely', async () => {
        const r = await s.request(bob, 'DELETE', UNSAFE_PATH);
        return r.status === 403 ? undefined : r;
      });
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'broken', kind: 'ConfigMap' }, code: 200 });
      assert.equal(await etcd.get(KEY).buffer(), null);
    });
  });
}

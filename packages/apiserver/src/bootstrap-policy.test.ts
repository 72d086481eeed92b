/**
 * kube's bootstrap RBAC policy at start (RBAC on): every role and binding created once, a
 * restart changes nothing, a role that lost a bootstrap rule gets it back, one annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone, and two replicas
 * starting together on an empty etcd both come up with one copy of each object.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapPolicy } from '@kapi/catalog';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { silentLogger } from './logger.js';
import { startApiServer, type RunningServer } from './main.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

interface Item {
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string> };
  rules?: unknown[] | null;
}

void describe('the bootstrap RBAC policy', () => {
  let etcd: TestEtcd;
  const prefix = uniquePrefix();
  const start = (etcdPrefix = prefix): Promise<RunningServer> =>
    startApiServer({ etcdServers: etcd.endpoints, etcdPrefix, securePort: null, insecurePort: 0, authorizationModes: ['RBAC'], anonymousAuth: true, logger: silentLogger, controllers: false });
  const json = async <T>(server: RunningServer, method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(server.insecureUrl! + path, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
    return (await res.json()) as T;
  };
  const versions = async (server: RunningServer): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const plural of ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings']) {
      for (const item of (await json<{ items: (Item & { metadata: { namespace?: string } })[] }>(server, 'GET', `${RBAC}/${plural}`)).items) out[`${plural}/${item.metadata.namespace ?? ""}/${item.metadata.name}`] = item.metadata.resourceVersion;
    }
    return out;
  };
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.stop();
  });

  void it('creates every object of kube\'s policy, and a restart writes nothing', async () => {
    const first = await start();
    // Let the aggregation controller settle (it fills admin, edit, view, ...).
    const settled = async (): Promise<Record<string, string>> => {
      let last = await versions(first);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const now = await versions(first);
        if (JSON.stringify(now) === JSON.stringify(last)) return now;
        last = now;
      }
    };
    const before = await settled();
    const policy = bootstrapPolicy();
    assert.equal(Object.keys(before).filter((k) => k.startsWith('clusterroles/')).length, policy.clusterRoles.length);
    assert.equal(Object.keys(before).filter((k) => k.startsWith('clusterrolebindings/')).length, policy.clusterRoleBindings.length);
    assert.equal(Object.keys(before).filter((k) => k.startsWith('roles/')).length, Object.values(policy.namespaceRoles).flat().length);
    const admin = await json<Item>(first, 'GET', `${RBAC}/clusterroles/admin`);
    assert.ok((admin.rules ?? []).length > 10, 'admin is aggregated from system:aggregate-to-admin, edit and view');
    await first.close();
    const second = await start();
    try {
      assert.deepEqual(await versions(second), before);
    } finally {
      await second.close();
    }
  });

  void it('puts back a bootstrap rule that was removed, and leaves a role with autoupdate "false" alone', async () => {
    let server = await start();
    const discovery = await json<Item>(server, 'GET', `${RBAC}/clusterroles/system:discovery`);
    const wanted = discovery.rules!;
    await json(server, 'PUT', `${RBAC}/clusterroles/system:discovery`, { ...discovery, rules: wanted.slice(1) });
    const basic = await json<Item>(server, 'GET', `${RBAC}/clusterroles/system:basic-user`);
    await json(server, 'PUT', `${RBAC}/clusterroles/system:basic-user`, { ...basic, metadata: { ...basic.metadata, annotations: { ...basic.metadata.annotations, 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] });
    await server.close();
    server = await start();
    try {
      assert.deepEqual((await json<Item>(server, 'GET', `${RBAC}/clusterroles/system:discovery`)).rules, [...wanted.slice(1), wanted[0]]);
      // (kube shows the emptied list as null: a nil slice without omitempty)
      assert.equal((await json<Item>(server, 'GET', `${RBAC}/clusterroles/system:basic-user`)).rules, null);
    } finally {
      await server.close();
    }
  });

  void it('lets two replicas reconcile an empty etcd at once', async () => {
    const fresh = uniquePrefix();
    const [a, b] = await Promise.all([start(fresh), start(fresh)]);
    try {
      const names = (await json<{ items: Item[] }>(a, 'GET', `${RBAC}/clusterroles`)).items.map((i) => i.metadata.name);
      assert.equal(names.length, bootstrapPolicy().clusterRoles.length);
      // The same objects through either replica (the aggregation controller may still be writing: names, not versions).
      assert.deepEqual(Object.keys(await versions(a)).sort(), Object.keys(await versions(b)).sort());
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

/**
 * @kubernetes/client-node against a target: the typed CoreV1Api (CRUD, patch, paging, errors),
 * the generic KubernetesObjectApi, and a ListWatch informer that must end equal to a fresh
 * list after a burst of creates, updates and deletes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException, CoreV1Api, KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, setHeaderOptions,
  type Informer, type KubernetesObject, type ObjectCache, type V1ConfigMap,
} from '@kubernetes/client-node';
import type { TargetRef } from './targets.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ApiException's HTTP code and decoded Status. */
async function apiError(promise: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ApiException, String(err));
    const status = JSON.parse(err.body as string) as { reason: string; message: string };
    return { code: err.code, reason: status.reason, message: status.message };
  }
  throw new Error('expected an ApiException');
}

export function clientNodeSuite(target: TargetRef): void {
  void describe('@kubernetes/client-node', () => {
    const ns = 'suite-client-node';
    let kc: KubeConfig;
    let api: CoreV1Api;

    before(async () => {
      kc = new KubeConfig();
      kc.loadFromFile(target().kubeconfig);
      api = kc.makeApiClient(CoreV1Api);
      await api.createNamespace({ body: { metadata: { name: ns } } });
    });

    void it('CoreV1Api: create, read, replace, patch, list in pages, delete; Conflict, AlreadyExists and NotFound as Status', async () => {
      const created = await api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'js', labels: { via: 'client-node' } }, data: { k: 'v' } } });
      assert.match(created.metadata?.resourceVersion ?? '', /^[1-9][0-9]*$/);
      assert.ok(created.metadata?.creationTimestamp instanceof Date);
      const read = await api.readNamespacedConfigMap({ name: 'js', namespace: ns });
      assert.equal(read.metadata?.uid, created.metadata?.uid);

      const replaced = await api.replaceNamespacedConfigMap({ name: 'js', namespace: ns, body: { ...read, data: { k: 'v2' } } });
      assert.deepEqual(replaced.data, { k: 'v2' });
      const conflict = await apiError(api.replaceNamespacedConfigMap({ name: 'js', namespace: ns, body: { ...read, data: { k: 'stale' } } }));
      assert.deepEqual(conflict, {
        code: 409,
        reason: 'Conflict',
        message: 'Operation cannot be fulfilled on configmaps "js": the object has been modified; please apply your changes to the latest version and try again',
      });
      const patched = await api.patchNamespacedConfigMap(
        { name: 'js', namespace: ns, body: { data: { extra: '1' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      assert.deepEqual(patched.data, { k: 'v2', extra: '1' });
      const jsonPatched = await api.patchNamespacedConfigMap({ name: 'js', namespace: ns, body: [{ op: 'remove', path: '/data/extra' }] });
      assert.deepEqual(jsonPatched.data, { k: 'v2' });

      const dup = await apiError(api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'js' } } }));
      assert.deepEqual(dup, { code: 409, reason: 'AlreadyExists', message: 'configmaps "js" already exists' });

      for (let i = 0; i < 5; i++) await api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `page-${i}`, labels: { paged: 'yes' } } } });
      const names: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await api.listNamespacedConfigMap({ namespace: ns, labelSelector: 'paged=yes', limit: 2, ...(token ? { _continue: token } : {}) });
        names.push(...page.items.map((o) => o.metadata!.name!));
        assert.ok(page.items.length <= 2);
        token = page.metadata?._continue || undefined;
        pages++;
      } while (token);
      assert.deepEqual(names.sort(), ['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
      assert.equal(pages, 3);

      await api.deleteNamespacedConfigMap({ name: 'js', namespace: ns });
      assert.deepEqual(await apiError(api.readNamespacedConfigMap({ name: 'js', namespace: ns })), { code: 404, reason: 'NotFound', message: 'configmaps "js" not found' });
    });

    void it('KubernetesObjectApi: create, read, merge-patch, list and delete by apiVersion and kind', async () => {
      const objects = KubernetesObjectApi.makeApiClient(kc);
      const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: ns }, data: { a: '1' } };
      const created = await objects.create<KubernetesObject & { data?: Record<string, string> }>(spec);
      assert.equal(created.metadata?.name, 'generic');
      const read = await objects.read<KubernetesObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: ns } });
      assert.deepEqual(read.data, { a: '1' });
      const patched = await objects.patch<KubernetesObject & { data?: Record<string, string> }>(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: ns }, data: { b: '2' } } as KubernetesObject,
        undefined, undefined, undefined, undefined, PatchStrategy.MergePatch,
      );
      assert.deepEqual(patched.data, { a: '1', b: '2' });
      const list = await objects.list('v1', 'ConfigMap', ns);
      assert.ok(list.items.some((o) => o.metadata?.name === 'generic'));
      const status = await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: ns } });
      assert.equal(status.kind === 'Status' ? status.status : 'deleted-object', status.kind === 'Status' ? 'Success' : 'deleted-object');
      assert.equal((await apiError(objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: ns } }))).code, 404);
    });

    void describe('informer', () => {
      let informer: (Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>) | undefined;
      after(async () => {
        await informer?.stop();
      });

      void it('a ListWatch informer sees adds, updates and deletes and ends equal to a fresh list', async () => {
        const infNs = 'suite-client-node-informer';
        await api.createNamespace({ body: { metadata: { name: infNs } } });
        // A server that issues service account tokens publishes kube-root-ca.crt in every namespace
        // (when it likes): the counts below are of this test's ConfigMaps.
        const ours = (o: V1ConfigMap) => o.metadata?.name !== 'kube-root-ca.crt';
        for (let i = 0; i < 20; i++) await api.createNamespacedConfigMap({ namespace: infNs, body: { metadata: { name: `seed-${i}` }, data: { v: '0' } } });
        informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${infNs}/configmaps`, () => api.listNamespacedConfigMap({ namespace: infNs }));
        const seen = { add: 0, update: 0, delete: 0 };
        informer.on('add', (o) => ours(o) && seen.add++);
        informer.on('update', (o) => ours(o) && seen.update++);
        informer.on('delete', (o) => ours(o) && seen.delete++);
        await informer.start();
        assert.equal(informer.list(infNs).filter(ours).length, 20);

        for (let i = 0; i < 10; i++) await api.createNamespacedConfigMap({ namespace: infNs, body: { metadata: { name: `new-${i}` }, data: { v: '0' } } });
        for (let i = 0; i < 20; i += 2) {
          await api.patchNamespacedConfigMap({ name: `seed-${i}`, namespace: infNs, body: { data: { v: '1' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
        }
        for (let i = 1; i < 20; i += 4) await api.deleteNamespacedConfigMap({ name: `seed-${i}`, namespace: infNs });

        const fresh = await api.listNamespacedConfigMap({ namespace: infNs });
        const want = fresh.items.map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();
        let got: string[] = [];
        for (let i = 0; i < 200; i++) {
          got = informer.list(infNs).map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();
          if (JSON.stringify(got) === JSON.stringify(want)) break;
          await sleep(50);
        }
        assert.deepEqual(got, want);
        assert.equal(want.filter((w) => !w.startsWith('kube-root-ca.crt@')).length, 25);
        assert.equal(seen.delete, 5);
        assert.equal(seen.update, 10);
        assert.equal(seen.add, 30);
      });
    });
  });
}

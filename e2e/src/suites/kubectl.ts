/** kubectl against a target: CRUD, label selectors, patch, replace, error messages and a watch. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { configMap, writeJsonFile } from '../harness/fixtures.js';
import { startKubectl } from '../harness/kubectl.js';
import type { TargetRef } from './targets.js';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  status?: { phase?: string };
}

export function kubectlSuite(target: TargetRef): void {
  void describe('kubectl', () => {
    const ns = 'suite-kubectl';

    void it('creates a namespace and ConfigMaps from files, reads them as JSON and YAML, lists with selectors', async () => {
      const t = target();
      const kubectl = t.kubectl();
      assert.equal(await kubectl.ok(['create', 'namespace', ns]), `namespace/${ns} created\n`);
      assert.equal((await kubectl.json<Obj>(['get', 'namespace', ns])).status?.phase, 'Active');
      for (const [name, tier] of [['a', 'backend'], ['b', 'frontend'], ['c', undefined]] as const) {
        const file = writeJsonFile(t.dir, `kubectl-${name}.json`, configMap(ns, name, { n: name }, tier ? { tier } : undefined));
        assert.equal(await kubectl.ok(['create', '-f', file]), `configmap/${name} created\n`);
      }
      const json = await kubectl.json<Obj>(['get', 'configmap', 'a', '-n', ns]);
      assert.equal(json.kind, 'ConfigMap');
      assert.deepEqual(json.data, { n: 'a' });
      assert.match(json.metadata.resourceVersion, /^[1-9][0-9]*$/);
      assert.deepEqual(await kubectl.yaml<Obj>(['get', 'cm', 'a', '-n', ns]), json);
      const byName = (args: string[]) => kubectl.ok(['get', 'configmaps', '-n', ns, '-o', 'name', ...args]);
      assert.equal(await byName(['-l', 'tier=backend']), 'configmap/a\n');
      assert.equal(await byName(['-l', 'tier in (backend,frontend)']), 'configmap/a\nconfigmap/b\n');
      assert.equal(await byName(['-l', 'tier']), 'configmap/a\nconfigmap/b\n');
      assert.match(await byName(['-l', '!tier']), /^configmap\/c$/m);
      // The table printer (server-side Table) lists all three.
      const table = await kubectl.ok(['get', 'configmaps', '-n', ns]);
      for (const name of ['a', 'b', 'c']) assert.match(table, new RegExp(`^${name}\\s+1\\s`, 'm'), table);
    });

    void it('label, patch (merge and JSON) and replace change the object; a stale replace conflicts', async () => {
      const kubectl = target().kubectl();
      const before = await kubectl.json<Obj>(['get', 'configmap', 'a', '-n', ns]);
      assert.equal(await kubectl.ok(['label', 'configmap', 'a', 'extra=yes', '-n', ns]), 'configmap/a labeled\n');
      assert.equal(await kubectl.ok(['patch', 'configmap', 'a', '-n', ns, '--type=merge', '-p', '{"data":{"m":"1"}}']), 'configmap/a patched\n');
      assert.equal(await kubectl.ok(['patch', 'configmap', 'a', '-n', ns, '--type=json', '-p', '[{"op":"replace","path":"/data/n","value":"A"}]']), 'configmap/a patched\n');
      const patched = await kubectl.json<Obj>(['get', 'configmap', 'a', '-n', ns]);
      assert.deepEqual(patched.data, { n: 'A', m: '1' });
      assert.deepEqual(patched.metadata.labels, { tier: 'backend', extra: 'yes' });
      assert.equal(patched.metadata.uid, before.metadata.uid);
      assert.ok(BigInt(patched.metadata.resourceVersion) > BigInt(before.metadata.resourceVersion));

      const replaced = { ...patched, data: { n: 'replaced' } };
      assert.equal(await kubectl.ok(['replace', '-f', '-'], JSON.stringify(replaced)), 'configmap/a replaced\n');
      const stale = await kubectl.run(['replace', '-f', '-'], JSON.stringify({ ...patched, data: { n: 'stale' } }));
      assert.equal(stale.code, 1);
      assert.match(stale.stderr, /Error from server \(Conflict\): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again/);
      assert.deepEqual((await kubectl.json<Obj>(['get', 'configmap', 'a', '-n', ns])).data, { n: 'replaced' });
    });

    void it('kubectl apply creates, then updates server-side and client-side', async () => {
      const kubectl = target().kubectl();
      const manifest = (v: string) => JSON.stringify(configMap(ns, 'applied', { v }));
      assert.equal(await kubectl.ok(['apply', '-f', '-'], manifest('1')), 'configmap/applied created\n');
      assert.equal(await kubectl.ok(['apply', '-f', '-'], manifest('2')), 'configmap/applied configured\n');
      assert.equal(await kubectl.ok(['apply', '--server-side', '-f', '-'], manifest('3')), 'configmap/applied serverside-applied\n');
      assert.deepEqual((await kubectl.json<Obj>(['get', 'configmap', 'applied', '-n', ns])).data, { v: '3' });
    });

    void it('get -w prints the listed rows, then a row per later change', async () => {
      const kubectl = target().kubectl();
      const watch = startKubectl({ kubeconfig: target().kubeconfig, cacheDir: `${target().dir}/kube-cache-watch`, timeoutMs: 30_000 }, ['get', 'configmaps', '-n', ns, '-w', '-o', 'name']);
      try {
        await watch.waitForOutput(/^configmap\/c$/m);
        await kubectl.ok(['create', 'configmap', 'watched', '-n', ns, '--from-literal=k=v']);
        await watch.waitForOutput(/^configmap\/watched$/m);
        await kubectl.ok(['delete', 'configmap', 'watched', '-n', ns]);
        await watch.waitForOutput(/^configmap\/watched$[^]*^configmap\/watched$/m);
      } finally {
        const result = await watch.stop();
        assert.doesNotMatch(result.stderr, /error/i, result.stderr);
      }
    });

    void it('delete removes objects; get and delete of a missing one are NotFound; create of an existing one is AlreadyExists', async () => {
      const kubectl = target().kubectl();
      assert.equal(await kubectl.ok(['delete', 'configmap', 'b', '-n', ns]), 'configmap "b" deleted\n');
      const gone = await kubectl.run(['get', 'configmap', 'b', '-n', ns]);
      assert.equal(gone.code, 1);
      assert.equal(gone.stderr, 'Error from server (NotFound): configmaps "b" not found\n');
      const again = await kubectl.run(['delete', 'configmap', 'b', '-n', ns]);
      assert.equal(again.stderr, 'Error from server (NotFound): configmaps "b" not found\n');
      const dup = await kubectl.run(['create', 'configmap', 'c', '-n', ns]);
      assert.equal(dup.code, 1);
      assert.equal(dup.stderr, 'error: failed to create configmap: configmaps "c" already exists\n');
      assert.equal(await kubectl.ok(['delete', 'configmaps', '--all', '-n', ns, '-o', 'name']).then((s) => s.split('\n').filter(Boolean).length >= 2, () => false), true);
      const none = await kubectl.run(['get', 'configmaps', '-n', ns, '-l', 'tier']);
      assert.equal(none.stderr, `No resources found in ${ns} namespace.\n`);
    });
  });
}

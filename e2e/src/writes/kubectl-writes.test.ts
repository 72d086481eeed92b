/**
 * kubectl's write paths against a real kapi-apiserver: client-side apply (strategic merge +
 * last-applied), server-side apply with a conflicting second manager and --force-conflicts,
 * diff, the three patch types, label/annotate, server dry-run, and field validation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { configMap, writeYamlFile } from '../harness/fixtures.js';
import type { Kubectl } from '../harness/kubectl.js';

const ns = 'e2e-writes';

interface ManagedEntry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, unknown>;
}
interface Obj {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string>; managedFields?: ManagedEntry[] };
  data?: Record<string, string>;
  secrets?: { name: string }[];
}

void describe('kubectl writes', () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  const get = (kind: string, name: string) => kubectl.json<Obj>(['get', kind, name, '-n', ns, '--show-managed-fields']);

  before(async () => {
    cluster = await startCluster();
    kubectl = cluster.kubectl();
    await kubectl.ok(['create', 'namespace', ns]);
  });
  after(async () => {
    await cluster?.stop();
  });

  void it('client-side apply: created, unchanged, configured, with the last-applied annotation and a removed key', async () => {
    const file = writeYamlFile(cluster.dir, 'csa.yaml', configMap(ns, 'csa', { a: '1', b: '2' }, { app: 'demo' }));
    assert.equal(await kubectl.ok(['apply', '-f', file]), 'configmap/csa created\n');
    assert.equal(await kubectl.ok(['apply', '-f', file]), 'configmap/csa unchanged\n');
    const before = await get('configmap', 'csa');
    writeYamlFile(cluster.dir, 'csa.yaml', configMap(ns, 'csa', { a: '10', c: '3' }, { app: 'demo' }));
    assert.equal(await kubectl.ok(['apply', '-f', file]), 'configmap/csa configured\n');
    const after = await get('configmap', 'csa');
    assert.deepEqual(after.data, { a: '10', c: '3' });
    assert.notEqual(after.metadata.resourceVersion, before.metadata.resourceVersion);
    const lastApplied = JSON.parse(after.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']!) as Obj;
    assert.deepEqual(lastApplied.data, { a: '10', c: '3' });
    const managers = after.metadata.managedFields!.map((e) => `${e.manager}/${e.operation}`);
    assert.deepEqual(managers, ['kubectl-client-side-apply/Update']);
    assert.equal(await kubectl.ok(['apply', '-f', file]), 'configmap/csa unchanged\n');
  });

  void it('client-side apply merges keyed lists of a ServiceAccount with a strategic merge patch', async () => {
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: ns }, secrets: [{ name: 's1' }] };
    const file = writeYamlFile(cluster.dir, 'sa.yaml', sa);
    assert.equal(await kubectl.ok(['apply', '-f', file]), 'serviceaccount/robot created\n');
    // Someone else adds a secret; a re-apply of the same file keeps it (merge key "name").
    await kubectl.ok(['patch', 'serviceaccount', 'robot', '-n', ns, '-p', '{"secrets":[{"name":"s2"}]}']);
    writeYamlFile(cluster.dir, 'sa.yaml', { ...sa, secrets: [{ name: 's1' }, { name: 's3' }] });
    assert.equal(await kubectl.ok(['apply', '-f', file]), 'serviceaccount/robot configured\n');
    const got = await get('serviceaccount', 'robot');
    assert.deepEqual(got.secrets!.map((s) => s.name).sort(), ['s1', 's2', 's3']);
  });

  void it('server-side apply: create, update, a second manager conflicts, --force-conflicts takes the field', async () => {
    const file = writeYamlFile(cluster.dir, 'ssa.yaml', configMap(ns, 'ssa', { key: 'one' }));
    assert.equal(await kubectl.ok(['apply', '--server-side', '-f', file]), 'configmap/ssa serverside-applied\n');
    writeYamlFile(cluster.dir, 'ssa.yaml', configMap(ns, 'ssa', { key: 'two', extra: 'x' }));
    assert.equal(await kubectl.ok(['apply', '--server-side', '-f', file]), 'configmap/ssa serverside-applied\n');
    let got = await get('configmap', 'ssa');
    assert.deepEqual(got.data, { key: 'two', extra: 'x' });
    assert.deepEqual(got.metadata.managedFields!.map((e) => `${e.manager}/${e.operation}`), ['kubectl/Apply']);
    assert.deepEqual(got.metadata.managedFields![0]!.fieldsV1, { 'f:data': { 'f:extra': {}, 'f:key': {} } });

    const other = writeYamlFile(cluster.dir, 'ssa-other.yaml', configMap(ns, 'ssa', { key: 'three' }));
    const conflict = await kubectl.run(['apply', '--server-side', '--field-manager=other', '-f', other]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.data\.key/);
    assert.match(conflict.stderr, /--force-conflicts/);
    const forced = await kubectl.ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other]);
    assert.equal(forced, 'configmap/ssa serverside-applied\n');
    got = await get('configmap', 'ssa');
    assert.equal(got.data!['key'], 'three');
    const owners = Object.fromEntries(got.metadata.managedFields!.map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(owners['other'], { 'f:data': { 'f:key': {} } });
    assert.deepEqual(owners['kubectl'], { 'f:data': { 'f:extra': {} } });
  });

  void it('client-side to server-side apply migration: kubectl moves ownership, later applies prune what the file drops', async () => {
    const file = writeYamlFile(cluster.dir, 'mig.yaml', configMap(ns, 'mig', { a: '1', b: '2' }));
    assert.equal(await kubectl.ok(['apply', '-f', file]), 'configmap/mig created\n');
    assert.equal(await kubectl.ok(['apply', '--server-side', '-f', file]), 'configmap/mig serverside-applied\n');
    let got = await get('configmap', 'mig');
    const owners = Object.fromEntries(got.metadata.managedFields!.map((e) => [`${e.manager}/${e.operation}`, e.fieldsV1]));
    assert.deepEqual(owners['kubectl/Apply'], { 'f:data': { 'f:a': {}, 'f:b': {} } });
    assert.equal(owners['kubectl-client-side-apply/Update'], undefined);
    writeYamlFile(cluster.dir, 'mig.yaml', configMap(ns, 'mig', { a: '1' }));
    assert.equal(await kubectl.ok(['apply', '--server-side', '-f', file]), 'configmap/mig serverside-applied\n');
    got = await get('configmap', 'mig');
    assert.deepEqual(got.data, { a: '1' });
    const lastApplied = JSON.parse(got.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']!) as Obj;
    assert.deepEqual(lastApplied.data, { a: '1' });
  });

  void it('diff: exit 1 with a unified diff for a change, 0 without, and nothing is persisted', async () => {
    const file = writeYamlFile(cluster.dir, 'diff.yaml', configMap(ns, 'diff', { a: '1' }));
    await kubectl.ok(['apply', '-f', file]);
    const before = await get('configmap', 'diff');
    const same = await kubectl.run(['diff', '-f', file]);
    assert.equal(same.code, 0, same.stderr);
    writeYamlFile(cluster.dir, 'diff.yaml', configMap(ns, 'diff', { a: '2' }));
    const changed = await kubectl.run(['diff', '-f', file]);
    assert.equal(changed.code, 1, changed.stderr);
    assert.match(changed.stdout, /^-\s+a: "1"$/m);
    assert.match(changed.stdout, /^\+\s+a: "2"$/m);
    const serverSide = await kubectl.run(['diff', '--server-side', '-f', file]);
    assert.equal(serverSide.code, 1, serverSide.stderr);
    const newFile = writeYamlFile(cluster.dir, 'diff-new.yaml', configMap(ns, 'diff-new', { z: '1' }));
    const created = await kubectl.run(['diff', '-f', newFile]);
    assert.equal(created.code, 1, created.stderr);
    assert.match(created.stdout, /^\+\s+z: "1"$/m);
    const after = await get('configmap', 'diff');
    assert.deepEqual(after, before);
    assert.equal((await kubectl.run(['get', 'configmap', 'diff-new', '-n', ns])).code, 1);
  });

  void it('patch --type=strategic|merge|json, label and annotate', async () => {
    await kubectl.ok(['create', 'configmap', 'patched', '-n', ns, '--from-literal=a=1']);
    assert.equal(await kubectl.ok(['patch', 'configmap', 'patched', '-n', ns, '-p', '{"data":{"b":"2"}}']), 'configmap/patched patched\n');
    assert.equal(await kubectl.ok(['patch', 'configmap', 'patched', '-n', ns, '--type=merge', '-p', '{"data":{"a":null}}']), 'configmap/patched patched\n');
    assert.equal(await kubectl.ok(['patch', 'configmap', 'patched', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/data/c","value":"3"}]']), 'configmap/patched patched\n');
    assert.equal(await kubectl.ok(['patch', 'configmap', 'patched', '-n', ns, '--type=merge', '-p', '{}']), 'configmap/patched patched (no change)\n');
    const failed = await kubectl.run(['patch', 'configmap', 'patched', '-n', ns, '--type=json', '-p', '[{"op":"test","path":"/data/c","value":"nope"}]']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /The request is invalid: the server rejected our request due to an error in our request/);
    assert.equal(await kubectl.ok(['label', 'configmap', 'patched', '-n', ns, 'tier=web']), 'configmap/patched labeled\n');
    assert.equal(await kubectl.ok(['annotate', 'configmap', 'patched', '-n', ns, 'note=hello']), 'configmap/patched annotated\n');
    assert.equal(await kubectl.ok(['label', 'configmap', 'patched', '-n', ns, 'tier-']), 'configmap/patched unlabeled\n');
    const got = await get('configmap', 'patched');
    assert.deepEqual(got.data, { b: '2', c: '3' });
    assert.equal(got.metadata.labels, undefined);
    assert.equal(got.metadata.annotations!['note'], 'hello');
    const managers = got.metadata.managedFields!.map((e) => e.manager).sort();
    assert.deepEqual(managers, ['kubectl-annotate', 'kubectl-create', 'kubectl-patch']);
    const missing = await kubectl.run(['patch', 'configmap', 'absent', '-n', ns, '-p', '{"data":{"x":"1"}}']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Error from server \(NotFound\): configmaps "absent" not found/);
  });

  void it('the status subresource: get and patch --subresource=status change only status', async () => {
    await kubectl.ok(['create', 'namespace', 'status-demo']);
    const status = await kubectl.json<{ status: { phase: string } }>(['get', 'namespace', 'status-demo', '--subresource=status']);
    assert.equal(status.status.phase, 'Active');
    const out = await kubectl.ok([
      'patch', 'namespace', 'status-demo', '--subresource=status', '--type=merge',
      '-p', '{"spec":{"finalizers":[]},"status":{"conditions":[{"type":"Demo","status":"True"}]}}',
    ]);
    assert.equal(out, 'namespace/status-demo patched\n');
    const got = await kubectl.json<{ spec: { finalizers: string[] }; status: { conditions: { type: string }[] }; metadata: { managedFields: { manager: string; subresource?: string }[] } }>([
      'get', 'namespace', 'status-demo', '--show-managed-fields',
    ]);
    assert.deepEqual(got.spec.finalizers, ['kubernetes']);
    assert.deepEqual(got.status.conditions.map((c) => c.type), ['Demo']);
    assert.ok(got.metadata.managedFields.some((e) => e.manager === 'kubectl-patch' && e.subresource === 'status'));
  });

  void it('create --dry-run=server returns the object and persists nothing', async () => {
    const out = await kubectl.ok(['create', 'configmap', 'dry', '-n', ns, '--from-literal=a=1', '--dry-run=server', '-o', 'json']);
    const obj = JSON.parse(out) as Obj & { metadata: { uid?: string } };
    assert.equal(obj.metadata.name, 'dry');
    assert.ok(obj.metadata.uid);
    assert.equal((await kubectl.run(['get', 'configmap', 'dry', '-n', ns])).code, 1);
    const file = writeYamlFile(cluster.dir, 'dry.yaml', configMap(ns, 'dry-apply', { a: '1' }));
    assert.equal(await kubectl.ok(['apply', '-f', file, '--dry-run=server']), 'configmap/dry-apply created (server dry run)\n');
    assert.equal((await kubectl.run(['get', 'configmap', 'dry-apply', '-n', ns])).code, 1);
  });

  void it('--validate=strict rejects an unknown field; --validate=warn prints the warning and applies', async () => {
    const file = writeYamlFile(cluster.dir, 'unknown.yaml', { ...configMap(ns, 'unknown-field', { a: '1' }), spec: { bogus: true } });
    const strict = await kubectl.run(['apply', '--validate=strict', '-f', file]);
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /strict decoding error: unknown field "spec"/);
    assert.equal((await kubectl.run(['get', 'configmap', 'unknown-field', '-n', ns])).code, 1);
    const warn = await kubectl.run(['apply', '--validate=warn', '-f', file]);
    assert.equal(warn.code, 0, warn.stderr);
    assert.match(warn.stderr, /Warning: unknown field "spec"/);
    assert.equal(warn.stdout, 'configmap/unknown-field created\n');
    // Updates (a strategic merge patch) warn the same way.
    writeYamlFile(cluster.dir, 'unknown.yaml', { ...configMap(ns, 'unknown-field', { a: '2' }), spec: { bogus: true } });
    const update = await kubectl.run(['apply', '--validate=warn', '-f', file]);
    assert.equal(update.code, 0, update.stderr);
    assert.match(update.stderr, /Warning: unknown field "spec"/);
    const strictUpdate = await kubectl.run(['apply', '--validate=strict', '-f', file]);
    assert.equal(strictUpdate.code, 1);
    assert.match(strictUpdate.stderr, /strict decoding error: unknown field "spec"/);
  });
});

/**
 * The generated catalogue is whole (every served kind has a schema, a protobuf message and
 * wire facts) and is what `make schemas` writes today: the generator is run again into a
 * temporary folder (offline, from the module cache) and every file must come out byte for
 * byte the same — so the committed output is neither hand-edited nor stale, and the
 * generator is deterministic.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogKinds, protobufDescriptor, schemaDefinitions, servedGroups, wireMessage } from './index.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const generated = join(repo, 'packages/catalog/generated');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** Whether a protobuf full name is declared in the descriptor. */
function inDescriptor(name: string): boolean {
  let node: unknown = protobufDescriptor();
  for (const part of name.split('.')) {
    node = (node as { nested?: Record<string, unknown> }).nested?.[part];
    if (node === undefined) return false;
  }
  return true;
}

void describe('the generated catalogue', () => {
  void it('serves the core group first and every group of kube-apiserver 1.32', () => {
    const groups = servedGroups().map((g) => g.group);
    assert.equal(groups[0], '');
    for (const group of ['apps', 'batch', 'autoscaling', 'networking.k8s.io', 'rbac.authorization.k8s.io', 'storage.k8s.io', 'apiregistration.k8s.io']) {
      assert.ok(groups.includes(group), group);
    }
    const autoscaling = servedGroups().find((g) => g.group === 'autoscaling')!;
    assert.deepEqual(autoscaling.versions.map((v) => v.version), ['v2', 'v1']);
  });

  void it('gives every served kind, list and subresource kind a schema, a protobuf message and wire facts', () => {
    const kinds = new Map(catalogKinds().map((k) => [`${k.group}/${k.version}/${k.kind}`, k]));
    const definitions = schemaDefinitions();
    const problems: string[] = [];
    const check = (group: string, version: string, kind: string) => {
      const found = kinds.get(`${group}/${version}/${kind}`);
      if (found === undefined) return problems.push(`${group}/${version}/${kind}: not in kinds`);
      // Connect options (pods/exec, nodes/proxy, ...) are query parameters: kube publishes no schema.
      if (found.schema === undefined ? !kind.endsWith('Options') : definitions[found.schema] === undefined) problems.push(`${kind}: no schema`);
      if (!inDescriptor(found.protobuf)) problems.push(`${found.protobuf}: not in the descriptor`);
      if (wireMessage(found.protobuf) === undefined) problems.push(`${found.protobuf}: no wire facts`);
      return 0;
    };
    for (const g of servedGroups()) {
      for (const v of g.versions) {
        for (const r of v.resources) {
          check(g.group, v.version, r.kind);
          if (r.listKind !== undefined) check(g.group, v.version, r.listKind);
          for (const sub of r.subresources ?? []) check(sub.kind.group, sub.kind.version, sub.kind.kind);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  void it('records kube\'s storage prefixes and versions', () => {
    const resource = (group: string, name: string) =>
      servedGroups().find((g) => g.group === group)!.versions[0]!.resources.find((r) => r.resource === name)!;
    assert.equal(resource('', 'nodes').storage.prefix, 'minions');
    assert.equal(resource('', 'services').storage.prefix, 'services/specs');
    assert.equal(resource('', 'endpoints').storage.prefix, 'services/endpoints');
    assert.equal(resource('', 'replicationcontrollers').storage.prefix, 'controllers');
    assert.equal(resource('networking.k8s.io', 'ingresses').storage.prefix, 'ingress');
    assert.equal(resource('apiregistration.k8s.io', 'apiservices').storage.prefix, 'apiregistration.k8s.io/apiservices');
    assert.deepEqual(resource('events.k8s.io', 'events').storage, { prefix: 'events', group: '', version: 'v1' });
    assert.deepEqual(resource('autoscaling', 'horizontalpodautoscalers').storage, { prefix: 'horizontalpodautoscalers', group: 'autoscaling', version: 'v2' });
    assert.equal(resource('apps', 'deployments').strategy.generation, 'bump');
    assert.equal(resource('', 'configmaps').strategy.generation, undefined);
  });

  void it('is what `make schemas` generates (run again, offline, into a temporary folder)', (t) => {
    const go = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (go.status !== 0) return t.skip('go is not installed');
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off' };
    const genDir = join(repo, 'scripts/catalog-gen');
    const kube = spawnSync('go', ['mod', 'download', '-json', 'k8s.io/kubernetes@v1.32.13'], { cwd: genDir, env, encoding: 'utf8' });
    if (kube.status !== 0) return t.skip('the Kubernetes 1.32 modules are not in the Go module cache (`make schemas` downloads them)');
    const out = mkdtempSync(join(tmpdir(), 'kapi-catalog-'));
    try {
      copyFileSync(join(generated, 'discovery.json'), join(out, 'discovery.json'));
      // Written by `make bootstrap-policy`, not `make schemas`.
      copyFileSync(join(generated, 'bootstrap-policy.json'), join(out, 'bootstrap-policy.json'));
      copyFileSync(join(generated, 'flowcontrol-bootstrap.json'), join(out, 'flowcontrol-bootstrap.json'));
      // Written by `make feature-gates` (checked below).
      copyFileSync(join(generated, 'feature-gates.json'), join(out, 'feature-gates.json'));
      const kubeDir = (JSON.parse(kube.stdout) as { Dir: string }).Dir;
      const run = spawnSync('go', ['run', '.', '-out', out, '-kube', kubeDir], { cwd: genDir, env, encoding: 'utf8' });
      if (run.status !== 0 && /cannot find module|module lookup disabled/.test(run.stderr)) return t.skip(`the generator's modules are not cached: ${run.stderr}`);
      assert.equal(run.status, 0, run.stderr);
      const pbjs = spawnSync('bash', [join(repo, 'scripts/generate-proto.sh'), out], { cwd: repo, encoding: 'utf8' });
      assert.equal(pbjs.status, 0, pbjs.stderr);
      const expected = files(generated).map((f) => relative(generated, f)).sort();
      assert.deepEqual(files(out).map((f) => relative(out, f)).sort(), expected);
      const stale = expected.filter((f) => !readFileSync(join(out, f)).equals(readFileSync(join(generated, f))));
      assert.deepEqual(stale, [], 'packages/catalog/generated differs from a fresh `make schemas`');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    return undefined;
  });

  void it('holds the feature gate table `make feature-gates` generates', (t) => {
    const go = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (go.status !== 0) return t.skip('go is not installed');
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off' };
    const run = spawnSync('go', ['run', '.'], { cwd: join(repo, 'scripts/feature-gates-gen'), env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    if (run.status !== 0 && /cannot find module|module lookup disabled|missing go.sum/.test(run.stderr)) return t.skip(`the generator's modules are not cached: ${run.stderr}`);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, readFileSync(join(generated, 'feature-gates.json'), 'utf8'), 'packages/catalog/generated/feature-gates.json differs from a fresh `make feature-gates`');
    return undefined;
  });
});

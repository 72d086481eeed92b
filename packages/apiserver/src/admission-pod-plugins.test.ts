/**
 * kube's default pod admission plugins as kapi runs them, against a real etcd, with the
 * outcomes and messages kube-apiserver 1.32 gives for the same requests:
 * TaintNodesByCondition, Priority (with the system PriorityClasses), DefaultTolerationSeconds
 * and RuntimeClass, and the flags that turn them off or tune them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './testing/fixture.js';

type Json = Record<string, unknown>;
const pod = (name: string, spec: Json = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });
const specOf = (body: Json) => body['spec'] as Json;
const DEFAULT_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

void describe('pod admission plugins (kube defaults)', () => {
  let t: TestServer;
  const createPod = (name: string, spec: Json = {}) => t.request('POST', '/api/v1/namespaces/default/pods', { body: pod(name, spec) });
  before(async () => {
    t = await startTestServer();
    // The default ServiceAccount (the ServiceAccount plugin needs it) comes from a controller.
    for (let i = 0; i < 200 && (await t.request('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(async () => {
    await t.close();
  });

  void it('DefaultTolerationSeconds adds the not-ready and unreachable tolerations unless the pod has them', async () => {
    const plain = await createPod('tol-plain');
    assert.equal(plain.status, 201, plain.text);
    assert.deepEqual(specOf(plain.json)['tolerations'], DEFAULT_TOLERATIONS);
    const everything = await createPod('tol-all', { tolerations: [{ operator: 'Exists' }] });
    assert.deepEqual(specOf(everything.json)['tolerations'], [{ operator: 'Exists' }]);
    const noSchedule = await createPod('tol-noschedule', { tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }] });
    assert.deepEqual(specOf(noSchedule.json)['tolerations'], [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }, ...DEFAULT_TOLERATIONS]);
  });

  void it('TaintNodesByCondition taints a new node not-ready', async () => {
    const created = await t.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { taints: [{ key: 'a', effect: 'NoExecute' }] } } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(specOf(created.json)['taints'], [{ key: 'a', effect: 'NoExecute' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
  });

  void it('Priority: system classes exist, a pod gets its class\'s priority and policy, kube\'s refusals', async () => {
    const classes = await t.request('GET', '/apis/scheduling.k8s.io/v1/priorityclasses');
    const items = (classes.json['items'] as Json[]).map((pc) => [(pc['metadata'] as Json)['name'], pc['value'], pc['preemptionPolicy']]);
    assert.deepEqual(items, [['system-cluster-critical', 2000000000, 'PreemptLowerPriority'], ['system-node-critical', 2000001000, 'PreemptLowerPriority']]);

    const plain = await createPod('prio-plain');
    assert.equal(specOf(plain.json)['priority'], 0);
    assert.equal(specOf(plain.json)['preemptionPolicy'], 'PreemptLowerPriority');
    assert.equal(specOf(plain.json)['priorityClassName'], undefined);
    const critical = await createPod('prio-critical', { priorityClassName: 'system-node-critical' });
    assert.equal(critical.status, 201, critical.text);
    assert.equal(specOf(critical.json)['priority'], 2000001000);

    const missing = await createPod('prio-missing', { priorityClassName: 'nope' });
    assert.equal(missing.status, 403);
    assert.equal(missing.json['message'], 'pods "prio-missing" is forbidden: no PriorityClass with name nope was found');

    const def = await t.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'def1' }, value: 5, globalDefault: true, preemptionPolicy: 'Never' } });
    assert.equal(def.status, 201, def.text);
    const second = await t.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'def2' }, value: 6, globalDefault: true } });
    assert.equal(second.status, 403);
    assert.equal(second.json['message'], 'priorityclasses.scheduling.k8s.io "def2" is forbidden: PriorityClass def1 is already marked as default. Only one default can exist');
    // The default class is read from an informer: wait until it has it.
    let defaulted: Json = {};
    for (let i = 0; i < 100; i++) {
      defaulted = (await createPod(`prio-default-${i}`)).json;
      if (specOf(defaulted)['priorityClassName'] === 'def1') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual([specOf(defaulted)['priorityClassName'], specOf(defaulted)['priority'], specOf(defaulted)['preemptionPolicy']], ['def1', 5, 'Never']);
    const direct = await createPod('prio-direct', { priority: 7 });
    assert.equal(direct.status, 403);
    assert.equal(direct.json['message'], 'pods "prio-direct" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 5 from the given PriorityClass name');
    assert.equal((await createPod('prio-same', { priority: 5 })).status, 201);
    const policy = await createPod('prio-policy', { preemptionPolicy: 'PreemptLowerPriority' });
    assert.equal(policy.status, 403);
    assert.equal(policy.json['message'], 'pods "prio-policy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name');
    assert.equal((await t.request('DELETE', '/apis/scheduling.k8s.io/v1/priorityclasses/def1')).status, 200);
    // An update keeps the priority the create set.
    const current = (await t.request('GET', '/api/v1/namespaces/default/pods/prio-critical')).json;
    const updated = await t.request('PUT', '/api/v1/namespaces/default/pods/prio-critical', { body: { ...current, metadata: { ...(current['metadata'] as Json), labels: { a: 'b' } }, spec: { ...specOf(current), priority: undefined, preemptionPolicy: undefined } } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(specOf(updated.json)['priority'], 2000001000);
  });

  void it('PriorityClass validation: system- names are reserved, values capped, value and preemptionPolicy immutable (kube\'s 422s)', async () => {
    const create = (body: Json) => t.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', ...body } });
    const cases: [Json, string][] = [
      [{ metadata: { name: 'system-foo' }, value: 10 }, 'PriorityClass.scheduling.k8s.io "system-foo" is invalid: metadata.name: Forbidden: priority class names with \'system-\' prefix are reserved for system use only. error: system-foo is not a known system priority class'],
      [{ metadata: { name: 'big' }, value: 1000000001 }, 'PriorityClass.scheduling.k8s.io "big" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000'],
      [{ metadata: { name: 'pp' }, value: 1, preemptionPolicy: 'x' }, 'PriorityClass.scheduling.k8s.io "pp" is invalid: preemptionPolicy: Unsupported value: "x": supported values: "PreemptLowerPriority", "Never"'],
    ];
    for (const [body, message] of cases) {
      const refused = await create(body);
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.json['message'], message);
    }
    assert.equal((await create({ metadata: { name: 'upd' }, value: 1 })).status, 201);
    const patched = await t.request('PATCH', '/apis/scheduling.k8s.io/v1/priorityclasses/upd', { body: { value: 2, preemptionPolicy: 'Never' }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 422, patched.text);
    assert.equal(patched.json['message'], 'PriorityClass.scheduling.k8s.io "upd" is invalid: [value: Forbidden: may not be changed in an update., preemptionPolicy: Invalid value: "Never": field is immutable]');
  });

  void it('RuntimeClass: overhead, node selector and tolerations from the class, kube\'s refusals', async () => {
    const rc = await t.request('POST', '/apis/node.k8s.io/v1/runtimeclasses', {
      body: {
        apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'kata' }, handler: 'kata',
        overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
        scheduling: { nodeSelector: { runtime: 'kata' }, tolerations: [{ key: 'kata', operator: 'Exists', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', operator: 'Exists' }] },
      },
    });
    assert.equal(rc.status, 201, rc.text);
    const merged = await createPod('rc1', { runtimeClassName: 'kata', nodeSelector: { a: 'b' }, tolerations: [{ key: 'kata', operator: 'Equal', value: 'x', effect: 'NoSchedule' }] });
    assert.equal(merged.status, 201, merged.text);
    const spec = specOf(merged.json);
    assert.deepEqual(spec['overhead'], { cpu: '250m', memory: '120Mi' });
    assert.deepEqual(spec['nodeSelector'], { a: 'b', runtime: 'kata' });
    assert.deepEqual(spec['tolerations'], [
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'kata', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists' },
    ]);
    const sameOverhead = await createPod('rc5', { runtimeClassName: 'kata', overhead: { cpu: '0.25', memory: '120Mi' } });
    assert.equal(sameOverhead.status, 201, sameOverhead.text);
    assert.deepEqual(specOf(sameOverhead.json)['overhead'], { cpu: '250m', memory: '120Mi' });
    const refusals: [string, Json, string][] = [
      ['rc2', { runtimeClassName: 'nope' }, 'pods "rc2" is forbidden: pod rejected: RuntimeClass "nope" not found'],
      ['rc3', { runtimeClassName: 'kata', nodeSelector: { runtime: 'runc' } }, 'pods "rc3" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc'],
      ['rc4', { runtimeClassName: 'kata', overhead: { cpu: '1' } }, 'pods "rc4" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead'],
      ['rc6', { overhead: { cpu: '1' } }, 'pods "rc6" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
    ];
    for (const [name, podSpec, message] of refusals) {
      const refused = await createPod(name, podSpec);
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.json['message'], message);
    }
    const generated = await t.request('POST', '/api/v1/namespaces/default/pods', { body: { ...pod(''), metadata: { generateName: 'gen-' }, spec: { ...pod('').spec, runtimeClassName: 'nope' } } });
    assert.equal(generated.json['message'], 'pods "gen-" is forbidden: pod rejected: RuntimeClass "nope" not found');
  });
});

void describe('pod admission plugins tuned or turned off', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      admissionPlugins: ['NamespaceLifecycle', 'DefaultTolerationSeconds'],
      defaultTolerationSeconds: { notReadySeconds: 60, unreachableSeconds: 0 },
    });
  });
  after(async () => {
    await t.close();
  });

  void it('--default-*-toleration-seconds set the seconds; without Priority, TaintNodesByCondition and RuntimeClass nothing else changes', async () => {
    const created = await t.request('POST', '/api/v1/namespaces/default/pods', { body: pod('p', { runtimeClassName: 'absent' }) });
    assert.equal(created.status, 201, created.text);
    const spec = specOf(created.json);
    assert.deepEqual(spec['tolerations'], [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 },
    ]);
    assert.equal(spec['priority'], undefined);
    const node = await t.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
    assert.equal(node.status, 201, node.text);
    assert.equal(specOf(node.json)['taints'], undefined);
  });
});

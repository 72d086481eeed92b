/**
 * client-go's typed clientset with its default content type (protobuf bodies, protobuf
 * preferred in answers) against kapi: CRUD, list paging, watch and delete options for
 * Namespaces and ConfigMaps (and Secret, Lease, Event, ServiceAccount round trips); a typed
 * informer kept in sync under churn; and golden bytes: protobuf produced by the Go types in
 * k8s.io/api decodes in kapi to the Go types' own JSON, and kapi's bytes decode in Go.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeList, decodeObject, encodeList, encodeObjectRaw, envelopeObject } from '@kapi/machinery';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { churnConfigMaps, seedConfigMaps } from '../harness/churn.js';
import { LineProcess } from '../harness/go-program.js';
import { ensureNamespace, RestClient } from '../harness/rest.js';
import { buildKapiTyped } from './go-typed.js';

const PB = 'application/vnd.kubernetes.protobuf';
let cluster: TestCluster;
let binary: string;
let client: RestClient;
const processes: LineProcess[] = [];

before(async () => {
  const [built, started] = await Promise.all([buildKapiTyped(), startCluster({ server: { extraArgs: ['--runtime-config=coordination.k8s.io/v1beta1=true,events.k8s.io/v1beta1=true'] } })]);
  binary = built.binary;
  cluster = started;
  process.stderr.write(`# go build ./cmd/kapi-typed took ${built.seconds.toFixed(1)} s\n`);
  client = new RestClient(cluster.servers[0]!.url, { maxSockets: 16 });
});
after(async () => {
  for (const p of processes) await p.kill();
  client?.close();
  await cluster?.stop();
});

function start(args: string[]): LineProcess {
  const p = new LineProcess(binary, args);
  processes.push(p);
  return p;
}

interface Wire {
  requests: Record<string, number>;
  responses: Record<string, number>;
}

void describe('client-go typed clientset (protobuf)', () => {
  void it('creates, gets, updates, lists, watches and deletes Namespaces and ConfigMaps', async () => {
    const crud = start(['crud', '--kubeconfig', cluster.kubeconfig(), '--namespace', 'e2e-typed']);
    const done = await crud.next('done', 120_000);
    const steps: Record<string, unknown>[] = [];
    for (;;) {
      try {
        steps.push(await crud.next('step', 1));
      } catch {
        break;
      }
    }
    assert.deepEqual(steps.filter((s) => s.ok !== true), [], crud.stderr());
    assert.equal(steps.length, done.steps);
    assert.ok(steps.length >= 13);
    assert.equal(done.failed, 0);
    const wire = done.wire as Wire;
    // Every body went out as protobuf and every answer (objects, lists, Status errors, watch) came back as protobuf.
    for (const method of ['POST', 'PUT', 'DELETE']) assert.ok((wire.requests[`${method} ${PB}`] ?? 0) > 0, `${method}: ${JSON.stringify(wire.requests)}`);
    assert.deepEqual(Object.keys(wire.requests).filter((k) => !k.endsWith(PB)), []);
    assert.deepEqual(Object.keys(wire.responses).sort(), [PB, `${PB};stream=watch`]);
  });

  void it('keeps a typed informer in sync through churn', async () => {
    const ns = 'e2e-typed-informer';
    await ensureNamespace(client, ns);
    const seeded = await seedConfigMaps([client], ns, 'seed', 200);
    const informer = start(['informer', '--kubeconfig', cluster.kubeconfig(), '--namespace', ns]);
    const synced = await informer.next('synced', 60_000);
    assert.equal(synced.count, 200);
    const churn = await churnConfigMaps({ clients: [client], namespace: ns, existing: seeded, prefix: 'churn', writers: 4, durationMs: 6_000, pauseMs: 2 });
    assert.deepEqual(churn.errors, []);
    assert.ok(churn.writes.length > 100, `only ${churn.writes.length} writes`);
    informer.send('check');
    const result = await informer.next('result', 60_000);
    assert.deepEqual(result.diff, [], informer.stderr().slice(-4000));
    assert.equal(result.match, true);
    const wire = result.wire as Wire;
    assert.ok((wire.responses[`${PB};stream=watch`] ?? 0) > 0, JSON.stringify(wire));
    assert.ok((wire.responses[PB] ?? 0) > 0, JSON.stringify(wire));
  });
});

const meta = {
  name: 'golden',
  namespace: 'ns',
  uid: '5f0c2a8e-8a7d-4d0e-9a57-0d2f2b4f1e11',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2024-02-29T12:34:56Z',
  labels: { app: 'golden', 'example.com/tier': 'web' },
  annotations: { note: 'ünïcödé' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u-1', controller: true, blockOwnerDeletion: true }],
  finalizers: ['example.com/f'],
  managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2024-02-29T12:34:56Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }],
};

/** Sample objects in kube's canonical JSON for every built-in kind (and the meta kinds kapi encodes). */
const samples: Record<string, unknown>[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { ...meta, namespace: undefined }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active', conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'ResourcesDiscovered', message: 'ok' }] } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: '1', empty: '' }, binaryData: { bin: 'AAEC/v8=' }, immutable: true },
  // Go writes a zero creationTimestamp as null (kapi's protobuf decoding does too).
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'minimal', creationTimestamp: null } },
  { apiVersion: 'v1', kind: 'Secret', metadata: meta, data: { key: '/wBrgA==' }, type: 'kubernetes.io/tls', immutable: false },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta, secrets: [{ name: 's' }, { kind: 'Secret', namespace: 'ns', name: 't', uid: 'u', apiVersion: 'v1', resourceVersion: '1', fieldPath: 'x' }], imagePullSecrets: [{ name: 'pull' }], automountServiceAccountToken: false },
  {
    apiVersion: 'v1', kind: 'Event', metadata: meta,
    involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
    reason: 'Pulled', message: 'pulled', source: { component: 'kubelet', host: 'n1' }, firstTimestamp: '2024-01-01T00:00:00Z', lastTimestamp: '2024-01-01T00:01:00Z',
    count: 3, type: 'Warning', eventTime: '2024-01-01T00:00:00.123456Z', series: { count: 2, lastObservedTime: '2024-01-01T00:02:00.000007Z' }, action: 'Pull',
    related: { kind: 'Node', name: 'n1' }, reportingComponent: 'kubelet', reportingInstance: 'n1',
  },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta, spec: { holderIdentity: 'n1', leaseDurationSeconds: 15, acquireTime: '2024-01-01T00:00:00.000000Z', renewTime: '2024-01-01T00:00:10.654321Z', leaseTransitions: 4, strategy: 'OldestEmulationVersion', preferredHolder: 'n2' } },
  { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'Lease', metadata: meta, spec: { holderIdentity: 'n1', leaseDurationSeconds: 15, acquireTime: '2024-01-01T00:00:00.000000Z', renewTime: '2024-01-01T00:00:10.654321Z', leaseTransitions: 4, strategy: 'OldestEmulationVersion', preferredHolder: 'n2' } },
  ...['v1', 'v1beta1'].map((version) => ({
    apiVersion: `events.k8s.io/${version}`, kind: 'Event', metadata: meta,
    eventTime: '2024-01-01T00:00:00.123456Z', series: { count: 2, lastObservedTime: '2024-01-01T00:02:00.000007Z' }, reportingController: 'example.com/c', reportingInstance: 'c-1',
    action: 'Pull', reason: 'Pulled', regarding: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
    related: { kind: 'Node', name: 'n1' }, note: 'pulled', type: 'Warning', deprecatedSource: { component: 'kubelet', host: 'n1' },
    deprecatedFirstTimestamp: '2024-01-01T00:00:00Z', deprecatedLastTimestamp: '2024-01-01T00:01:00Z', deprecatedCount: 3,
  })),
  { apiVersion: 'v1', kind: 'Status', metadata: { resourceVersion: '9' }, status: 'Failure', message: 'm', reason: 'Invalid', details: { name: 'x', group: 'g', kind: 'k', uid: 'u', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'data' }], retryAfterSeconds: 2 }, code: 422 },
  { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: 'u', resourceVersion: '5' }, orphanDependents: false, propagationPolicy: 'Foreground', dryRun: ['All'] },
];

const canonical = (v: unknown) => JSON.parse(JSON.stringify(v)) as Record<string, unknown>;

void describe('protobuf bytes of the Go types (k8s.io/api)', () => {
  let golden: LineProcess;

  before(() => {
    golden = start(['golden']);
  });

  const convert = async (request: Record<string, unknown>): Promise<{ protobuf: Buffer; json: Record<string, unknown> }> => {
    golden.send(JSON.stringify(request));
    // Requests are answered in order, one `converted` line each.
    const line = await golden.next('converted', 30_000);
    assert.equal(line.id, request.id);
    if (typeof line.error === 'string') throw new Error(`Go: ${line.error}`);
    return { protobuf: Buffer.from(String(line.protobuf), 'base64'), json: line.json as Record<string, unknown> };
  };

  for (const [i, sample] of samples.entries()) {
    const obj = canonical(sample);
    const name = `${String(obj.apiVersion)} ${String(obj.kind)} #${i}`;
    void it(`${name}: Go's bytes decode in kapi to Go's JSON, and kapi's bytes decode in Go`, async () => {
      const go = await convert({ id: `encode-${i}`, op: 'encode', object: obj });
      // The sample is canonical: Go's JSON of it is the sample itself.
      assert.deepEqual(go.json, obj);
      const decodeAs = obj.kind === 'DeleteOptions' ? { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' } : { apiVersion: String(obj.apiVersion), kind: String(obj.kind) };
      assert.deepEqual(decodeObject(go.protobuf, decodeAs).object, go.json);

      const typed = obj.kind === 'DeleteOptions' ? { ...obj, apiVersion: 'meta.k8s.io/v1' } : obj;
      const kapiBytes = envelopeObject(obj, encodeObjectRaw(typed));
      const back = await convert({ id: `decode-${i}`, op: 'decode', protobuf: kapiBytes.toString('base64') });
      assert.deepEqual(back.json, obj);
    });
  }

  void it('a ConfigMapList: Go\'s list bytes decode in kapi and kapi\'s in Go', async () => {
    const items = [canonical(samples[1]), canonical(samples[2])];
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '77', continue: 'c', remainingItemCount: 3 }, items };
    const go = await convert({ id: 'encode-list', op: 'encode', object: list });
    const typedItems = (go.json.items as Record<string, unknown>[]).map((item) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...item }));
    assert.deepEqual(decodeList(go.protobuf), { ...go.json, items: typedItems });
    const kapiBytes = encodeList(list, (n) => encodeObjectRaw(items[n]!));
    const back = await convert({ id: 'decode-list', op: 'decode', protobuf: kapiBytes.toString('base64') });
    assert.deepEqual(back.json, { ...list, items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest) });
  });
});

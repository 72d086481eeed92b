/**
 * managedFields parity: the same sequence of creates, updates and applies goes through
 * Kubernetes' own field manager (Go, structured-merge-diff) and through kapi over HTTP; after
 * every step the FieldsV1 sets, managers and operations must be identical (times aside), the
 * merged objects must agree, and conflicts must fail with the same message.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { RestClient } from '../harness/rest.js';
import { buildFieldManager, replay, type FieldManagerStep, type ManagedEntry, type StepResult } from './go-field-manager.js';

const ns = 'parity';

function cm(metadata: Record<string, unknown>, data?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns, ...metadata }, ...(data !== undefined ? { data } : {}) };
}

function sa(metadata: Record<string, unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: ns, ...metadata }, ...fields };
}

const owner = (n: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${n}`, uid: `0000000${n}-0000-0000-0000-000000000000` });

const configMapSteps: FieldManagerStep[] = [
  { op: 'create', manager: 'creator', object: cm({ labels: { app: 'a' }, annotations: { team: 'x' } }, { a: '1', b: '2' }) },
  { op: 'update', manager: 'editor', object: cm({ labels: { app: 'a', tier: 'web' } }, { a: 'changed', b: '2', c: '3' }) },
  { op: 'apply', manager: 'ssa-1', object: cm({ labels: { app: 'a' } }, { a: 'changed', d: '4' }) },
  { op: 'apply', manager: 'ssa-2', object: cm({}, { d: '5' }) },
  { op: 'apply', manager: 'ssa-2', force: true, object: cm({}, { d: '5' }) },
  { op: 'apply', manager: 'ssa-1', object: cm({}, { a: 'changed' }) },
  { op: 'update', manager: 'editor', object: cm({ labels: { app: 'a', tier: 'web' } }, { a: 'changed', c: '3', d: '5' }) },
  { op: 'apply', manager: 'ssa-1', object: cm({ labels: { fresh: '1' }, ownerReferences: [owner(1)], finalizers: ['example.com/a'] }, { a: 'changed', e: '6' }) },
  { op: 'update', manager: 'editor', object: cm({ labels: { app: 'a', tier: 'web', fresh: '1' }, ownerReferences: [owner(1), owner(2)], finalizers: ['example.com/a', 'example.com/b'] }, { a: 'changed', c: '3', d: '5', e: '6' }) },
  { op: 'apply', manager: 'ssa-1', object: cm({ labels: { fresh: '1' }, ownerReferences: [owner(1)], finalizers: ['example.com/a'] }, { a: 'changed', e: '6' }) },
  { op: 'apply', manager: 'ssa-1', object: cm({ ownerReferences: [owner(1)] }, { e: '7' }) },
  { op: 'apply', manager: 'ssa-3', object: cm({ labels: { app: 'b' }, finalizers: ['example.com/b'] }, { c: '30', e: '70' }) },
];

const serviceAccountSteps: FieldManagerStep[] = [
  { op: 'apply', manager: 'ssa', object: sa({ labels: { a: '1' } }, { secrets: [{ name: 's1' }], imagePullSecrets: [{ name: 'p1' }], automountServiceAccountToken: true }) },
  { op: 'update', manager: 'editor', object: sa({ labels: { a: '1' } }, { secrets: [{ name: 's1' }, { name: 's2' }], imagePullSecrets: [{ name: 'p1' }, { name: 'p2' }], automountServiceAccountToken: true }) },
  { op: 'apply', manager: 'ssa', object: sa({ labels: { a: '1' } }, { secrets: [{ name: 's3' }], automountServiceAccountToken: true }) },
  { op: 'apply', manager: 'other', object: sa({}, { secrets: [{ name: 's2' }] }) },
  { op: 'apply', manager: 'other', object: sa({}, { automountServiceAccountToken: false }) },
  { op: 'apply', manager: 'ssa', object: sa({}, { secrets: [{ name: 's3' }] }) },
];

function sortedEntries(entries: ManagedEntry[] | undefined): ManagedEntry[] {
  return (entries ?? [])
    .map(({ time: _time, ...rest }) => rest)
    .sort((a, b) => `${a.operation}/${a.manager}/${a.subresource ?? ''}`.localeCompare(`${b.operation}/${b.manager}/${b.subresource ?? ''}`));
}

/** The parts of an object both sides decide (server bookkeeping aside). */
function content(obj: Record<string, unknown>): Record<string, unknown> {
  const meta = (obj['metadata'] ?? {}) as Record<string, unknown>;
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  const pick = ['labels', 'annotations', 'ownerReferences', 'finalizers'].filter((k) => meta[k] !== undefined);
  return { ...rest, metadata: Object.fromEntries(pick.map((k) => [k, meta[k]])) };
}

void describe('managedFields match Kubernetes field manager (structured-merge-diff) step by step', () => {
  let cluster: TestCluster;
  let rest: RestClient;
  let binary: string;

  before(async () => {
    // The steps name owners that do not exist: without this the garbage collector would delete the objects mid-sequence.
    [cluster, binary] = await Promise.all([startCluster({ server: { extraArgs: ['--enable-garbage-collector=false'] } }), buildFieldManager()]);
    rest = new RestClient(cluster.servers[0]!.url);
    const created = await rest.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await cluster?.stop();
  });

  async function runKapi(collection: string, name: string, steps: FieldManagerStep[]): Promise<StepResult[]> {
    const results: StepResult[] = [];
    for (const step of steps) {
      const manager = encodeURIComponent(step.manager);
      const res =
        step.op === 'create'
          ? await rest.request('POST', `${collection}?fieldManager=${manager}`, step.object)
          : step.op === 'update'
            ? await rest.request('PUT', `${collection}/${name}?fieldManager=${manager}`, step.object)
            : await rest.request('PATCH', `${collection}/${name}?fieldManager=${manager}${step.force ? '&force=true' : ''}`, step.object, 'application/apply-patch+yaml');
      const body = res.body as Record<string, unknown>;
      if (res.status >= 300) {
        results.push({ error: String(body['message']) });
        continue;
      }
      const meta = body['metadata'] as Record<string, unknown>;
      results.push({ managedFields: (meta['managedFields'] ?? []) as ManagedEntry[], object: body });
    }
    return results;
  }

  async function compare(gvk: { group: string; version: string; kind: string }, collection: string, name: string, steps: FieldManagerStep[]): Promise<void> {
    const [expected, actual] = await Promise.all([replay(binary, gvk, steps), runKapi(collection, name, steps)]);
    assert.equal(actual.length, expected.length);
    steps.forEach((step, i) => {
      const want = expected[i]!;
      const got = actual[i]!;
      const label = `step ${i} (${step.op} by ${step.manager})`;
      if ('error' in want) {
        assert.ok('error' in got, `${label}: kube failed with ${want.error}, kapi succeeded`);
        assert.equal(got.error, want.error, label);
        return;
      }
      assert.ok(!('error' in got), `${label}: kapi failed: ${'error' in got ? got.error : ''}`);
      assert.deepEqual(sortedEntries(got.managedFields), sortedEntries(want.managedFields), label);
      assert.deepEqual(content(got.object), content(want.object), label);
    });
  }

  void it('a ConfigMap: updates, shared and forced applies, pruning, owner references and finalizers', async () => {
    await compare({ group: '', version: 'v1', kind: 'ConfigMap' }, `/api/v1/namespaces/${ns}/configmaps`, 'cm', configMapSteps);
  });

  void it('a ServiceAccount: secrets keyed by name, atomic imagePullSecrets, a scalar changing owner', async () => {
    await compare({ group: '', version: 'v1', kind: 'ServiceAccount' }, `/api/v1/namespaces/${ns}/serviceaccounts`, 'sa', serviceAccountSteps);
  });
});

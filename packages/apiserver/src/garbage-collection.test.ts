import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEstablished, widgetCrd } from './crd-testing.js';
import { startTestServer, type TestServer, eventually } from './testing/fixture.js';
import { isWatchClient, openWatch } from './testing/watch-client.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

const FAST = { controllers: { leaderElection: { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 }, namespaceResyncMs: 100 } };
const CM = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;


void describe('garbage collection over HTTP (Background, Orphan, Foreground)', () => {
  let t: TestServer;
  const create = async (ns: string, name: string, owners: Obj[] = [], extra: Record<string, unknown> = {}, block = false): Promise<Obj> => {
    const ownerReferences = owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata['name'], uid: o.metadata['uid'], ...(block ? { blockOwnerDeletion: true } : {}) }));
    const res = await t.request('POST', CM(ns), { body: { metadata: { name, ...(ownerReferences.length > 0 ? { ownerReferences } : {}), ...extra } } });
    assert.equal(res.status, 201, res.text);
    return res.json as Obj;
  };
  const status = async (ns: string, name: string) => (await t.request('GET', `${CM(ns)}/${name}`)).status;
  const gone = (ns: string, name: string) => eventually(`${ns}/${name} to be gone`, async () => (await status(ns, name)) === 404);

  before(async () => {
    t = await startTestServer(FAST);
    for (const ns of ['gc', 'gc-other']) assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  });
  after(async () => t.close());

  void it('Background: a dependent chain three deep goes after its root', async () => {
    const a = await create('gc', 'a');
    const b = await create('gc', 'b', [a]);
    await create('gc', 'c', [b]);
    assert.equal((await t.request('DELETE', `${CM('gc')}/a`)).status, 200);
    await gone('gc', 'b');
    await gone('gc', 'c');
  });

  void it('Orphan: the owner goes, its dependents stay without the ownerReference', async () => {
    const o = await create('gc', 'o');
    const other = await create('gc', 'o2');
    await create('gc', 'd', [o, other]);
    const del = await t.request('DELETE', `${CM('gc')}/o?propagationPolicy=Orphan`);
    assert.deepEqual((del.json as Obj).metadata['finalizers'], ['orphan']);
    await gone('gc', 'o');
    const d = (await t.request('GET', `${CM('gc')}/d`)).json as Obj;
    assert.deepEqual((d.metadata['ownerReferences'] as Obj[]).map((r) => r['name']), ['o2']);
  });

  void it('Foreground: the owner stays until a blocking dependent with its own finalizer is gone', async () => {
    const f = await create('gc', 'f');
    await create('gc', 'g', [f], { finalizers: ['example.com/hold'] }, true);
    const del = await t.request('DELETE', `${CM('gc')}/f`, { body: { propagationPolicy: 'Foreground' } });
    assert.deepEqual((del.json as Obj).metadata['finalizers'], ['foregroundDeletion']);
    await eventually('the dependent to be deleted (pending its finalizer)', async () => {
      const g = (await t.request('GET', `${CM('gc')}/g`)).json as Obj;
      return g.metadata['deletionTimestamp'] !== undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await status('gc', 'f'), 200, 'the owner waits for its blocking dependent');
    const g = (await t.request('GET', `${CM('gc')}/g`)).json as Obj;
    assert.equal((await t.request('PUT', `${CM('gc')}/g`, { body: { ...g, metadata: { ...g.metadata, finalizers: [] } } })).status, 200);
    await gone('gc', 'f');
  });

  void it('an owner in another namespace counts as absent; an unknown kind is left alone', async () => {
    const owner = await create('gc-other', 'elsewhere');
    const cross = await create('gc', 'cross', [owner]);
    await gone('gc', 'cross');
    // kube's Warning event on the dependent.
    const events = await t.request('GET', '/api/v1/namespaces/gc/events?fieldSelector=reason%3DOwnerRefInvalidNamespace');
    const event = (events.json['items'] as Obj[]).find((e) => (e['involvedObject'] as Obj)['name'] === 'cross');
    assert.ok(event, events.text);
    assert.equal(event['type'], 'Warning');
    assert.equal((event['source'] as Obj)['component'], 'garbage-collector-controller');
    assert.equal(event['message'], `ownerRef [v1/ConfigMap, namespace: gc, name: elsewhere, uid: ${String(owner.metadata['uid'])}] does not exist in namespace "gc"`);
    assert.equal((event['involvedObject'] as Obj)['uid'], cross.metadata['uid']);
    assert.equal(await status('gc-other', 'elsewhere'), 200);
    await create('gc', 'widget-owned', [], { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'w-uid' }] });
    await create('gc', 'sentinel', [{ metadata: { name: 'never', uid: 'never-uid' } } as Obj]);
    await gone('gc', 'sentinel');
    assert.equal(await status('gc', 'widget-owned'), 200, 'after a pass that removed the sentinel');
  });

  void it('Foreground through a chain three deep: the leaf goes first, then the middle, then the root', async () => {
    const a = await create('gc', 'fa');
    const b = await create('gc', 'fb', [a], {}, true);
    const c = await create('gc', 'fc', [b], {}, true);
    const watch = await openWatch(t.url, `${CM('gc')}?watch=1&resourceVersion=${String(c.metadata['resourceVersion'])}`);
    assert.ok(isWatchClient(watch));
    const del = await t.request('DELETE', `${CM('gc')}/fa?propagationPolicy=Foreground`);
    assert.deepEqual((del.json as Obj).metadata['finalizers'], ['foregroundDeletion']);
    await gone('gc', 'fa');
    const deleted: string[] = [];
    while (deleted.length < 3) {
      const [event] = await watch.take(1, 10_000);
      if (event!.type === 'DELETED') deleted.push(String(event!.object.metadata?.['name']));
    }
    watch.close();
    assert.deepEqual(deleted, ['fc', 'fb', 'fa']);
  });

  void it('a reference with the wrong kind counts as absent (the owner is looked up by the referenced kind)', async () => {
    const real = await create('gc', 'kind-owner');
    await create('gc', 'wrong-kind', [], { ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'kind-owner', uid: real.metadata['uid'] }] });
    await gone('gc', 'wrong-kind');
    assert.equal(await status('gc', 'kind-owner'), 200);
  });

  void it('a dependent with one live owner keeps it and loses the reference to the one that is gone', async () => {
    const live = await create('gc', 'live-owner');
    const dead = await create('gc', 'dead-owner');
    await create('gc', 'two-owners', [live, dead]);
    assert.equal((await t.request('DELETE', `${CM('gc')}/dead-owner`)).status, 200);
    await eventually('the dangling reference to be removed', async () => {
      const d = (await t.request('GET', `${CM('gc')}/two-owners`)).json as Obj;
      return JSON.stringify((d.metadata['ownerReferences'] as Obj[] | undefined)?.map((r) => r['name'])) === JSON.stringify(['live-owner']);
    });
  });

  void it('a cluster-scoped dependent of a namespaced owner is left alone; of an absent cluster-scoped owner it goes', async () => {
    const owner = await create('gc', 'ns-owner');
    const keep = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'gc-owned-by-cm', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ns-owner', uid: 'not-its-uid' }] } } });
    assert.equal(keep.status, 201, keep.text);
    const go = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'gc-owned-by-ghost', ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'ghost', uid: 'ghost-uid' }] } } });
    assert.equal(go.status, 201, go.text);
    await eventually('the namespace owned by an absent namespace to go', async () => (await t.request('GET', '/api/v1/namespaces/gc-owned-by-ghost')).status === 404);
    const kept = await t.request('GET', '/api/v1/namespaces/gc-owned-by-cm');
    assert.equal(kept.status, 200);
    assert.equal((kept.json as Obj).metadata['deletionTimestamp'], undefined);
    assert.equal(await status('gc', String(owner.metadata['name'])), 200);
  });

  void it('custom resources registered at run time are watched: a Widget owner takes its ConfigMap dependent with it', async () => {
    await createEstablished(t, widgetCrd());
    const res = await t.request('POST', '/apis/example.com/v1/namespaces/gc/widgets', { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w-owner' }, spec: {} } });
    assert.equal(res.status, 201, res.text);
    const widget = res.json as Obj;
    await create('gc', 'widget-dep', [], { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w-owner', uid: widget.metadata['uid'], blockOwnerDeletion: true }] });
    // Foreground: the owner (a custom resource) waits for its dependent, so the collector must watch widgets.
    const del = await t.request('DELETE', '/apis/example.com/v1/namespaces/gc/widgets/w-owner?propagationPolicy=Foreground');
    assert.equal(del.status, 200, del.text);
    await gone('gc', 'widget-dep');
    await eventually('the widget to go', async () => (await t.request('GET', '/apis/example.com/v1/namespaces/gc/widgets/w-owner')).status === 404);
  });

  void it('deleting a CRD deletes its custom resources, and their dependents follow', async () => {
    const res = await t.request('POST', '/apis/example.com/v1/namespaces/gc/widgets', { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w-doomed' }, spec: {} } });
    assert.equal(res.status, 201, res.text);
    const widget = res.json as Obj;
    await create('gc', 'crd-dep', [], { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w-doomed', uid: widget.metadata['uid'] }] });
    assert.equal((await t.request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status, 200);
    await gone('gc', 'crd-dep');
  });

  void it('readyz reports informer-sync', async () => {
    const res = await t.request('GET', '/readyz?verbose');
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, /\[\+\]informer-sync ok/);
  });
});

// kube-apiserver's --enable-garbage-collector=false: deletes add no GC finalizers and nothing collects dependents.
void describe('garbage collection disabled (--enable-garbage-collector=false)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ ...FAST, enableGarbageCollector: false });
    assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'nogc' } } })).status, 201);
  });
  after(async () => t.close());

  void it('deletes at once whatever the policy, and leaves dependents with their ownerReferences', async () => {
    const make = async (name: string, owner?: Obj): Promise<Obj> => {
      const ownerReferences = owner === undefined ? undefined : [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata['name'], uid: owner.metadata['uid'], blockOwnerDeletion: true }];
      const res = await t.request('POST', CM('nogc'), { body: { metadata: { name, ...(ownerReferences !== undefined ? { ownerReferences } : {}) } } });
      assert.equal(res.status, 201, res.text);
      return res.json as Obj;
    };
    for (const policy of ['Foreground', 'Orphan', 'Background']) {
      const owner = await make(`owner-${policy.toLowerCase()}`);
      await make(`dep-${policy.toLowerCase()}`, owner);
      const del = await t.request('DELETE', `${CM('nogc')}/${String(owner.metadata['name'])}?propagationPolicy=${policy}`);
      assert.equal(del.status, 200, del.text);
      assert.equal((del.json as { kind?: string }).kind, 'Status', `${policy}: removed at once, no foregroundDeletion/orphan finalizer`);
      assert.equal((await t.request('GET', `${CM('nogc')}/${String(owner.metadata['name'])}`)).status, 404);
    }
    // With a collector, these dependents of deleted owners go within milliseconds; here they stay untouched.
    await new Promise((r) => setTimeout(r, 1500));
    for (const policy of ['foreground', 'orphan', 'background']) {
      const dep = await t.request('GET', `${CM('nogc')}/dep-${policy}`);
      assert.equal(dep.status, 200, `dep-${policy} was collected`);
      assert.equal(((dep.json as Obj).metadata['ownerReferences'] as unknown[]).length, 1);
    }
  });
});

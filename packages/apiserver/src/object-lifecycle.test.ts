import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { isWatchClient, openWatch } from './testing/watch-client.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

const NS = '/api/v1/namespaces';
const cmPath = (ns: string) => `${NS}/${ns}/configmaps`;

void describe('object lifecycle over HTTP: finalizers, propagation, namespace termination', () => {
  let t: TestServer;
  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
    return res.json as Obj;
  };
  const newNamespace = async (name: string) => create(NS, { metadata: { name } });

  before(async () => {
    // API behaviour only: no garbage collector (it would take the orphan finalizer off objects without dependents at once).
    t = await startTestServer({ controllers: { garbageCollector: false } });
  });
  after(async () => {
    await t.close();
  });

  void it('DELETE with finalizers marks the object; only removals pass; the last removal deletes it (MODIFIED, then DELETED)', async () => {
    await newNamespace('fin');
    const created = await create(cmPath('fin'), { metadata: { name: 'held', finalizers: ['example.com/a', 'example.com/b'] }, data: { k: 'v' } });
    const watch = await openWatch(t.url, `${cmPath('fin')}?watch=1&resourceVersion=${String(created.metadata['resourceVersion'])}`);
    assert.ok(isWatchClient(watch));

    const del = await t.request('DELETE', `${cmPath('fin')}/held`);
    assert.equal(del.status, 200, del.text);
    const marked = del.json as Obj;
    assert.equal(marked['kind'], 'ConfigMap');
    assert.ok(typeof marked.metadata['deletionTimestamp'] === 'string');
    assert.equal(marked.metadata['deletionGracePeriodSeconds'], 0);
    assert.deepEqual(marked.metadata['finalizers'], ['example.com/a', 'example.com/b']);
    const got = await t.request('GET', `${cmPath('fin')}/held`);
    assert.equal(got.status, 200);
    assert.equal((got.json as Obj).metadata['deletionTimestamp'], marked.metadata['deletionTimestamp']);

    // A second DELETE changes nothing and answers the object again.
    const again = await t.request('DELETE', `${cmPath('fin')}/held`);
    assert.equal(again.status, 200);
    assert.equal((again.json as Obj).metadata['resourceVersion'], marked.metadata['resourceVersion']);

    // No new finalizers once terminating (kube's message).
    const added = await t.request('PUT', `${cmPath('fin')}/held`, { body: { ...marked, metadata: { ...marked.metadata, finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } } });
    assert.equal(added.status, 422, added.text);
    assert.match(String(added.json['message']), /metadata\.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"example\.com\/c"\}/);

    // Removing one is allowed; the object stays.
    const one = await t.request('PUT', `${cmPath('fin')}/held`, { body: { ...marked, metadata: { ...marked.metadata, finalizers: ['example.com/b'] } } });
    assert.equal(one.status, 200, one.text);
    assert.equal((await t.request('GET', `${cmPath('fin')}/held`)).status, 200);

    // Removing the last one (a JSON patch) deletes it in the same write.
    const last = await t.request('PATCH', `${cmPath('fin')}/held`, {
      raw: JSON.stringify([{ op: 'remove', path: '/metadata/finalizers' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(last.status, 200, last.text);
    // kube's Store.Update answers with the object as the update made it (deleteWithoutFinalizers
    // returns the request's object): no finalizers, still terminating, the resourceVersion it was read at.
    const answered = last.json as Obj;
    assert.equal(answered['kind'], 'ConfigMap');
    assert.equal(answered.metadata['finalizers'], undefined);
    assert.equal(answered.metadata['deletionTimestamp'], marked.metadata['deletionTimestamp']);
    assert.equal(answered.metadata['resourceVersion'], (one.json as Obj).metadata['resourceVersion']);
    assert.deepEqual(answered['data'], { k: 'v' });
    assert.equal((await t.request('GET', `${cmPath('fin')}/held`)).status, 404);

    // Watchers see the deletion as one DELETED (kube deletes in a separate step without writing
    // the emptied finalizers, so there is no MODIFIED for that update); its object is the last stored state.
    const events = await watch.take(3, 5000);
    watch.close();
    assert.deepEqual(events.map((e) => e.type), ['MODIFIED', 'MODIFIED', 'DELETED']);
    assert.ok(events[0]!.object.metadata?.['deletionTimestamp']);
    assert.deepEqual(events[2]!.object.metadata?.['finalizers'], ['example.com/b']);

    // The same through PUT (a JSON body without finalizers).
    const put = await create(cmPath('fin'), { metadata: { name: 'held-put', finalizers: ['example.com/a'] } });
    const putMarked = (await t.request('DELETE', `${cmPath('fin')}/held-put`)).json as Obj;
    assert.ok(putMarked.metadata['deletionTimestamp']);
    const { finalizers: _f, ...metaWithout } = putMarked.metadata;
    const putLast = await t.request('PUT', `${cmPath('fin')}/held-put`, { body: { ...putMarked, metadata: metaWithout } });
    assert.equal(putLast.status, 200, putLast.text);
    assert.equal((putLast.json as Obj).metadata['uid'], put.metadata['uid']);
    assert.equal((putLast.json as Obj).metadata['finalizers'], undefined);
    assert.equal((putLast.json as Obj).metadata['resourceVersion'], putMarked.metadata['resourceVersion']);
    assert.equal((await t.request('GET', `${cmPath('fin')}/held-put`)).status, 404);
  });

  void it('finalizer names are validated as kube does', async () => {
    const bad = await t.request('POST', cmPath('default'), { body: { metadata: { name: 'badfin', finalizers: ['a/b/c'] } } });
    assert.equal(bad.status, 422, bad.text);
    assert.match(String(bad.json['message']), /metadata\.finalizers: Invalid value: "a\/b\/c": a qualified name must consist of/);
    const both = await t.request('POST', cmPath('default'), { body: { metadata: { name: 'bothfin', finalizers: ['orphan', 'foregroundDeletion'] } } });
    assert.equal(both.status, 422, both.text);
    assert.match(String(both.json['message']), /finalizer orphan and foregroundDeletion cannot be both set/);
  });

  void it('propagationPolicy Orphan / Foreground and orphanDependents add the garbage collector finalizers', async () => {
    const policies: Array<{ name: string; query?: string; body?: Record<string, unknown>; finalizer: string; code: number }> = [
      { name: 'orphan-q', query: '?propagationPolicy=Orphan', finalizer: 'orphan', code: 200 },
      { name: 'orphan-b', body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' }, finalizer: 'orphan', code: 200 },
      { name: 'orphan-dep', body: { orphanDependents: true }, finalizer: 'orphan', code: 200 },
      { name: 'fg-q', query: '?propagationPolicy=Foreground', finalizer: 'foregroundDeletion', code: 200 },
      { name: 'fg-b', body: { propagationPolicy: 'Foreground' }, finalizer: 'foregroundDeletion', code: 200 },
      // orphanDependents=false on an object that is not gone: 202 (kube's rule); it carries no GC finalizer.
      { name: 'cascade', body: { orphanDependents: false }, finalizer: '', code: 202 },
    ];
    for (const p of policies) {
      await create(cmPath('default'), { metadata: { name: p.name, finalizers: ['example.com/hold'] } });
      const res = await t.request('DELETE', `${cmPath('default')}/${p.name}${p.query ?? ''}`, p.body !== undefined ? { body: p.body } : {});
      assert.equal(res.status, p.code, `${p.name}: ${res.text}`);
      const fins = (res.json as Obj).metadata['finalizers'];
      assert.deepEqual(fins, p.finalizer === '' ? ['example.com/hold'] : ['example.com/hold', p.finalizer], p.name);
    }
    // Switching the policy on a second DELETE swaps the finalizer.
    const swapped = await t.request('DELETE', `${cmPath('default')}/orphan-q?propagationPolicy=Foreground`);
    assert.deepEqual((swapped.json as Obj).metadata['finalizers'], ['example.com/hold', 'foregroundDeletion']);
    // Background on an object without finalizers removes it at once.
    await create(cmPath('default'), { metadata: { name: 'bg' } });
    const bg = await t.request('DELETE', `${cmPath('default')}/bg?propagationPolicy=Background`);
    assert.equal(bg.status, 200);
    assert.equal(bg.json['kind'], 'Status');
    assert.equal((await t.request('GET', `${cmPath('default')}/bg`)).status, 404);
    // Orphan on an object without finalizers keeps it (the orphan finalizer holds it).
    await create(cmPath('default'), { metadata: { name: 'orph' } });
    const orph = await t.request('DELETE', `${cmPath('default')}/orph?propagationPolicy=Orphan`);
    assert.equal(orph.status, 200);
    assert.deepEqual((orph.json as Obj).metadata['finalizers'], ['orphan']);
  });

  void it('deletecollection: label and field selectors, propagation policy, items in list order', async () => {
    await newNamespace('coll');
    for (let i = 0; i < 40; i++) await create(cmPath('coll'), { metadata: { name: `c-${String(i).padStart(2, '0')}`, labels: { parity: i % 2 === 0 ? 'even' : 'odd' } } });
    const even = await t.request('DELETE', `${cmPath('coll')}?labelSelector=parity%3Deven`);
    assert.equal(even.status, 200, even.text);
    const names = (even.json['items'] as Obj[]).map((i) => i.metadata['name']);
    assert.deepEqual(names, Array.from({ length: 20 }, (_, i) => `c-${String(i * 2).padStart(2, '0')}`));
    const left = await t.request('GET', cmPath('coll'));
    assert.deepEqual((left.json['items'] as Obj[]).map((i) => (i.metadata['labels'] as Record<string, string>)['parity']), new Array(20).fill('odd'));
    const one = await t.request('DELETE', `${cmPath('coll')}?fieldSelector=metadata.name%3Dc-01&propagationPolicy=Orphan`);
    assert.deepEqual((one.json['items'] as Obj[]).map((i) => i.metadata['name']), ['c-01']);
    const kept = await t.request('GET', `${cmPath('coll')}/c-01`);
    assert.deepEqual((kept.json as Obj).metadata['finalizers'], ['orphan']);
    assert.ok((kept.json as Obj).metadata['deletionTimestamp']);
    const rest = await t.request('DELETE', cmPath('coll'));
    assert.equal((rest.json['items'] as Obj[]).length, 20, 'the orphan-held one is deleted again (it is still listed)');
    const after = await t.request('GET', cmPath('coll'));
    assert.deepEqual((after.json['items'] as Obj[]).map((i) => i.metadata['name']), ['c-01']);
  });

  void it('DELETE of a namespace marks it Terminating; creates in it are refused with kube 403', async () => {
    await newNamespace('term');
    // A foreign spec finalizer keeps it Terminating whatever the controller does.
    const ns = (await t.request('GET', `${NS}/term`)).json as Obj;
    const fin = await t.request('PUT', `${NS}/term/finalize`, { body: { ...ns, spec: { finalizers: ['kubernetes', 'example.com/stay'] } } });
    assert.equal(fin.status, 200, fin.text);
    const del = await t.request('DELETE', `${NS}/term`);
    assert.equal(del.status, 200, del.text);
    const marked = del.json as Obj;
    assert.equal(marked['kind'], 'Namespace');
    assert.ok(marked.metadata['deletionTimestamp']);
    assert.equal(marked.metadata['deletionGracePeriodSeconds'], undefined);
    assert.equal((marked['status'] as Record<string, unknown>)['phase'], 'Terminating');

    const refused = await t.request('POST', cmPath('term'), { body: { metadata: { name: 'late' } } });
    assert.equal(refused.status, 403, refused.text);
    assert.deepEqual(refused.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "late" is forbidden: unable to create new content in namespace term because it is being terminated',
      reason: 'Forbidden',
      details: {
        name: 'late',
        kind: 'configmaps',
        causes: [{ reason: 'NamespaceTerminating', message: 'namespace term is being terminated', field: 'metadata.namespace' }],
      },
      code: 403,
    });
    const immortal = await t.request('DELETE', `${NS}/kube-system`);
    assert.equal(immortal.status, 403);
  });
});

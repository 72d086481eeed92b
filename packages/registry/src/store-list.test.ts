import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { parseFieldSelector, parseLabelSelector } from '@kapi/machinery';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from './testing/registry-fixture.js';

function cm(name: string, data: Record<string, string> = { a: '1' }, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data, ...extra };
}

void describe('generic store: list, paging and deletecollection', () => {
  let fx: Fixture;
  const ns = inNamespace('default');

  before(async () => {
    fx = await startFixture();
  });
  after(async () => fx.close());

  void it('lists per namespace and cluster-wide with label and field selectors', async () => {
    const other = await fx.newRegistry();
    const res = resource(other, 'configmaps');
    await resource(other, 'namespaces').creater.create({ namespace: '' }, { metadata: { name: 'team' } }, {});
    await res.creater.create(ns, cm('a', {}, { metadata: { name: 'a', labels: { app: 'x' } } }), {});
    await res.creater.create(ns, cm('b', {}, { metadata: { name: 'b', labels: { app: 'y' } } }), {});
    await res.creater.create(inNamespace('team'), cm('a', {}, { metadata: { name: 'a', labels: { app: 'x' } } }), {});

    const all = await res.lister.list({ namespace: '' }, {});
    assert.equal(all.kind, 'ConfigMapList');
    assert.equal(all.apiVersion, 'v1');
    assert.match(all.metadata.resourceVersion ?? '', /^\d+$/);
    assert.deepEqual(all.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`), ['default/a', 'default/b', 'team/a']);

    const inDefault = await res.lister.list(ns, {});
    assert.deepEqual(inDefault.items.map((i) => i.metadata.name), ['a', 'b']);

    const labelled = await res.lister.list({ namespace: '' }, { labelSelector: parseLabelSelector('app=x') });
    assert.deepEqual(labelled.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`), ['default/a', 'team/a']);

    const byName = await res.lister.list({ namespace: '' }, { fieldSelector: parseFieldSelector('metadata.name=a,metadata.namespace=team') });
    assert.deepEqual(byName.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`), ['team/a']);

    const notA = await res.lister.list(ns, { fieldSelector: parseFieldSelector('metadata.name!=a') });
    assert.deepEqual(notA.items.map((i) => i.metadata.name), ['b']);

    const empty = await res.lister.list(inNamespace('kube-public'), {});
    assert.deepEqual(empty.items, []);

    await rejectsWithStatus(res.lister.list(ns, { fieldSelector: parseFieldSelector('data.a=1') }), {
      code: 400,
      reason: 'BadRequest',
      message: '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
  });

  void it('pages through a list with limit and continue', async () => {
    const other = await fx.newRegistry();
    const res = resource(other, 'configmaps');
    for (let i = 0; i < 7; i++) await res.creater.create(ns, cm(`page-${i}`), {});
    const names: string[] = [];
    let continueToken: string | undefined;
    let pages = 0;
    do {
      const page = await res.lister.list(ns, { limit: 3, ...(continueToken ? { continue: continueToken } : {}) });
      names.push(...page.items.map((i) => i.metadata.name ?? ''));
      continueToken = page.metadata.continue;
      pages++;
      if (continueToken) assert.equal(typeof page.metadata.remainingItemCount, 'number');
    } while (continueToken);
    assert.equal(pages, 3);
    assert.deepEqual(names, [0, 1, 2, 3, 4, 5, 6].map((i) => `page-${i}`));
    await rejectsWithStatus(res.lister.list(ns, { limit: 3, continue: 'garbage' }), { code: 400, reason: 'BadRequest' });
    await rejectsWithStatus(res.lister.list(ns, { resourceVersion: 'abc' }), {
      code: 400,
      message: 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    });
  });

  void it('deletecollection deletes the selected items and returns them', async () => {
    const other = await fx.newRegistry();
    const res = resource(other, 'configmaps');
    await res.creater.create(ns, cm('keep', {}, { metadata: { name: 'keep', labels: { drop: 'no' } } }), {});
    await res.creater.create(ns, cm('drop-1', {}, { metadata: { name: 'drop-1', labels: { drop: 'yes' } } }), {});
    await res.creater.create(ns, cm('drop-2', {}, { metadata: { name: 'drop-2', labels: { drop: 'yes' } } }), {});
    const deleted = await res.collectionDeleter.deleteCollection(ns, {}, { labelSelector: parseLabelSelector('drop=yes') });
    assert.equal(deleted.kind, 'ConfigMapList');
    assert.deepEqual(deleted.items.map((i) => i.metadata.name), ['drop-1', 'drop-2']);
    const left = await res.lister.list(ns, {});
    assert.deepEqual(left.items.map((i) => i.metadata.name), ['keep']);
  });

});

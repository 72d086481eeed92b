import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldSelector } from '@kapi/machinery';
import type { Storage, WatchEvent } from '@kapi/storage';
import { configMaps } from './builtin/index.js';
import { createStore } from './store.js';
import { withWatchListDefaults } from './store-watch.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from './testing/registry-fixture.js';

void describe('generic store: watch', () => {
  let fx: Fixture;
  const ns = inNamespace('default');

  before(async () => {
    fx = await startFixture();
  });
  after(async () => fx.close());

  void it('WatchList defaults: "" and "0" without sendInitialEvents get the initial events (kube 1.32)', () => {
    assert.deepEqual(withWatchListDefaults({}), { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' });
    assert.deepEqual(withWatchListDefaults({ resourceVersion: '0' }), { resourceVersion: '0', sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' });
    assert.deepEqual(withWatchListDefaults({ resourceVersion: '7' }), { resourceVersion: '7' });
    assert.deepEqual(withWatchListDefaults({ sendInitialEvents: false }), { sendInitialEvents: false });
    assert.deepEqual(withWatchListDefaults({ resourceVersionMatch: 'NotOlderThan' }), { resourceVersionMatch: 'NotOlderThan' });
  });

  void it('offers the watch role only over a storage that watches', () => {
    const plain: Storage = {
      create: (key, obj) => fx.storage.create(key, obj),
      get: (key, o) => fx.storage.get(key, o),
      list: (key, o) => fx.storage.list(key, o),
      guaranteedUpdate: (key, f, o) => fx.storage.guaranteedUpdate(key, f, o),
      delete: (key, o) => fx.storage.delete(key, o),
      currentRevision: () => fx.storage.currentRevision(),
      close: () => Promise.resolve(),
    };
    assert.equal(createStore({ definition: configMaps, storage: plain }).watcher, undefined);
    assert.notEqual(createStore({ definition: configMaps, storage: fx.storage }).watcher, undefined);
  });

  void it('presents events with the served kind, bookmarks included, and watches one key by name', async () => {
    const registry = await fx.newRegistry();
    const cms = resource(registry, 'configmaps');
    const a = await cms.creater.create(ns, { metadata: { name: 'a' }, data: {} }, {});
    await cms.creater.create(ns, { metadata: { name: 'b' }, data: {} }, {});
    const controller = new AbortController();
    const watch = await cms.watcher.watch(ns, { fieldSelector: parseFieldSelector('metadata.name=a'), allowWatchBookmarks: true, signal: controller.signal });
    const events: WatchEvent[] = [];
    for await (const event of watch) {
      events.push(event);
      if (event.type === 'BOOKMARK') break;
    }
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'BOOKMARK']);
    assert.equal((events[0]!.object as { metadata: { name: string } }).metadata.name, 'a');
    const bookmark = events[1]!.object as Record<string, unknown>;
    assert.equal(bookmark['kind'], 'ConfigMap');
    assert.equal(bookmark['apiVersion'], 'v1');
    assert.deepEqual((bookmark['metadata'] as Record<string, unknown>)['annotations'], { 'k8s.io/initial-events-end': 'true' });
    assert.ok(Number((bookmark['metadata'] as Record<string, string>)['resourceVersion']) >= Number(a.metadata.resourceVersion));
    controller.abort();
  });

  void it('checks options before starting: 422, then the field selector, then the resourceVersion', async () => {
    const registry = await fx.newRegistry();
    const cms = resource(registry, 'configmaps');
    await rejectsWithStatus(cms.watcher.watch(ns, { resourceVersion: '5', resourceVersionMatch: 'NotOlderThan', fieldSelector: parseFieldSelector('x=1') }), {
      code: 422,
      message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    });
    await rejectsWithStatus(cms.watcher.watch(ns, { resourceVersion: 'x', fieldSelector: parseFieldSelector('x=1') }), {
      code: 400,
      message: '"x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
    await rejectsWithStatus(cms.watcher.watch(ns, { resourceVersion: 'x' }), {
      code: 400,
      message: 'invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax',
    });
  });
});

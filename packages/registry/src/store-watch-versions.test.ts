/**
 * Watchers of several versions over the watch cache (one cacher for core and events.k8s.io
 * Events): each version's watchers share one converted object per event, so the HTTP
 * layer's per-object byte caches (encode-once) hold within a version and never cross
 * versions; lists share converted items the same way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Watch, WatchEvent } from '@kapi/storage';
import type { Registry } from './registry.js';
import { inNamespace, resource, startCachedRegistry, type CachedRegistry } from './testing/registry-fixture.js';

async function first(watch: Watch): Promise<WatchEvent> {
  for await (const event of watch) if (event.type !== 'BOOKMARK') return event;
  throw new Error('watch ended');
}

void describe('watchers and lists of several versions over one cacher', () => {
  let fixture: CachedRegistry;
  let registry: Registry;
  const ns = inNamespace('default');

  before(async () => {
    fixture = await startCachedRegistry('versions-cache');
    registry = fixture.registry;
  });
  after(async () => fixture.close());

  void it('one converted object per event and version, shared by that version\'s watchers', async () => {
    const core = resource(registry, 'events');
    const v1 = resource(registry, 'events', 'events.k8s.io', 'v1');
    const v1beta1 = resource(registry, 'events', 'events.k8s.io', 'v1beta1');
    const rv = (await core.lister.list(ns, {})).metadata.resourceVersion!;
    const controller = new AbortController();
    const opts = { resourceVersion: rv, signal: controller.signal };
    const watches = await Promise.all([core.watcher.watch(ns, opts), core.watcher.watch(ns, opts), v1.watcher.watch(ns, opts), v1.watcher.watch(ns, opts), v1beta1.watcher.watch(ns, opts)]);
    await core.creater.create(ns, { metadata: { name: 'shared' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'm' }, {});
    const [c1, c2, e1, e2, b1] = await Promise.all(watches.map(first));
    controller.abort();
    const obj = (e: WatchEvent | undefined) => e!.object as KubeObject;
    assert.equal(obj(c1), obj(c2), 'core watchers share the cached object');
    assert.equal(e1, e2, 'events.k8s.io/v1 watchers share one converted event');
    assert.equal(obj(e1).apiVersion, 'events.k8s.io/v1');
    assert.equal(obj(e1)['note'], 'm');
    assert.notEqual(obj(e1), obj(c1));
    assert.notEqual(obj(b1), obj(e1), 'another version gets its own object');
    assert.equal(obj(b1).apiVersion, 'events.k8s.io/v1beta1');
    assert.equal(obj(c1).apiVersion, 'v1');
    // Lists from the cache: converted once per stored object and version.
    const [l1, l2] = [await v1.lister.list(ns, { resourceVersion: '0' }), await v1.lister.list(ns, { resourceVersion: '0' })];
    const item = (l: typeof l1) => l.items.find((i) => i.metadata.name === 'shared')!;
    assert.equal(item(l1), item(l2));
    assert.equal(item(l1), obj(e1), 'the watch event and the list item are one object');
  });
});

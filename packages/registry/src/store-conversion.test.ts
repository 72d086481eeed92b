import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { parseFieldSelector } from '@kapi/machinery';
import type { WatchEvent } from '@kapi/storage';
import { uniquePrefix } from '@kapi/storage/testing';
import type { ResourceDefinition } from './definition.js';
import { createRegistry, type Registry } from './registry.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from './testing/registry-fixture.js';
import { configMaps, namespaces } from './builtin/index.js';
import { versionConversion } from './store-conversion.js';
import { createStoreContext } from './store.js';
import { present, presentShared } from './store-context.js';

/**
 * A two-version test kind: v2 (storage) has spec.size and spec.color; v1 calls size `count`
 * and has no color (kept in an annotation, as kube does for fields without a home); v3 has
 * the storage fields and no hooks (CRD conversion strategy None).
 */
const COLOR_ANNOTATION = 'widgets.test.kapi.io/v2-color';

const spec = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    spec: { type: 'object', properties },
  },
});

function specOf(obj: KubeObject): Record<string, unknown> {
  const s = obj['spec'];
  return typeof s === 'object' && s !== null ? (s as Record<string, unknown>) : {};
}

const widgets: ResourceDefinition = {
  group: 'test.kapi.io',
  kind: 'Widget',
  listKind: 'WidgetList',
  plural: 'widgets',
  singular: 'widget',
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  // Like a custom resource: values are checked by schema validation, not by typed decoding.
  bodyDecoding: 'unstructured',
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
  selectableFields: { 'spec.count': (obj) => (typeof specOf(obj)['size'] === 'number' ? String(specOf(obj)['size']) : undefined) },
  versions: [
    {
      name: 'v1',
      served: true,
      storage: false,
      schema: spec({ count: { type: 'integer', default: 1 } }),
      deprecated: { removedRelease: '1.40', replacement: { group: 'test.kapi.io', version: 'v2', kind: 'Widget' } },
      fromStorage(stored) {
        const s = specOf(stored);
        const out: Record<string, unknown> = {};
        if (s['size'] !== undefined) out['count'] = s['size'];
        if (typeof s['color'] === 'string') stored.metadata.annotations = { ...stored.metadata.annotations, [COLOR_ANNOTATION]: s['color'] };
        if (stored['spec'] !== undefined) stored['spec'] = out;
        return stored;
      },
      toStorage(obj) {
        const s = specOf(obj);
        const out: Record<string, unknown> = {};
        if (s['count'] !== undefined) out['size'] = s['count'];
        const color = obj.metadata.annotations?.[COLOR_ANNOTATION];
        if (color !== undefined) {
          out['color'] = color;
          const { [COLOR_ANNOTATION]: _dropped, ...rest } = obj.metadata.annotations!;
          if (Object.keys(rest).length > 0) obj.metadata.annotations = rest;
          else delete obj.metadata.annotations;
        }
        if (obj['spec'] !== undefined) obj['spec'] = out;
        return obj;
      },
    },
    { name: 'v2', served: true, storage: true, schema: spec({ size: { type: 'integer' }, color: { type: 'string' } }) },
    { name: 'v3', served: true, storage: false, schema: spec({ size: { type: 'integer' }, color: { type: 'string' } }) },
  ],
};

void describe('generic store: version conversion', () => {
  let fx: Fixture;
  let registry: Registry;
  let prefix: string;
  const ns = inNamespace('default');
  const v1 = () => resource(registry, 'widgets', 'test.kapi.io', 'v1');
  const v2 = () => resource(registry, 'widgets', 'test.kapi.io', 'v2');
  const v3 = () => resource(registry, 'widgets', 'test.kapi.io', 'v3');

  before(async () => {
    fx = await startFixture();
    prefix = uniquePrefix('conversion-test');
    registry = createRegistry({ storage: fx.storage, prefix, definitions: [namespaces, configMaps, widgets] });
    await registry.ensureSystemNamespaces();
  });
  after(async () => fx.close());

  void it('create in v1 is stored in the storage form and reads back in every version', async () => {
    const created = await v1().creater.create(ns, { metadata: { name: 'a' }, spec: { count: 3 } }, {});
    assert.equal(created.apiVersion, 'test.kapi.io/v1');
    assert.deepEqual(created['spec'], { count: 3 });
    const raw = await fx.storage.get(`${prefix}/widgets/default/a`, { ignoreNotFound: true });
    assert.ok(raw, 'stored under <prefix>/widgets');
    assert.equal(raw.apiVersion, 'test.kapi.io/v2');
    assert.deepEqual(raw['spec'], { size: 3 });
    const asV2 = await v2().getter.get(ns, 'a', {});
    assert.equal(asV2.apiVersion, 'test.kapi.io/v2');
    assert.deepEqual(asV2['spec'], { size: 3 });
    const asV3 = await v3().getter.get(ns, 'a', {});
    assert.equal(asV3.apiVersion, 'test.kapi.io/v3');
    assert.deepEqual(asV3['spec'], { size: 3 });
    assert.deepEqual(await v1().getter.get(ns, 'a', {}), created);
    // Defaults apply in the request's version (v1's count defaults to 1).
    const defaulted = await v1().creater.create(ns, { metadata: { name: 'a-defaulted' }, spec: {} }, {});
    assert.deepEqual((await v2().getter.get(ns, 'a-defaulted', {}))['spec'], { size: 1 });
    assert.deepEqual(defaulted['spec'], { count: 1 });
  });

  void it('a field without a home in v1 survives a v1 read-modify-write through an annotation', async () => {
    await v2().creater.create(ns, { metadata: { name: 'b' }, spec: { size: 2, color: 'red' } }, {});
    const read = await v1().getter.get(ns, 'b', {});
    assert.deepEqual(read['spec'], { count: 2 });
    assert.equal(read.metadata.annotations?.[COLOR_ANNOTATION], 'red');
    const { object: updated } = await v1().updater.update(ns, 'b', { ...read, spec: { count: 5 } }, {});
    assert.deepEqual(updated['spec'], { count: 5 });
    const back = await v2().getter.get(ns, 'b', {});
    assert.deepEqual(back['spec'], { size: 5, color: 'red' });
    assert.equal(back.metadata.annotations, undefined, 'the annotation is not stored');
  });

  void it('merge patch and apply through v1 patch the v1 form; managedFields carry the writing version', async () => {
    await v2().creater.create(ns, { metadata: { name: 'c' }, spec: { size: 1, color: 'blue' } }, { fieldManager: 'v2-writer' });
    const { object: merged } = await v1().patcher.patch(ns, 'c', { type: 'application/merge-patch+json', body: { spec: { count: 7 } } }, { fieldManager: 'v1-merger' });
    assert.deepEqual(merged['spec'], { count: 7 });
    const mergedEntries = (merged.metadata.managedFields ?? []) as { manager: string; apiVersion: string }[];
    assert.deepEqual(
      mergedEntries.map((e) => [e.manager, e.apiVersion]).sort(),
      [
        ['v1-merger', 'test.kapi.io/v1'],
        ['v2-writer', 'test.kapi.io/v2'],
      ],
    );
    assert.deepEqual((await v2().getter.get(ns, 'c', {}))['spec'], { size: 7, color: 'blue' });
    const { object: applied } = await v1().patcher.patch(
      ns,
      'c',
      { type: 'application/apply-patch+yaml', body: { apiVersion: 'test.kapi.io/v1', kind: 'Widget', metadata: { name: 'c' }, spec: { count: 9 } } },
      { fieldManager: 'v1-applier', force: true },
    );
    assert.deepEqual(applied['spec'], { count: 9 });
    const entries = (applied.metadata.managedFields ?? []) as { manager: string; apiVersion: string }[];
    const versions = Object.fromEntries(entries.map((e) => [e.manager, e.apiVersion]));
    assert.equal(versions['v2-writer'], 'test.kapi.io/v2');
    assert.equal(versions['v1-merger'], undefined, 'apply with force took its only field');
    assert.equal(versions['v1-applier'], 'test.kapi.io/v1');
    assert.deepEqual((await v2().getter.get(ns, 'c', {}))['spec'], { size: 9, color: 'blue' });
  });

  void it('schema validation runs in the request version (its field paths), dry-run answers in it', async () => {
    await rejectsWithStatus(v1().creater.create(ns, { metadata: { name: 'bad' }, spec: { count: 'x' } }, {}), {
      code: 422,
      message: 'Widget.test.kapi.io "bad" is invalid: spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"',
    });
    const dry = await v1().creater.create(ns, { metadata: { name: 'dry' }, spec: { count: 4 } }, { dryRun: true });
    assert.equal(dry.apiVersion, 'test.kapi.io/v1');
    assert.deepEqual(dry['spec'], { count: 4 });
    await rejectsWithStatus(v2().getter.get(ns, 'dry', {}), { code: 404 });
  });

  void it('lists, field selectors (on the storage form) and deletes answer in the served version', async () => {
    await v2().creater.create(ns, { metadata: { name: 'd' }, spec: { size: 42 } }, {});
    const list = await v1().lister.list(ns, { fieldSelector: parseFieldSelector('spec.count=42') });
    assert.equal(list.apiVersion, 'test.kapi.io/v1');
    assert.deepEqual(list.items.map((i) => [i.metadata.name, i.apiVersion, i['spec']]), [['d', 'test.kapi.io/v1', { count: 42 }]]);
    const { object: deleted } = await v1().deleter.delete(ns, 'd', {});
    assert.equal((deleted as KubeObject).apiVersion, 'test.kapi.io/v1');
    assert.deepEqual((deleted as KubeObject)['spec'], { count: 42 });
  });

  void it('watchers of one version share converted event objects; another version sees the same writes in its form', async () => {
    const controller = new AbortController();
    const start = (await v2().lister.list(ns, {})).metadata.resourceVersion!;
    const watches = await Promise.all([
      v1().watcher.watch(ns, { resourceVersion: start, signal: controller.signal }),
      v1().watcher.watch(ns, { resourceVersion: start, signal: controller.signal }),
      v3().watcher.watch(ns, { resourceVersion: start, signal: controller.signal }),
    ]);
    await v2().creater.create(ns, { metadata: { name: 'w' }, spec: { size: 8, color: 'green' } }, {});
    const firsts: WatchEvent[] = [];
    for (const w of watches) {
      for await (const event of w) {
        firsts.push(event);
        break;
      }
    }
    controller.abort();
    const [a, b, c] = firsts.map((e) => e.object as KubeObject);
    assert.equal(a!.apiVersion, 'test.kapi.io/v1');
    assert.deepEqual(a!['spec'], { count: 8 });
    assert.equal(a!.metadata.annotations?.[COLOR_ANNOTATION], 'green');
    // Two watches on the same storage each get their own events here (no watch cache), so
    // identity is checked in the unit test below; the v3 watcher sees v3.
    assert.deepEqual(b, a);
    assert.equal(c!.apiVersion, 'test.kapi.io/v3');
    assert.deepEqual(c!['spec'], { size: 8, color: 'green' });
  });

  void it('an object stored by another version converts through that version first', async () => {
    // As if written when v1 was the storage version.
    await fx.storage.create(`${prefix}/widgets/default/old`, {
      apiVersion: 'test.kapi.io/v1',
      kind: 'Widget',
      metadata: { name: 'old', namespace: 'default', uid: 'u-old', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { [COLOR_ANNOTATION]: 'black' } },
      spec: { count: 11 },
    });
    const asV2 = await v2().getter.get(ns, 'old', {});
    assert.equal(asV2.apiVersion, 'test.kapi.io/v2');
    assert.deepEqual(asV2['spec'], { size: 11, color: 'black' });
    const asV1 = await v1().getter.get(ns, 'old', {});
    assert.deepEqual(asV1['spec'], { count: 11 });
    assert.equal(asV1.metadata.annotations?.[COLOR_ANNOTATION], 'black');
    const updated = await v2().patcher.patch(ns, 'old', { type: 'application/merge-patch+json', body: { spec: { size: 12 } } }, {});
    assert.deepEqual(updated.object['spec'], { size: 12, color: 'black' });
    const raw = await fx.storage.get(`${prefix}/widgets/default/old`);
    assert.equal(raw!.apiVersion, 'test.kapi.io/v2', 'rewritten in the storage version');
  });

  void it('conversion never mutates the stored object and yields new objects per version', () => {
    const stored: KubeObject = { apiVersion: 'test.kapi.io/v2', kind: 'Widget', metadata: { name: 'x' }, spec: { size: 1, color: 'c' } };
    const snapshot = structuredClone(stored);
    const toV1 = versionConversion(widgets, widgets.versions[0]!);
    const toV2 = versionConversion(widgets, widgets.versions[1]!);
    const toV3 = versionConversion(widgets, widgets.versions[2]!);
    assert.equal(toV2.identity, true);
    assert.equal(toV2.toServed(stored), stored);
    const served1 = toV1.toServed(stored);
    const served3 = toV3.toServed(stored);
    assert.notEqual(served1, stored);
    assert.notEqual(served3, stored);
    assert.deepEqual(stored, snapshot);
    assert.deepEqual(toV1.toStorage(structuredClone(served1)), stored);
    assert.deepEqual(toV3.toStorage(structuredClone(served3)), stored);
    // Shared objects (list items, watch events) convert once per store version.
    const ctx1 = createStoreContext({ definition: widgets, storage: fx.storage, version: 'v1' });
    const ctx2 = createStoreContext({ definition: widgets, storage: fx.storage, version: 'v2' });
    const shared = presentShared(ctx1, stored);
    assert.equal(presentShared(ctx1, stored), shared);
    assert.equal(presentShared(ctx2, stored), stored);
    assert.notEqual(present(ctx1, stored), shared, 'private conversions are fresh');
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeList, KubeObject } from '@kapi/machinery';
import type { WatchEvent } from '@kapi/registry';
import { jsonBytesOf, jsonOf, listJson, listJsonBytes, listJsonParts, watchEventLine } from './http/encode-once.js';

const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: '5' }, data: { k: 'v"\n' } });

void describe('serialize once', () => {
  void it('gives a list as parts with the same bytes as one buffer, large items by reference', () => {
    const big = { ...cm('big'), data: { payload: 'x'.repeat(40_000) } };
    for (const items of [[], [cm('a')], [cm('a'), big, cm('b'), cm('c'), big], Array.from({ length: 300 }, (_, i) => cm(`n${i}`))]) {
      const list: KubeList = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items };
      const body = listJsonParts(list);
      const { length } = body;
      const parts = [...body.parts];
      const joined = Buffer.concat(parts);
      assert.equal(length, joined.length);
      assert.deepEqual(joined, listJsonBytes(list));
      if (items.includes(big)) assert.ok(parts.includes(jsonBytesOf(big)), 'a large item is its cached buffer, not a copy');
      if (items.length === 300) assert.ok(parts.length < 10, `small items are joined into chunks (${parts.length} parts)`);
    }
  });

  void it('makes the chunks of a long list as they are taken, each 64-80 KiB', () => {
    const items = Array.from({ length: 5_000 }, (_, i) => cm(`n${i}`));
    const list: KubeList = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items };
    const body = listJsonParts(list);
    assert.ok(!Array.isArray(body.parts), 'parts are produced on demand, not held as an array of copies');
    const parts = [...body.parts];
    assert.ok(parts.length > 3, `${parts.length} chunks`);
    for (const part of parts.slice(0, -1)) assert.ok(part.length >= 64 * 1024 && part.length <= 80 * 1024, `chunk of ${part.length} B`);
    assert.deepEqual(Buffer.concat(parts), listJsonBytes(list));
    assert.equal(body.length, listJsonBytes(list).length);
  });

  void it('leaves out the items\' apiVersion and kind when asked, in either order, whatever their size', () => {
    const big = { ...cm('big'), data: { payload: 'y'.repeat(40_000) } };
    const kindFirst = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'k' } } as KubeObject;
    const untyped = { metadata: { name: 'u' }, data: {} } as unknown as KubeObject;
    const other = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } as KubeObject;
    const onlyTypeMeta = { apiVersion: 'v1', kind: 'ConfigMap' } as KubeObject;
    const many = Array.from({ length: 400 }, (_, i) => cm(`m${i}`));
    for (const items of [[cm('a')], [big], [cm('a'), big, kindFirst, untyped, other, onlyTypeMeta, cm('b')], [...many, big, ...many]]) {
      const list: KubeList = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items };
      const body = listJsonParts(list, { withoutTypeMeta: true });
      const joined = Buffer.concat([...body.parts]);
      assert.equal(body.length, joined.length);
      const expected = {
        ...list,
        items: items.map((item) => {
          // An object that is nothing but TypeMeta keeps it (no field follows to start the object with).
          if (item === onlyTypeMeta) return item;
          const { apiVersion: _a, kind: _k, ...rest } = item;
          return rest;
        }),
      };
      assert.deepEqual(JSON.parse(joined.toString()), expected);
      if (items.includes(big)) assert.ok(body.length > 40_000);
    }
  });

  void it('encodes a shared object once and reuses the text', () => {
    const obj = cm('a');
    const text = jsonOf(obj);
    assert.deepEqual(JSON.parse(text), obj);
    // The contract says shared objects are read-only; a change after encoding is not seen, which proves the reuse.
    (obj.metadata as Record<string, unknown>)['name'] = 'changed';
    assert.equal(jsonOf(obj), text);
  });

  void it('writes one JSON document per event line and reuses the bytes for every watcher', () => {
    const obj = cm('a');
    const event: WatchEvent = { type: 'MODIFIED', object: obj, revision: 5 };
    const line = watchEventLine(event);
    assert.equal(watchEventLine(event), line, 'the same Buffer for the same event');
    const text = line.toString();
    assert.ok(text.endsWith('}\n'));
    assert.equal(text.indexOf('\n'), text.length - 1, 'exactly one line');
    assert.deepEqual(JSON.parse(text), { type: 'MODIFIED', object: obj });
    // The same object in another event (a selector transition) reuses the object's text.
    const deleted = watchEventLine({ type: 'DELETED', object: obj, revision: 5 }).toString();
    assert.deepEqual(JSON.parse(deleted), { type: 'DELETED', object: obj });
  });

  void it('lists encode as kube orders them and reuse item text', () => {
    const items = [cm('a'), cm('b')];
    const list: KubeList = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9', continue: 'tok' }, items };
    const text = listJson(list);
    assert.deepEqual(JSON.parse(text), list);
    assert.ok(text.startsWith('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"tok"},"items":['));
    assert.ok(text.includes(jsonOf(items[0]!)));
    assert.equal(listJson({ ...list, items: [] }), '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"tok"},"items":[]}');
  });
});

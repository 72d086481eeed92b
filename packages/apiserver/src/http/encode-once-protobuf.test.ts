import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeList, decodeObject, decodeWatchFrames } from '@kapi/machinery';
import type { WatchEvent } from '@kapi/registry';
import { answerProtobufOf, jsonBytesOf, listJsonBytes, listProtobuf, listProtobufParts, protobufOf, protobufRawOf, watchEventFrame, watchEventLine } from './encode-once.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: '3' }, data: { k: name } });

void describe('encode once, per media type', () => {
  void it('keeps protobuf bytes beside the JSON bytes of a shared object', () => {
    const obj = cm('a');
    assert.equal(protobufOf(obj), protobufOf(obj), 'the same enveloped Buffer');
    assert.equal(protobufRawOf(obj), protobufRawOf(obj), 'the same message bytes');
    assert.equal(jsonBytesOf(obj), jsonBytesOf(obj));
    assert.deepEqual(decodeObject(protobufOf(obj), { apiVersion: 'v1', kind: 'ConfigMap' }).object, obj);
    assert.deepEqual(JSON.parse(jsonBytesOf(obj).toString()), obj);
  });

  void it('answers a single object with its cached bytes when it has them, else with the same bytes encoded and not kept', () => {
    const fresh = cm('fresh');
    const answer = answerProtobufOf(fresh);
    assert.notEqual(answerProtobufOf(fresh), answer, 'not kept: encoded again');
    assert.deepEqual(answerProtobufOf(fresh), answer);
    const shared = cm('fresh');
    assert.deepEqual(protobufOf(shared), answer, 'the bytes protobufOf gives');
    assert.equal(answerProtobufOf(shared), protobufOf(shared), 'the cached envelope itself');
    const listed = cm('listed');
    const raw = protobufRawOf(listed);
    assert.deepEqual(answerProtobufOf(listed).subarray(-raw.length), Buffer.from(raw), 'around the cached message bytes');
  });

  void it('lists reuse the items\' cached bytes; items without kind are typed by the list', () => {
    const items = [cm('a'), { metadata: { name: 'b' }, data: { k: 'b' } }];
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items };
    const raw = protobufRawOf(items[0]!);
    const bytes = listProtobuf(list as never);
    assert.equal(protobufRawOf(items[0]!), raw, 'not re-encoded');
    const decoded = decodeList(bytes);
    assert.deepEqual(decoded.items.map((i) => [i.kind, i.metadata.name]), [['ConfigMap', 'a'], ['ConfigMap', 'b']]);
    assert.deepEqual(JSON.parse(listJsonBytes(list as never).toString()), list);
  });

  void it('gives a list as chunked parts with the bytes of listProtobuf, large items by reference', () => {
    const big = { ...cm('big'), data: { payload: 'x'.repeat(40_000) } };
    const many = Array.from({ length: 3000 }, (_, i) => cm(`n${i}`));
    const lists = [[], [cm('a')], [big], [cm('a'), big, cm('b'), big], [...many, big, ...many]].map((items, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '9', ...(i === 3 ? { continue: 'tok', remainingItemCount: 200 } : {}) },
      items,
    }));
    for (const list of lists) {
      const body = listProtobufParts(list as never);
      const parts = [...body.parts];
      const joined = Buffer.concat(parts);
      assert.equal(body.length, joined.length);
      assert.deepEqual(joined, listProtobuf(list as never));
      assert.deepEqual(body.joined?.(), joined, 'the one-buffer form for a gzipped answer has the same bytes');
      assert.deepEqual(decodeList(joined).items.map((item) => item.metadata.name), list.items.map((item) => item.metadata.name));
      if (list.items.includes(big)) assert.ok(parts.some((part) => part.equals(protobufRawOf(big)) && part.buffer === protobufRawOf(big).buffer), 'a large item is its cached bytes, not a copy');
      for (const part of parts.slice(0, -1)) assert.ok(part.length <= 80 * 1024 || part.buffer === protobufRawOf(big).buffer, `chunk of ${part.length} B`);
      if (list.items.length > 5000) assert.ok(parts.length > 3 && parts.length < 30, `small items are joined into chunks (${parts.length} parts)`);
    }
  });

  void it('caches each event\'s protobuf frame and JSON line', () => {
    const event = { type: 'MODIFIED', object: cm('w'), revision: 4 } as unknown as WatchEvent;
    assert.equal(watchEventFrame(event), watchEventFrame(event));
    assert.equal(watchEventLine(event), watchEventLine(event));
    const { events } = decodeWatchFrames(watchEventFrame(event));
    assert.deepEqual(events.map((e) => [e.type, e.object.object]), [['MODIFIED', cm('w')]]);
    // A transition sends the same object as another event type: new frame, same object bytes inside.
    const deleted = { type: 'DELETED', object: event.object, revision: 4 } as unknown as WatchEvent;
    assert.notEqual(watchEventFrame(deleted), watchEventFrame(event));
    assert.ok(watchEventFrame(deleted).includes(protobufOf(event.object)));
  });
});

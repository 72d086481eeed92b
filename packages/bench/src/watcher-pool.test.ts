import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startBareServer } from './context.js';
import { ChunkedDecoder, eventResourceVersion, scanEvents, WatcherPool } from './watcher-pool.js';

const event = (type: string, rv: number) => `{"type":"${type}","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"${rv}"},"data":{"k":"v"}}}\n`;
/** `text` as HTTP/1.1 chunks of `size` bytes, framing included. */
const chunked = (text: string, size: number) => {
  let out = '';
  for (let i = 0; i < text.length; i += size) {
    const part = text.slice(i, i + size);
    out += `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`;
  }
  return Buffer.from(out);
};

void test('events split over several HTTP chunks (as kube-apiserver writes batched events) are all found once the framing is decoded', () => {
  const events = [event('ADDED', 7), event('MODIFIED', 1234567), event('BOOKMARK', 8), event('MODIFIED', 9), event('DELETED', 10)];
  // Chunks of 7 or 13 bytes put framing inside "{"type":"" and inside the resourceVersion's digits.
  for (const size of [7, 13, 64]) {
    const body = Buffer.concat([chunked(events.join(''), size), Buffer.from('0\r\n\r\n')]);
    for (const split of [1, 5, 100, body.length]) {
      const decoder = new ChunkedDecoder();
      const seen: number[] = [];
      let pending = Buffer.alloc(0);
      const state = { afterEvent: false };
      for (let i = 0; i < body.length; i += split) {
        const data = Buffer.concat([pending, decoder.decode(body.subarray(i, i + split))]);
        pending = Buffer.from(data.subarray(scanEvents(data, (rv) => seen.push(rv), state)));
      }
      assert.deepEqual(seen, [7, 1234567, 9, 10], `chunks of ${size} bytes, reads of ${split}`);
    }
  }
});

void test('eventResourceVersion reads the first resourceVersion of a line', () => {
  assert.equal(eventResourceVersion(Buffer.from(event('ADDED', 12345))), 12345);
  assert.ok(Number.isNaN(eventResourceVersion(Buffer.from('{"type":"ADDED","object":{}}'))));
});

void test('scanEvents finds every event across read boundaries and chunk framing, skipping bookmarks', () => {
  const events = [event('ADDED', 7), event('BOOKMARK', 8), event('MODIFIED', 9), event('DELETED', 10)];
  // One HTTP chunk per event, as kapi and the bare server write them, or all events in one chunk; reads split anywhere.
  for (const body of [Buffer.concat(events.map((e) => chunked(e, 10_000))), chunked(events.join(''), 10_000)]) {
    for (const split of [1, 3, 17, 64, 200, body.length]) {
      for (const keepState of [false, true]) {
        const seen: number[] = [];
        let pending = Buffer.alloc(0);
        const state = { afterEvent: false };
        for (let i = 0; i < body.length; i += split) {
          const data = Buffer.concat([pending, body.subarray(i, i + split)]);
          pending = Buffer.from(data.subarray(scanEvents(data, (rv) => seen.push(rv), keepState ? state : undefined)));
        }
        assert.deepEqual(seen, [7, 9, 10], `reads of ${split} bytes${keepState ? ', state kept' : ''}`);
      }
    }
  }
});

void test('a WatcherPool on the bare fan-out server sees every event at every watcher', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-bench-test-'));
  writeFileSync(join(dir, 'event.json'), event('MODIFIED', 0).replace('"resourceVersion":"0"', '"resourceVersion":"{{RV}}"'));
  const bare = await startBareServer('fanout', join(dir, 'event.json'), undefined);
  const seen = new Map<number, number>();
  const pool = new WatcherPool(`${bare.url}/watch`, (rv) => seen.set(rv, (seen.get(rv) ?? 0) + 1));
  const writer = new Pool(bare.url, { connections: 1 });
  try {
    await pool.open(20);
    for (let rv = 101; rv <= 105; rv++) {
      const res = await writer.request({ method: 'POST', path: '/event', body: String(rv) });
      assert.deepEqual(await res.body.json(), { metadata: { resourceVersion: String(rv) } });
    }
    for (let i = 0; i < 200 && [...seen.values()].reduce((a, b) => a + b, 0) < 100; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual([...seen.entries()].sort(), [101, 102, 103, 104, 105].map((rv) => [rv, 20]));
    assert.equal(pool.terminated, 0);
    assert.ok(pool.firstEvent?.toString().startsWith('{"type":"MODIFIED"'));
  } finally {
    pool.close();
    await writer.close();
    await bare.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

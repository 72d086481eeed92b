import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WatchEvent } from './interface.js';
import { WatchQueue } from './watch-queue.js';

const event = (n: number): WatchEvent => ({ type: 'ADDED', object: { metadata: { name: `o${n}`, resourceVersion: String(n) } }, revision: n });

async function drain(queue: WatchQueue): Promise<number[]> {
  const out: number[] = [];
  for await (const e of queue) out.push(e.revision);
  return out;
}

void test('WatchQueue delivers pushed events in order and ends after finish', async () => {
  let closed = 0;
  const queue = new WatchQueue({ onClose: () => closed++ });
  const pending = queue[Symbol.asyncIterator]().next();
  queue.push(event(1)); // handed straight to the waiting consumer
  assert.deepEqual((await pending).value, event(1));
  queue.push(event(2));
  queue.push(event(3));
  queue.finish();
  queue.push(event(4)); // ignored after finish
  assert.equal(closed, 0, 'not closed while events wait');
  assert.deepEqual(await drain(queue), [2, 3]);
  assert.equal(closed, 1);
  assert.equal(queue.isClosed, true);
});

void test('WatchQueue reports full at capacity and drained at half, without dropping events', async () => {
  const calls: string[] = [];
  const queue = new WatchQueue({ capacity: 4, onFull: () => calls.push('full'), onDrain: () => calls.push('drain') });
  const accepted = [1, 2, 3, 4, 5, 6].map((n) => queue.push(event(n)));
  assert.deepEqual(accepted, [true, true, true, false, false, false]);
  assert.deepEqual(calls, ['full']);
  assert.equal(queue.size, 6);
  const it = queue[Symbol.asyncIterator]();
  const taken: number[] = [];
  for (let i = 0; i < 3; i++) taken.push(((await it.next()).value as WatchEvent).revision);
  assert.deepEqual(calls, ['full'], 'three left of capacity four is not yet half');
  taken.push(((await it.next()).value as WatchEvent).revision);
  assert.deepEqual(calls, ['full', 'drain']);
  assert.deepEqual(taken, [1, 2, 3, 4]);
  queue.finish();
  assert.deepEqual(await drain(queue), [5, 6]);
});

void test('WatchQueue.waitForRoom resolves when the consumer takes an event, or when the watch stops', async () => {
  const queue = new WatchQueue({ capacity: 2 });
  queue.push(event(1));
  queue.push(event(2));
  let roomy = false;
  const room = queue.waitForRoom().then(() => {
    roomy = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(roomy, false);
  await queue[Symbol.asyncIterator]().next();
  await room;
  assert.equal(roomy, true);

  queue.push(event(3));
  const released = queue.waitForRoom();
  queue.stop();
  await released;
});

void test('WatchQueue.stop drops queued events, ends a waiting consumer and calls onClose once', async () => {
  let closed = 0;
  const queue = new WatchQueue({ onClose: () => closed++ });
  const it = queue[Symbol.asyncIterator]();
  const waiting = it.next();
  queue.stop();
  assert.deepEqual(await waiting, { value: undefined, done: true });

  const other = new WatchQueue({ onClose: () => closed++ });
  other.push(event(1));
  other.stop();
  other.stop();
  assert.deepEqual(await drain(other), []);
  assert.equal(closed, 2);
});

void test('WatchQueue ends on abort, also when the signal was aborted already', async () => {
  const controller = new AbortController();
  const queue = new WatchQueue({ signal: controller.signal });
  queue.push(event(1));
  const it = queue[Symbol.asyncIterator]();
  assert.equal(((await it.next()).value as WatchEvent).revision, 1);
  const waiting = it.next();
  controller.abort();
  assert.equal((await waiting).done, true);

  const early = new WatchQueue({ signal: AbortSignal.abort() });
  assert.deepEqual(await drain(early), []);
  assert.equal(early.isClosed, true);
});

void test('WatchQueue: breaking out of for-await stops the watch; a second concurrent next() is refused', async () => {
  let closed = false;
  const queue = new WatchQueue({ onClose: () => (closed = true) });
  queue.push(event(1));
  queue.push(event(2));
  for await (const e of queue) {
    assert.equal(e.revision, 1);
    break;
  }
  assert.equal(closed, true);
  assert.equal(queue.push(event(3)), false);

  const single = new WatchQueue();
  const it = single[Symbol.asyncIterator]();
  const first = it.next();
  await assert.rejects(it.next(), /one consumer/);
  single.stop();
  assert.equal((await first).done, true);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { everything, type WatchEvent } from '@kapi/storage';
import { CacheEvent } from './cache-event.js';
import { CacheWatcher } from './cache-watcher.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the watcher closed (its budget timer may be re-armed when it fires late on a busy machine). */
async function closedWithin(watcher: CacheWatcher, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (watcher.isOpen && Date.now() < deadline) await sleep(10);
  return !watcher.isOpen;
}

function put(revision: number): CacheEvent {
  return new CacheEvent('put', `/r/ns/o${revision}`, { metadata: { name: `o${revision}` } }, undefined, revision, 0, undefined);
}

async function drain(watcher: CacheWatcher): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const event of watcher) out.push(event);
  return out;
}

void test('cache watcher: a stalled event loop does not close a watcher; a consumer that stays away is closed after its budget', async () => {
  let slow = 0;
  let closed = 0;
  const watcher = new CacheWatcher({
    scope: '/r/',
    recursive: true,
    predicate: everything,
    allowBookmarks: true,
    queueSize: 2,
    budget: { perSecondMs: 0, maxMs: 20 },
    startRevision: 0,
    now: Date.now,
    onSlow: () => slow++,
    onClose: () => closed++,
  });
  for (let rev = 1; rev <= 5; rev++) watcher.dispatch(put(rev));
  // Busy for longer than the budget: the budget timer fires late, which is not the consumer's fault.
  const until = Date.now() + 80;
  while (Date.now() < until) {
    /* the process is busy */
  }
  await sleep(5);
  assert.equal(watcher.isOpen, true);
  const iterator = watcher[Symbol.asyncIterator]();
  for (let rev = 1; rev <= 5; rev++) assert.equal((await iterator.next()).value?.revision, rev);
  // Now it stays away while events keep coming: closed once the (unrefilled) budget is gone.
  for (let rev = 6; rev <= 10; rev++) watcher.dispatch(put(rev));
  await sleep(60);
  assert.equal(watcher.isOpen, false);
  assert.equal(slow, 1);
  assert.equal(closed, 1);
  watcher.dispatch(put(11)); // ignored once closing
  const rest = await drain(watcher);
  assert.deepEqual(rest.map((e) => `${e.type}@${e.revision}`), ['ADDED@6', 'ADDED@7', 'ADDED@8', 'ADDED@9', 'ADDED@10', 'BOOKMARK@10']);
});

void test('cache watcher: events at or below the running maximum are not delivered; bookmarks only move forward', async () => {
  const watcher = new CacheWatcher({
    scope: '/r/ns/o2',
    recursive: false,
    predicate: everything,
    allowBookmarks: true,
    queueSize: 10,
    budget: { perSecondMs: 50, maxMs: 100 },
    startRevision: 2,
    now: Date.now,
    onSlow: () => undefined,
    onClose: () => undefined,
  });
  watcher.dispatch(put(2)); // not after the start
  watcher.dispatch(put(3)); // another key
  const bookmark = (revision: number): WatchEvent => ({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(revision) } }, revision });
  watcher.bookmark(bookmark(2)); // not forward
  watcher.bookmark(bookmark(4));
  watcher.bookmark(bookmark(4)); // not forward
  watcher.close(false);
  assert.deepEqual((await drain(watcher)).map((e) => `${e.type}@${e.revision}`), ['BOOKMARK@4']);
});

void test('cache watcher pull: takes what is ready in order, a listener instead of a pending pull, then the final bookmark and the end', () => {
  let slow = 0;
  const watcher = new CacheWatcher({
    scope: '/r/',
    recursive: true,
    predicate: everything,
    allowBookmarks: true,
    queueSize: 2,
    budget: { perSecondMs: 0, maxMs: 0 },
    startRevision: 0,
    initial: [put(1), put(2)].map((e) => e.watchEventFor(everything)!)[Symbol.iterator](),
    now: Date.now,
    onSlow: () => slow++,
    onClose: () => {},
  });
  const pull = watcher.pull;
  const taken: WatchEvent[] = [];
  let calls = 0;
  // Initial events are ready at once: the listener is called synchronously.
  pull.notify(() => calls++);
  assert.equal(calls, 1);
  assert.equal(pull.take(taken, 1), true);
  assert.deepEqual(taken.map((e) => e.revision), [1]);
  assert.equal(pull.take(taken, 10), true);
  assert.deepEqual(taken.map((e) => e.revision), [1, 2]);
  // Nothing ready: the listener waits for the next event and is called once.
  pull.notify(() => calls++);
  assert.equal(calls, 1);
  watcher.dispatch(put(3));
  watcher.dispatch(put(4));
  assert.equal(calls, 2);
  watcher.dispatch(put(2)); // not after the running maximum: ignored
  assert.equal(pull.take(taken, 10), true);
  assert.deepEqual(taken.map((e) => e.revision), [1, 2, 3, 4]);
  // Closing wakes a waiting listener; the rest is the final bookmark, then the end.
  pull.notify(() => calls++);
  watcher.close(true);
  assert.equal(calls, 3);
  const rest: WatchEvent[] = [];
  assert.equal(pull.take(rest, 10), false);
  assert.deepEqual(rest.map((e) => `${e.type}@${e.revision}`), ['BOOKMARK@4']);
  assert.equal(pull.take(rest, 10), false);
  assert.equal(rest.length, 1);
  assert.equal(slow, 0);
});

void test('cache watcher pull: a consumer that stops taking is closed after its budget and then gets what was queued', async () => {
  let slow = 0;
  const watcher = new CacheWatcher({
    scope: '/r/',
    recursive: true,
    predicate: everything,
    allowBookmarks: false,
    queueSize: 2,
    budget: { perSecondMs: 0, maxMs: 10 },
    startRevision: 0,
    now: Date.now,
    onSlow: () => slow++,
    onClose: () => {},
  });
  let woken = 0;
  // No listener: the consumer waits for its client (a socket that does not drain).
  for (let rev = 1; rev <= 5; rev++) watcher.dispatch(put(rev));
  assert.equal(await closedWithin(watcher, 5000), true);
  assert.equal(slow, 1);
  const rest: WatchEvent[] = [];
  assert.equal(watcher.pull.take(rest, 3), true);
  assert.equal(watcher.pull.take(rest, 3), false);
  assert.deepEqual(rest.map((e) => e.revision), [1, 2, 3, 4, 5]);
  // Stopped: a listener is called at once.
  watcher.pull.notify(() => woken++);
  assert.equal(woken, 1);
});

void test('cache watcher pull: a consumer told of ready events that has not had its turn yet is not slow; one that stopped taking is', async () => {
  let slow = 0;
  const watcher = new CacheWatcher({
    scope: '/r/',
    recursive: true,
    predicate: everything,
    allowBookmarks: false,
    queueSize: 2,
    budget: { perSecondMs: 0, maxMs: 10 },
    startRevision: 0,
    now: Date.now,
    onSlow: () => slow++,
    onClose: () => {},
  });
  // Told (the listener ran) but not yet taken: over budget, still open.
  watcher.pull.notify(() => {});
  for (let rev = 1; rev <= 5; rev++) watcher.dispatch(put(rev));
  await sleep(40);
  assert.equal(watcher.isOpen, true);
  assert.equal(slow, 0);
  // It takes, then stops taking (no listener: waiting for its client) while events keep coming: closed.
  const taken: WatchEvent[] = [];
  assert.equal(watcher.pull.take(taken, 100), true);
  assert.deepEqual(taken.map((e) => e.revision), [1, 2, 3, 4, 5]);
  for (let rev = 6; rev <= 10; rev++) watcher.dispatch(put(rev));
  assert.equal(await closedWithin(watcher, 5000), true);
  assert.equal(slow, 1);
});

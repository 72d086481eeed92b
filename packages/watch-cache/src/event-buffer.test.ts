import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CacheEvent } from './cache-event.js';
import { EventBuffer } from './event-buffer.js';

function event(revision: number, recordTime: number): CacheEvent {
  return new CacheEvent('put', `/k/${revision}`, { metadata: { name: String(revision) } }, undefined, revision, recordTime, undefined);
}

void test('event buffer: grows while its oldest event is inside the window, up to the max', () => {
  let now = 0;
  const sizes: number[] = [];
  const buffer = new EventBuffer({ minCapacity: 4, maxCapacity: 16, windowMs: 1000, now: () => now, onResize: (_, to) => sizes.push(to) });
  for (let rev = 1; rev <= 40; rev++) {
    now = rev; // all inside the window
    buffer.push(event(rev, now));
  }
  assert.deepEqual(sizes, [8, 16]);
  assert.equal(buffer.capacity, 16);
  assert.equal(buffer.size, 16);
  assert.equal(buffer.oldest()!.revision, 25);
  assert.equal(buffer.newest()!.revision, 40);
  assert.equal(buffer.firstAfter(30), 6);
  assert.equal(buffer.at(buffer.firstAfter(30)).revision, 31);
  assert.equal(buffer.firstAfter(0), 0);
  assert.equal(buffer.firstAfter(40), 16);
  assert.deepEqual(buffer.slice(14).map((e) => e.revision), [39, 40]);
});

void test('event buffer: evicts the oldest when the window is covered, and shrinks once a quarter is stale', () => {
  let now = 0;
  const buffer = new EventBuffer({ minCapacity: 4, maxCapacity: 64, windowMs: 100, now: () => now });
  for (let rev = 1; rev <= 8; rev++) buffer.push(event(rev, (now = rev <= 6 ? rev : 140 + rev)));
  assert.equal(buffer.capacity, 8);
  // Full, oldest older than the window, but the newest quarter is fresh: plain eviction.
  now = 150;
  const evicted = buffer.push(event(9, now));
  assert.deepEqual(evicted.map((e) => e.revision), [1]);
  assert.equal(buffer.capacity, 8);
  // Much later: the newest quarter is stale too, so capacity halves, evicting the oldest.
  now = 10_000;
  const shrunk = buffer.push(event(10, now));
  assert.equal(buffer.capacity, 4);
  assert.deepEqual(shrunk.map((e) => e.revision), [2, 3, 4, 5, 6]);
  assert.deepEqual(buffer.slice(0).map((e) => e.revision), [7, 8, 9, 10]);
  buffer.clear();
  assert.equal(buffer.size, 0);
  assert.equal(buffer.oldest(), undefined);
});

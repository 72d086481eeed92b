import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlushScheduler } from './flush-scheduler.js';

const checkPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

void test('few ready streams are flushed before the I/O already queued; many wait for the check phase, in one run', async () => {
  const order: string[] = [];
  let runs = 0;
  const scheduler = new FlushScheduler(2, () => runs++);
  setImmediate(() => order.push('other I/O'));
  scheduler.schedule(() => order.push('a'));
  scheduler.schedule(() => order.push('b'));
  await checkPhase();
  assert.deepEqual(order, ['a', 'b', 'other I/O']);
  assert.equal(runs, 1);

  order.length = 0;
  setImmediate(() => order.push('other I/O'));
  for (const name of ['c', 'd', 'e']) scheduler.schedule(() => order.push(name));
  await checkPhase();
  await checkPhase();
  assert.deepEqual(order, ['other I/O', 'c', 'd', 'e']);
  assert.equal(runs, 2);
});

void test('a stream that becomes ready again during a run is flushed in the check phase, not in a microtask loop', async () => {
  const order: string[] = [];
  const scheduler = new FlushScheduler(8);
  let again = 0;
  const flush = () => {
    order.push(`flush ${again}`);
    if (again++ < 2) scheduler.schedule(flush);
  };
  scheduler.schedule(flush);
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(order, ['flush 0']);
  setImmediate(() => order.push('other I/O'));
  await checkPhase();
  await checkPhase();
  await checkPhase();
  assert.deepEqual(order, ['flush 0', 'flush 1', 'other I/O', 'flush 2']);
});


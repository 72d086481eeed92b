import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createWorkQueue } from './work-queue.js';

void describe('work queue (client-go style)', () => {
  void it('queues a key once; a key added while processed comes back after done, never twice at a time', async () => {
    const q = createWorkQueue<string>();
    const signal = new AbortController().signal;
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    const first = await q.get(signal);
    assert.equal(first, 'a');
    q.add('a');
    assert.equal(q.length, 1, 'a is being processed: not queued again yet');
    assert.equal(await q.get(signal), 'b');
    q.done('b');
    assert.equal(q.length, 0);
    q.done('a');
    assert.equal(q.length, 1, 'a comes back once its processing is done');
    assert.equal(await q.get(signal), 'a');
    q.done('a');
    assert.ok(q.idle());
  });

  void it('get waits for a key and ends when its signal aborts', async () => {
    const q = createWorkQueue<string>();
    const stop = new AbortController();
    const waiting = q.get(stop.signal);
    q.add('x');
    assert.equal(await waiting, 'x');
    q.done('x');
    const idle = q.get(stop.signal);
    stop.abort();
    assert.equal(await idle, undefined);
    q.add('y');
    assert.equal(q.length, 1, 'an aborted waiter takes nothing');
  });

  void it('addRateLimited backs off exponentially per key until forget', async () => {
    const q = createWorkQueue<string>({ baseDelayMs: 20, maxDelayMs: 80 });
    const signal = new AbortController().signal;
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const at = Date.now();
      q.addRateLimited('k');
      assert.equal(q.length, 0, 'not queued before its delay');
      assert.equal(await q.get(signal), 'k');
      delays.push(Date.now() - at);
      q.done('k');
    }
    // 20, 40, 80, 80 (capped): each at least its delay.
    assert.ok(delays[0]! >= 15 && delays[1]! >= 35 && delays[2]! >= 75 && delays[3]! >= 75, delays.join(','));
    q.forget('k');
    const at = Date.now();
    q.addRateLimited('k');
    assert.equal(await q.get(signal), 'k');
    assert.ok(Date.now() - at < 75, 'forget reset the backoff');
    q.shutDown();
  });
});

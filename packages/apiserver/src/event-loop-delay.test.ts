import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { monitorEventLoop } from './event-loop-delay.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function series(text: string, name: string): number {
  const match = new RegExp(`^${name.replace(/[{}"+.]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text);
  assert.ok(match, `${name} in\n${text}`);
  return Number(match[1]);
}

void describe('kapi_event_loop_delay_seconds', () => {
  void it('shows a stretch of blocked event loop as one late sample, and counts only grow', async () => {
    const registry = new Registry();
    const stop = monitorEventLoop(registry);
    try {
      await sleep(100);
      const before = await registry.metrics();
      const countBefore = series(before, 'kapi_event_loop_delay_seconds_count');
      const over250Before = countBefore - series(before, 'kapi_event_loop_delay_seconds_bucket{le="0.25"}');
      const until = Date.now() + 600;
      while (Date.now() < until) {
        // hold the event loop
      }
      // The tick that straddled the stall is recorded when the loop runs timers again; on a
      // loaded machine that may take a few ticks.
      let after = '';
      let over250 = 0;
      for (let tries = 0; tries < 40 && over250 <= over250Before; tries++) {
        await sleep(50);
        after = await registry.metrics();
        over250 = series(after, 'kapi_event_loop_delay_seconds_count') - series(after, 'kapi_event_loop_delay_seconds_bucket{le="0.25"}');
      }
      const count = series(after, 'kapi_event_loop_delay_seconds_count');
      assert.ok(count > countBefore, `${countBefore} → ${count}`);
      assert.equal(series(after, 'kapi_event_loop_delay_seconds_bucket{le="+Inf"}'), count);
      assert.ok(over250 > over250Before, `samples over 250 ms: ${over250Before} → ${over250}\n${after}`);
    } finally {
      stop();
    }
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import test from 'node:test';
import { monitorProcess, parseSchedstat, readThreadSchedules, scheduleUsage } from './process-stats.js';

void test('parseSchedstat reads the run and run-queue nanoseconds; anything else is undefined', () => {
  assert.deepEqual(parseSchedstat('1500000000 250000000 42\n'), { runSeconds: 1.5, waitSeconds: 0.25 });
  assert.equal(parseSchedstat(''), undefined);
  assert.equal(parseSchedstat('x y z'), undefined);
});

void test('scheduleUsage sums the waits and picks the thread that ran the most, counting new threads from zero', () => {
  const before = new Map([
    ['1/1', { runSeconds: 10, waitSeconds: 5 }],
    ['1/2', { runSeconds: 1, waitSeconds: 1 }],
  ]);
  const after = new Map([
    ['1/1', { runSeconds: 12, waitSeconds: 9 }],
    ['1/2', { runSeconds: 1.5, waitSeconds: 1.25 }],
    ['1/3', { runSeconds: 0.5, waitSeconds: 0.5 }],
  ]);
  const usage = scheduleUsage(before, after)!;
  assert.equal(usage.waitSeconds, 4 + 0.25 + 0.5);
  assert.deepEqual(usage.busiest, { runSeconds: 2, waitSeconds: 4 });
  assert.equal(scheduleUsage(before, new Map()), undefined);
});

void test('a busy child process: its busiest thread was runnable for about as long as it spun, and monitorProcess reports it', { skip: !existsSync('/proc/self/schedstat') && 'no schedstats' }, async () => {
  // The child spins for 400 ms of wall time once told to, then says so and idles.
  const script = "process.stdin.once('data', () => { const end = Date.now() + 400; while (Date.now() < end); process.stdout.write('done'); setTimeout(() => {}, 60_000); });";
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    await new Promise((resolve) => child.once('spawn', resolve));
    // Node is up once its threads exist; give it a moment to reach the stdin listener.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const monitor = monitorProcess(child.pid!);
    const before = readThreadSchedules(child.pid!);
    assert.ok(before.size >= 1, 'the child has threads');
    const done = new Promise((resolve) => child.stdout!.once('data', resolve));
    child.stdin!.write('go');
    await done;
    const usage = monitor.finish();
    const schedule = scheduleUsage(before, readThreadSchedules(child.pid!))!;
    // A spinning thread is always runnable: running or waiting for a CPU, ~400 ms in all.
    const runnable = schedule.busiest.runSeconds + schedule.busiest.waitSeconds;
    assert.ok(runnable >= 0.3, `busiest ${JSON.stringify(schedule.busiest)}`);
    assert.ok(usage?.schedule !== undefined, 'monitorProcess reports the schedule');
    assert.ok(usage.schedule.busiest.runSeconds + usage.schedule.busiest.waitSeconds >= 0.3, `monitor ${JSON.stringify(usage.schedule)}`);
  } finally {
    child.kill('SIGKILL');
  }
});

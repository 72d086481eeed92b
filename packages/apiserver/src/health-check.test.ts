/** boundedCheck: kube's rate limit for the etcd checks, answered without waiting for the round trip when a recent result exists. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { boundedCheck } from './health.js';

/** A probe whose calls are counted and answered by hand. */
function manualProbe() {
  const calls: { resolve: () => void; reject: (err: Error) => void }[] = [];
  return {
    calls,
    probe: () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject })),
  };
}

const settledWithin = async (p: Promise<unknown>, ms: number): Promise<boolean> => {
  let settled = false;
  void p.then(() => (settled = true), () => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
};

void describe('boundedCheck', () => {
  void it('probes at most once per half timeout; between probes the last result answers at once', async () => {
    let clock = 0;
    const { calls, probe } = manualProbe();
    const check = boundedCheck('etcd', probe, 2000, () => clock);
    // The first check has no result to answer with: it waits for the probe.
    const first = check.check();
    assert.equal(await settledWithin(first, 10), false);
    assert.equal(calls.length, 1);
    calls[0]!.resolve();
    await first;
    // Within the interval (timeout / 2 = 1 s): no new probe.
    clock = 999;
    await check.check();
    assert.equal(calls.length, 1);
    // Past the interval: a new probe starts, and the check answers the last result without waiting for it.
    clock = 1000;
    await check.check();
    await check.check();
    assert.equal(calls.length, 2, 'one probe in flight at a time');
    // Its failure is what later checks answer.
    calls[1]!.reject(new Error('etcd is down'));
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(check.check(), /etcd is down/);
    assert.equal(calls.length, 2);
  });

  void it('waits for the probe when the last result is as old as the timeout, and fails a probe that outlasts it', async () => {
    let clock = 0;
    const { calls, probe } = manualProbe();
    const check = boundedCheck('etcd-readiness', probe, 40, () => clock);
    const first = check.check();
    calls[0]!.resolve();
    await first;
    clock = 40;
    const waiting = check.check();
    assert.equal(await settledWithin(waiting, 5), false, 'a result as old as the timeout is not answered');
    // The probe never answers: the check fails after the timeout (real time).
    await assert.rejects(waiting, /etcd-readiness check timed out after 40ms/);
    assert.equal(calls.length, 2);
  });
});

void describe('boundedCheck kept fresh', () => {
  void it('probes every interval in the background while it is asked, so a check never waits; stops when no one asks', async () => {
    let probes = 0;
    // Each probe's round trip takes 10 ms.
    const probe = () => {
      probes++;
      return new Promise<void>((resolve) => setTimeout(resolve, 10));
    };
    // Timeout 400 ms: a probe every 200 ms; kept fresh for 1 s after the last check.
    const check = boundedCheck('etcd', probe, 400, Date.now, 1000);
    await check.check();
    assert.equal(probes, 1);
    // Asked again 700 ms later (past the timeout): the background probes kept the result young, so it answers at once.
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.ok(probes >= 3, `${probes} probes in 700 ms (one every 200 ms)`);
    assert.equal(await settledWithin(check.check(), 5), true, 'answered without waiting for a probe');
    // Nobody asks for 1 s: the probes stop.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stopped = probes;
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(probes, stopped, 'no probe once the check has not been asked for keepFreshMs');
  });
});

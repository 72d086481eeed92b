import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Registry } from '@kapi/registry';
import { resource, startFixture, type Fixture } from '@kapi/registry/testing';
import { microTime, startLeaderElection, type LeaderElector } from './leader-election.js';

const TIMING = { leaseDurationMs: 1200, renewDeadlineMs: 800, retryPeriodMs: 100 };

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

void describe('leader election through a Lease', () => {
  let fx: Fixture;
  let registry: Registry;
  const electors: LeaderElector[] = [];
  const lease = async (name: string) => (await resource(registry, 'leases', 'coordination.k8s.io').getter.get({ namespace: 'kube-system' }, name, {}))['spec'] as Record<string, unknown>;

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
    await registry.ensureSystemNamespaces();
  });
  after(async () => {
    for (const e of electors) await e.stop({ release: false });
    await fx.close();
  });

  void it('MicroTime has microseconds', () => {
    assert.equal(microTime(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), '2024-01-02T03:04:05.678000Z');
  });

  void it('exactly one of three replicas leads; the lease records it', async () => {
    for (const id of ['r1', 'r2', 'r3']) electors.push(startLeaderElection(registry, { ...TIMING, name: 'one-of-three', identity: id }));
    await until('a leader', () => electors.some((e) => e.isLeader()));
    // Several renew periods later there is still exactly one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const leaders = electors.filter((e) => e.isLeader());
    assert.equal(leaders.length, 1);
    const spec = await lease('one-of-three');
    assert.equal(spec['holderIdentity'], leaders[0]!.identity);
    assert.equal(spec['leaseDurationSeconds'], 2);
    assert.match(String(spec['renewTime']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(spec['leaseTransitions'], 0);
  });

  void it('a leader that dies without releasing is replaced only after the lease expires; its term signal ended first', async () => {
    const leader = electors.find((e) => e.isLeader())!;
    const term = await leader.nextTerm();
    assert.ok(term !== undefined && !term.aborted);
    const before = await lease('one-of-three');
    const diedAt = Date.now();
    await leader.stop({ release: false });
    assert.ok(term.aborted, 'the dead replica stopped acting');
    const others = electors.filter((e) => e !== leader);
    await until('a new leader', () => others.some((e) => e.isLeader()));
    const tookOverAfter = Date.now() - diedAt;
    // Another replica may take over only once it has seen the record unchanged for a lease duration (2 s, rounded up).
    assert.ok(tookOverAfter >= 1000, `took over after ${tookOverAfter} ms`);
    const spec = await lease('one-of-three');
    assert.notEqual(spec['holderIdentity'], before['holderIdentity']);
    assert.equal(spec['leaseTransitions'], 1);
    assert.equal(others.filter((e) => e.isLeader()).length, 1);
  });

  void it('a released lease is taken at once by a waiting replica', async () => {
    const a = startLeaderElection(registry, { ...TIMING, name: 'released', identity: 'a' });
    await until('a leads', () => a.isLeader());
    const b = startLeaderElection(registry, { ...TIMING, name: 'released', identity: 'b' });
    electors.push(b);
    await a.stop();
    assert.equal((await lease('released'))['holderIdentity'], undefined);
    await until('b leads', () => b.isLeader(), 1000);
  });
});

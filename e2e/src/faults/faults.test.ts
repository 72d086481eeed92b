/**
 * The fault suite under `node --test`: short form by default (each fault once, part of
 * `make test`), the full form with KAPI_FAULTS=full (`make e2e-faults`). Each run has a seed
 * (the fault order and the workload's choices): KAPI_FAULTS_SEED replays one, otherwise
 * KAPI_FAULTS_RUNS runs (default 1) each get a fresh random seed, printed with the summary.
 * Prints the checker's summary (operations, events, faults injected, violations) and fails on
 * any violation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { runFaultSuite } from './run.js';

const mode = process.env.KAPI_FAULTS === 'full' ? 'full' : 'short';
const given = process.env.KAPI_FAULTS_SEED;
const runs = given !== undefined && given !== '' ? 1 : Math.max(1, Number(process.env.KAPI_FAULTS_RUNS ?? '1') || 1);
const seeds = given !== undefined && given !== '' ? [Number(given)] : Array.from({ length: runs }, () => randomInt(2 ** 31));

for (const seed of seeds) {
  void test(`fault suite (${mode}, seed ${seed}): kill a replica, an etcd member and the etcd leader, partition a member, compact, restart everything under a mixed workload; no acknowledged write lost, no lost update, watches ordered and gap-free, informers (raw, client-node, client-go) told exactly etcd's history and equal to etcd`, async (t) => {
    const summary = await runFaultSuite({ mode, seed, log: (line) => process.stderr.write(`# ${line}\n`) });
    process.stderr.write(`${summary.text}\n`);
    t.diagnostic(summary.text);
    assert.equal(summary.faults.length, mode === 'full' ? 18 : 6);
    assert.ok(summary.operations > 500, `only ${summary.operations} operations`);
    assert.ok(summary.events > 500, `only ${summary.events} events`);
    assert.deepEqual(summary.violations, [], `seed ${seed}: replay with KAPI_FAULTS_SEED=${seed} (make e2e-faults SEED=${seed})`);
  });
}

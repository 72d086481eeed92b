/**
 * The fault suite under `node --test`: short form by default (each fault once, part of
 * `make test`), the full form with KAPI_FAULTS=full (`make e2e-faults`). Prints the checker's
 * summary (operations, events, faults injected, violations) and fails on any violation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFaultSuite } from './run.js';

const mode = process.env.KAPI_FAULTS === 'full' ? 'full' : 'short';

void test(`fault suite (${mode}): kill a replica, an etcd member and the etcd leader, partition a member, compact, restart everything under a mixed workload; no acknowledged write lost, no lost update, watches ordered and gap-free, informers equal to etcd`, async (t) => {
  const summary = await runFaultSuite({ mode, log: (line) => process.stderr.write(`# ${line}\n`) });
  process.stderr.write(`${summary.text}\n`);
  t.diagnostic(summary.text);
  assert.equal(summary.faults.length, mode === 'full' ? 18 : 6);
  assert.ok(summary.operations > 500, `only ${summary.operations} operations`);
  assert.ok(summary.events > 500, `only ${summary.events} events`);
  assert.deepEqual(summary.violations, []);
});

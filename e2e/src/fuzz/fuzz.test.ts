/**
 * The fuzz suite under `node --test`: the short form in `make test` (FUZZ_SECONDS, default
 * 45 s of requests), the long form through `make fuzz` (fuzz-main.ts). Fails on any invariant
 * violation; prints the seed, and for each violation its replay and exact request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzOptionsFromEnv } from './options.js';
import { formatSummary } from './report.js';
import { runFuzz } from './run.js';

void test('fuzz: random and mutated bodies, patches, paths, query parameters and headers get no 500, the server stays up, /readyz answers within 1 s, every stored object decodes with client-go', async (t) => {
  const log = (line: string) => process.stderr.write(`# ${line}\n`);
  const options = fuzzOptionsFromEnv(45, log);
  log(`fuzz seed ${options.seed} (FUZZ_SEED=${options.seed} repeats this run)`);
  const summary = await runFuzz(options);
  const text = formatSummary(summary, options.seed, options.streams);
  process.stderr.write(`${text}\n`);
  t.diagnostic(text.split('\n')[0]!);
  if (options.replayPath === undefined) assert.ok(summary.requests > 500, `only ${summary.requests} requests`);
  assert.ok(summary.typedChecks >= 1);
  assert.equal(summary.violations.length, 0, `${summary.violations.length} invariant violations (seed ${options.seed}); see the report above`);
});

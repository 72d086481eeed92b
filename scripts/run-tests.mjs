#!/usr/bin/env node
// One runner for the whole repo: node's test runner over the compiled *.test.js files.
// Usage: node scripts/run-tests.mjs [path-prefix ...]   (e.g. packages/storage e2e)
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const roots = ['packages', 'e2e'];

function walk(dir, out) {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (entry.endsWith('.test.js') && path.includes('/dist/')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((r) => walk(join(root, r), []))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((p) => f.startsWith(p)))
  .sort();

if (files.length === 0) {
  console.error('no test files found (did you run `make build`?)');
  process.exit(1);
}

const concurrency = process.env.KAPI_TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { codeCacheFileName } from './code-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'kapi-code-cache-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Probe {
  filename?: string;
  sep?: string;
  strict?: boolean;
  value?: number;
}

/** A CommonJS file that records its __filename, a require(), its strictness and a computed value. */
function writeScript(name: string, factor: number): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `#!/usr/bin/env node
"use strict";
const p = globalThis.kapiCodeCacheProbe;
function sum(n) { let s = 0; for (let i = 0; i < n; i++) s += i * ${factor}; return s; }
p.filename = __filename;
p.sep = require('node:path').sep;
p.strict = (function () { return this === undefined; })();
p.value = sum(10);
module.exports = p;
`,
  );
  return file;
}

interface ChildRun {
  status: string;
  saved: boolean | null;
  cacheFile?: string;
  probe: Probe;
}

/**
 * runWithCodeCache in a fresh process, as a server start is (within one process V8 reuses
 * what it compiled before and ignores the cache it is given), then save() when asked.
 */
function run(file: string, cacheDir: string | undefined, save = false): ChildRun {
  const module = new URL('./code-cache.js', import.meta.url).href;
  const script = `globalThis.kapiCodeCacheProbe = {};
const { runWithCodeCache } = await import(${JSON.stringify(module)});
const r = runWithCodeCache(${JSON.stringify(file)}, ${cacheDir === undefined ? 'undefined' : JSON.stringify(cacheDir)});
const saved = ${save} ? r.save() : null;
process.stdout.write(JSON.stringify({ status: r.status, saved, cacheFile: r.cacheFile, probe: globalThis.kapiCodeCacheProbe }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as ChildRun;
}

const caches = (cacheDir: string) => readdirSync(cacheDir).filter((n) => n.endsWith('.v8cache'));

void test('runWithCodeCache: runs the file as CommonJS, writes the cache once, reads it back, replaces a bad one and drops stale ones', () => {
  const file = writeScript('server.cjs', 1);
  const cacheDir = join(dir, 'cache');

  const first = run(file, cacheDir, true);
  assert.deepEqual(first.probe, { filename: file, sep: '/', strict: true, value: 45 });
  assert.equal(first.status, 'missing');
  assert.equal(first.saved, true);
  assert.deepEqual(caches(cacheDir), [basename(first.cacheFile!)]);

  const second = run(file, cacheDir, true);
  assert.equal(second.status, 'accepted');
  assert.equal(second.saved, false, 'an accepted cache is not written again');
  assert.equal(second.probe.value, 45);

  // Bytes V8 cannot use (a torn write, another V8): refused, the file still runs, the next save replaces them.
  writeFileSync(first.cacheFile!, Buffer.alloc(4096, 7));
  const third = run(file, cacheDir, true);
  assert.equal(third.status, 'rejected');
  assert.equal(third.probe.value, 45);
  assert.equal(third.saved, true);
  assert.equal(run(file, cacheDir).status, 'accepted');

  // A rebuilt file has a cache of its own name; saving it removes the old one.
  writeScript('server.cjs', 2);
  const rebuilt = run(file, cacheDir, true);
  assert.equal(rebuilt.status, 'missing');
  assert.notEqual(rebuilt.cacheFile, first.cacheFile);
  assert.equal(rebuilt.probe.value, 90);
  assert.equal(rebuilt.saved, true);
  assert.deepEqual(caches(cacheDir), [basename(rebuilt.cacheFile!)]);
  assert.equal(run(file, cacheDir).status, 'accepted');
});

void test('runWithCodeCache: no directory, no cache; a directory that cannot be written costs only the cache', () => {
  const file = writeScript('other.cjs', 3);
  const disabled = run(file, undefined, true);
  assert.equal(disabled.status, 'disabled');
  assert.equal(disabled.saved, false);
  assert.equal(disabled.probe.value, 135);
  // A path below a regular file can never be created.
  const blocked = run(file, join(file, 'cache'), true);
  assert.equal(blocked.status, 'missing');
  assert.equal(blocked.saved, false);
  assert.equal(blocked.probe.value, 135);
});

void test('codeCacheFileName: the name carries a hash of the source', () => {
  assert.match(codeCacheFileName('/x/kapi-apiserver.cjs', 'a'), /^kapi-apiserver\.cjs\.[0-9a-f]{20}\.v8cache$/);
  assert.notEqual(codeCacheFileName('/x/a.cjs', 'a'), codeCacheFileName('/x/a.cjs', 'b'));
  assert.equal(codeCacheFileName('/x/a.cjs', 'a'), codeCacheFileName('/y/a.cjs', 'a'));
});

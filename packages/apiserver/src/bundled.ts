#!/usr/bin/env node
/**
 * `kapi-apiserver` from the bundle: runs dist/bundle/kapi-apiserver.cjs (the server and its
 * dependencies in one file, scripts/bundle-apiserver.mjs, part of `make build`) with a V8 code
 * cache, which starts the server with about a second less CPU than dist/bin.js and its ~800
 * modules (see code-cache.ts). Falls back to dist/bin.js, saying so on stderr, when there is
 * no bundle or when it is older than a package compiled since (`tsc -b` without `make build`).
 *
 * The cache lives in $KAPI_CODE_CACHE_DIR, by default beside the bundle; KAPI_CODE_CACHE=0
 * turns it off. It is written once per bundle and Node version, a second after the server
 * has started.
 */
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runWithCodeCache } from './code-cache.js';
import { onStarted } from './started-hook.js';

const bundle = fileURLToPath(new URL('./bundle/kapi-apiserver.cjs', import.meta.url));
const packagesDir = fileURLToPath(new URL('../../', import.meta.url));

/** Why the bundle cannot be used, or undefined when it can. */
function bundleUnusable(): string | undefined {
  let built: number;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return `${bundle} is missing`;
  }
  // `tsc -b` rewrites a package's .tsbuildinfo whenever it compiles the package (an image keeps none).
  let names: string[] = [];
  try {
    names = readdirSync(packagesDir);
  } catch {
    names = [];
  }
  for (const name of names) {
    let compiled: number;
    try {
      compiled = statSync(`${packagesDir}${name}/dist/.tsbuildinfo`).mtimeMs;
    } catch {
      continue;
    }
    if (compiled > built) return `packages/${name} was compiled after the bundle was built`;
  }
  return undefined;
}

const unusable = bundleUnusable();
if (unusable !== undefined) {
  process.stderr.write(`kapi-apiserver: starting from dist/bin.js, not the bundle: ${unusable} (\`make build\` bundles)\n`);
  await import('./bin.js');
} else {
  const cacheDir = process.env.KAPI_CODE_CACHE === '0' ? undefined : (process.env.KAPI_CODE_CACHE_DIR ?? fileURLToPath(new URL('./bundle/', import.meta.url)));
  const run = runWithCodeCache(bundle, cacheDir);
  if (run.status !== 'accepted' && run.status !== 'disabled') {
    // Once the start-up's functions are compiled; the timer never keeps the process alive.
    onStarted(() => setTimeout(() => run.save(), 1000).unref());
  }
}

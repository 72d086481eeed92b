/**
 * Runs one CommonJS file (the bundled server, dist/bundle/kapi-apiserver.cjs) with a V8 code
 * cache, which Node 20 offers only through node:vm for scripts, not for ES modules. Without
 * it V8 parses the 3 MiB bundle and compiles every function the start-up runs, each time;
 * with it the compiled functions are read back from the cache file.
 *
 * The cache is produced by a running server (`save()`, once it has started, so that it holds
 * the functions compiled on the way there, not only the file's top level) and is written under
 * a name that carries a hash of the source and the Node version, so a rebuilt bundle or
 * another Node never reads it; V8 checks its own version, flags and the source length too, and
 * a cache it refuses (`cachedDataRejected`) is replaced by the next `save()`. Writes are
 * atomic (a temporary file renamed); a directory that cannot be written costs only the cache.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** What became of the cache when the script was compiled. */
export type CodeCacheStatus = 'accepted' | 'rejected' | 'missing' | 'disabled';

export interface CodeCacheRun {
  readonly status: CodeCacheStatus;
  /** The cache file for this source (undefined when disabled). */
  readonly cacheFile: string | undefined;
  /**
   * Writes the cache from what V8 has compiled so far, unless it was accepted at start (then
   * it is already there) or caching is disabled; removes the caches of other versions of the
   * file. Returns whether a file was written; never throws.
   */
  save(): boolean;
}

/** `<name>.<hash>.v8cache`: the hash covers the source and the Node version and architecture. */
export function codeCacheFileName(file: string, source: string): string {
  const hash = createHash('sha256').update(process.version).update('\0').update(process.arch).update('\0').update(source).digest('hex').slice(0, 20);
  return `${basename(file)}.${hash}.v8cache`;
}

/**
 * Compiles `file` as a CommonJS module (the wrapper Node itself uses) with the cache from
 * `cacheDir` when there is a usable one, and runs it. `cacheDir` undefined: no cache.
 */
export function runWithCodeCache(file: string, cacheDir: string | undefined): CodeCacheRun {
  // A leading #! line is valid in a file Node runs, not inside the function wrapper.
  const source = readFileSync(file, 'utf8').replace(/^#!/, '//');
  const cacheFile = cacheDir !== undefined ? join(cacheDir, codeCacheFileName(file, source)) : undefined;
  let cachedData: Buffer | undefined;
  if (cacheFile !== undefined) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`, {
    filename: file,
    ...(cachedData !== undefined ? { cachedData } : {}),
  });
  const status: CodeCacheStatus = cacheFile === undefined ? 'disabled' : cachedData === undefined ? 'missing' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  const save = (): boolean => {
    if (cacheFile === undefined || status === 'accepted') return false;
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(cacheFile), { recursive: true });
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // nothing was written
      }
      return false;
    }
    // The caches of earlier builds of the same file are of no further use.
    const prefix = `${basename(file)}.`;
    try {
      for (const name of readdirSync(dirname(cacheFile))) {
        if (name.startsWith(prefix) && name.endsWith('.v8cache') && name !== basename(cacheFile)) rmSync(join(dirname(cacheFile), name), { force: true });
      }
    } catch {
      // another process cleaning up at the same time
    }
    return true;
  };
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { status, cacheFile, save };
}

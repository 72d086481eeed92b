/**
 * Reads the committed files of ../generated (`make schemas`, `make discovery`). Both src/
 * and dist/ sit one level below the package, so the same relative URL works for both.
 */
import { readFileSync, readdirSync } from 'node:fs';

const GENERATED = new URL('../generated/', import.meta.url);

/** The parsed JSON of `generated/<path>`. Throws (a broken checkout) when it is missing or malformed. */
export function readGenerated<T>(path: string): T {
  return JSON.parse(readFileSync(new URL(path, GENERATED), 'utf8')) as T;
}

/** The file names in `generated/<dir>/`, sorted. */
export function listGenerated(dir: string): string[] {
  return readdirSync(new URL(`${dir}/`, GENERATED)).sort();
}

/** Memoizes a loader: the files are read once, on first use, and shared read-only. */
export function once<T>(load: () => T): () => T {
  let value: T | undefined;
  let loaded = false;
  return () => {
    if (!loaded) {
      value = load();
      loaded = true;
    }
    return value as T;
  };
}

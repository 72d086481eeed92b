/**
 * Compiled programs, kept per (declaration environment, expected type, expression) in one
 * bounded least-recently-used map. The environment stands for the schema version: a CRD
 * version's declared types are built once (declTypeFromSchema is memoised per schema object),
 * so its rules hit the cache until the CRD changes.
 */

export class LruCache<V> {
  readonly #entries = new Map<string, V>();
  constructor(readonly capacity: number) {}

  get(key: string): V | undefined {
    const v = this.#entries.get(key);
    if (v !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get size(): number { return this.#entries.size; }
  clear(): void { this.#entries.clear(); }
}

/** How many compiled programs the process keeps. */
export const PROGRAM_CACHE_CAPACITY = 4096;

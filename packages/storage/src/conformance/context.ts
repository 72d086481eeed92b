import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Storage } from '../interface.js';
import { StorageError, type StorageErrorCode } from '../errors.js';
import type { RawStore } from './raw-store.js';

/** What each conformance test gets: the storage, a key prefix of its own, and raw access. */
export interface ConformanceContext {
  storage: Storage;
  /** Unique to this test; starts with "/" and has no trailing "/". */
  prefix: string;
  /** Present when the backend offers it; tests declared `raw` only run when it is. */
  raw?: RawStore;
}

/** A conformance case. `raw` cases need `ConformanceContext.raw`. */
export interface ConformanceCase {
  name: string;
  raw?: boolean;
  run(ctx: ConformanceContext): Promise<void>;
}

/** `<prefix>/configmaps/<namespace>/<name>`. */
export function keyFor(prefix: string, name: string, namespace = 'default', resource = 'configmaps'): string {
  return `${prefix}/${resource}/${namespace}/${name}`;
}

/** A ConfigMap-shaped test object. */
export function configMap(name: string, data: Record<string, string> = {}, namespace = 'default'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, uid: `uid-${name}` },
    data,
  };
}

/** Creates `names` under `<prefix>/configmaps/default/` and returns the stored objects. */
export async function createAll(ctx: ConformanceContext, names: string[], namespace = 'default'): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const name of names) out.push(await ctx.storage.create(keyFor(ctx.prefix, name, namespace), configMap(name)));
  return out;
}

export function namesOf(items: KubeObject[]): string[] {
  return items.map((item) => item.metadata.name ?? '');
}

/** Asserts that `promise` rejects with a StorageError of `code` (and, if given, `message`). */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: StorageErrorCode,
  message?: string | RegExp,
): Promise<StorageError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, `expected a StorageError ${code}, but the call succeeded`);
  assert.ok(caught instanceof StorageError, `expected a StorageError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, `expected ${code}, got ${caught.code}: ${caught.message}`);
  if (typeof message === 'string') assert.equal(caught.message, message);
  else if (message) assert.match(caught.message, message);
  return caught;
}

/** The raw store, which `raw` cases may rely on. */
export function rawOf(ctx: ConformanceContext): RawStore {
  assert.ok(ctx.raw, 'this case needs raw store access');
  return ctx.raw;
}

/**
 * Test support (`@kapi/registry/testing`, for this package's tests and the controllers'): a
 * real etcd per test file, a fresh key prefix per registry, and assertions on StatusErrors.
 */
import assert from 'node:assert/strict';
import type { Status } from '@kapi/machinery';
import { isStatusError } from '@kapi/machinery';
import { createEtcdStorage, type EtcdStorage } from '@kapi/storage';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { createWatchCache, type WatchCache } from '@kapi/watch-cache';
import { builtinDefinitions } from '../builtin/index.js';
import { createRegistry, type Registry } from '../registry.js';
import type { RestResource } from '../rest.js';

export interface Fixture {
  etcd: TestEtcd;
  storage: EtcdStorage;
  /** A registry on its own prefix with the system namespaces created. */
  newRegistry(): Promise<Registry>;
  close(): Promise<void>;
}

export async function startFixture(): Promise<Fixture> {
  const etcd = await startEtcd();
  const storage = createEtcdStorage({ endpoints: etcd.endpoints });
  return {
    etcd,
    storage,
    async newRegistry() {
      const registry = createRegistry({ storage, prefix: uniquePrefix('registry-test') });
      await registry.ensureSystemNamespaces();
      return registry;
    },
    async close() {
      await storage.close();
      await etcd.stop();
    },
  };
}

export interface CachedRegistry {
  /** The registry over the watch cache, on its own prefix, with the system namespaces created. */
  registry: Registry;
  cache: WatchCache;
  close(): Promise<void>;
}

/** A real etcd and a registry whose storage is a watch cache over every built-in resource (as the server runs it). */
export async function startCachedRegistry(name: string): Promise<CachedRegistry> {
  const etcd = await startEtcd();
  const prefix = uniquePrefix(name);
  const backend = createEtcdStorage({ endpoints: etcd.endpoints });
  const cache = createWatchCache(backend, {
    resources: builtinDefinitions.map((d) => ({ prefix: `${prefix}/${d.storagePrefix ?? d.plural}`, group: d.group, resource: d.plural })),
  });
  const registry = createRegistry({ storage: cache, prefix });
  await registry.ensureSystemNamespaces();
  return {
    registry,
    cache,
    async close() {
      await cache.close();
      await backend.close();
      await etcd.stop();
    },
  };
}

/** The resource, asserting that it is served. */
export function resource(registry: Registry, plural: string, group = '', version = 'v1'): Required<Omit<RestResource, 'definition' | 'version'>> & RestResource {
  const found = registry.lookup(group, version, plural);
  assert.ok(found, `${plural} is served`);
  return found as Required<Omit<RestResource, 'definition' | 'version'>> & RestResource;
}

/** Awaits `promise`, asserts it rejects with a StatusError matching `expected`, returns the Status. */
export async function rejectsWithStatus(promise: Promise<unknown>, expected: Partial<Status>): Promise<Status> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, 'expected a rejection');
  assert.ok(isStatusError(caught), `expected a StatusError, got ${String(caught)}`);
  const status = caught.status;
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual(status[key as keyof Status], value, `status.${key}`);
  }
  return status;
}

/** A namespaced request context. */
export const inNamespace = (namespace: string) => ({ namespace });
export const clusterScope = { namespace: '' };

import type { KubeObject } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';
import { compareKeys } from './key-order.js';
import { SortedMap } from './sorted-map.js';

/**
 * Lists everything under `prefix` (a quorum read) into a sorted map: in one list when
 * `pageSize` is 0 (the etcd backend then reads in chunks of a few MiB, asking for the next
 * while it decodes the last), else in pages of `pageSize`, all at the revision of the first.
 * List results do not carry keys, so each object's key is derived as the registry lays keys
 * out — `<prefix>/[<namespace>/]<name>` — as kube's cacher derives them; objects that arrive later through the feed carry their real keys.
 */
export async function listAll(backend: Storage, prefix: string, pageSize: number): Promise<{ map: SortedMap<KubeObject>; revision: number }> {
  const keys: string[] = [];
  const values: KubeObject[] = [];
  let token: string | undefined;
  let revision = 0;
  do {
    const page = await backend.list(prefix, { ...(pageSize > 0 ? { limit: pageSize } : {}), ...(token ? { continue: token } : {}) });
    revision ||= Number(page.resourceVersion);
    for (const item of page.items) {
      const namespace = item.metadata.namespace;
      keys.push(namespace ? `${prefix}/${namespace}/${item.metadata.name ?? ''}` : `${prefix}/${item.metadata.name ?? ''}`);
      values.push(item);
    }
    token = page.continue;
  } while (token);
  if (keys.every((k, i) => i === 0 || compareKeys(keys[i - 1]!, k) < 0)) return { map: SortedMap.fromSorted(keys, values), revision };
  let map = SortedMap.empty<KubeObject>();
  for (const [i, k] of keys.entries()) map = map.set(k, values[i]!);
  return { map, revision };
}

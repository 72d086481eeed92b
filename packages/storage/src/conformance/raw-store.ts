import type { Etcd3 } from 'etcd3';

/**
 * Direct access to the backing store, bypassing the Storage under test, so the suite can
 * check what was really written (keys, bytes, revisions) and inject faults (malformed values,
 * compaction). Backends without such access leave it out; tests that need it are skipped.
 */
export interface RawStore {
  /** The stored bytes and mod_revision at `key`, or undefined. */
  read(key: string): Promise<{ value: Buffer; modRevision: number } | undefined>;
  /** All keys under `prefix` (no trailing "/" added), in order. */
  keys(prefix: string): Promise<string[]>;
  /** The store's current revision. */
  revision(): Promise<number>;
  /** Writes raw bytes at `key`; returns the new revision. */
  put(key: string, value: Buffer): Promise<number>;
  /** Discards history before `revision`. */
  compact(revision: number): Promise<void>;
}

/** A RawStore over an etcd3 client. */
export function etcdRawStore(client: Etcd3): RawStore {
  return {
    async read(key) {
      const res = await client.kv.range({ key: Buffer.from(key) });
      const kv = res.kvs[0];
      return kv === undefined ? undefined : { value: kv.value, modRevision: Number(kv.mod_revision) };
    },
    async keys(prefix) {
      return client.getAll().prefix(prefix).keys();
    },
    async revision() {
      const res = await client.kv.range({ key: Buffer.from('/'), limit: 1 });
      return Number(res.header.revision);
    },
    async put(key, value) {
      const res = await client.kv.put({ key: Buffer.from(key), value });
      return Number(res.header.revision);
    },
    async compact(revision) {
      await client.kv.compact({ revision, physical: true });
    },
  };
}

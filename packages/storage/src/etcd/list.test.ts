import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Predicate } from '../interface.js';
import { isStorageError } from '../errors.js';
import { startEtcd, uniquePrefix } from '../testing/index.js';
import { createEtcdClient } from './client.js';
import { jsonCodec, storageCodec, type StorageCodec } from './codec.js';
import { createEtcdKV, type EtcdKV } from './kv.js';
import { list, type ListChunking } from './list.js';
import { DEFAULT_MAX_REQUEST_BYTES } from './request-size.js';

const oneRange: ListChunking = { targetBytes: 1 << 30, firstKeys: 1 << 20 };
// A few keys per chunk: every list below takes many round trips.
const tiny: ListChunking = { targetBytes: 600, firstKeys: 3, minKeys: 2 };

const evens: Predicate = { empty: false, matches: (obj) => obj.metadata.labels?.['parity'] === 'even' };

function configMap(namespace: string, i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${String(i).padStart(3, '0')}`, namespace, labels: { parity: i % 2 === 0 ? 'even' : 'odd' } },
    data: { v: 'x'.repeat(50 + (i % 7) * 40) },
  };
}

/** An EtcdKV that records its range calls and decodes in order, in one log. */
function recording(inner: EtcdKV, log: string[]): EtcdKV {
  const codec: StorageCodec = {
    ...inner.codec,
    decode: (bytes, key) => {
      log.push(`decode ${key.slice(key.lastIndexOf('/') + 1)}`);
      return inner.codec.decode(bytes, key);
    },
  };
  return {
    codec,
    maxRequestBytes: inner.maxRequestBytes,
    requestIdBytes: () => inner.requestIdBytes(),
    written: inner.written,
    leaseFor: (key, ttl, scope) => inner.leaseFor(key, ttl, scope),
    txn: (key, req) => inner.txn(key, req),
    range: (key, req) => {
      log.push(`range limit=${req.limit ?? 0}`);
      return inner.range(key, req);
    },
  };
}

void test('chunked lists return what one range returns, and ask for the next chunk before decoding the last', async () => {
  const etcd = await startEtcd();
  const client = createEtcdClient(etcd.endpoints);
  try {
    const kv = createEtcdKV(client, { codec: storageCodec(jsonCodec), requestTimeoutMs: 5000, maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES });
    const prefix = `${uniquePrefix()}/configmaps`;
    for (let i = 0; i < 57; i++) {
      const obj = configMap(i % 3 === 0 ? 'a' : 'b', i);
      await client.put(`${prefix}/${obj.metadata.namespace}/${obj.metadata.name}`).value(jsonCodec.encode(obj));
    }
    const names = (items: readonly KubeObject[]) => items.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);

    // Everything, everything of one namespace, a filtered list: the same with tiny chunks.
    for (const [key, predicate] of [[prefix, undefined], [`${prefix}/b`, undefined], [prefix, evens]] as const) {
      const whole = await list(kv, key, predicate ? { predicate } : {}, oneRange);
      const log: string[] = [];
      const chunked = await list(recording(kv, log), key, predicate ? { predicate } : {}, tiny);
      assert.deepEqual(names(chunked.items), names(whole.items));
      assert.equal(chunked.resourceVersion, whole.resourceVersion);
      assert.equal(chunked.continue, undefined);
      const ranges = log.filter((l) => l.startsWith('range')).length;
      assert.ok(ranges > 10, `${ranges} ranges for ${key}`);
      // The second range went out before the first value was decoded.
      const rangeAt = log.flatMap((l, i) => (l.startsWith('range') ? [i] : []));
      assert.ok(rangeAt[1]! < log.findIndex((l) => l.startsWith('decode')), log.slice(0, 6).join(', '));
    }
    assert.equal((await list(kv, prefix, {}, tiny)).items.length, 57);

    // Pages: the same items, tokens and remaining counts, page after page, at the first page's revision.
    for (const predicate of [undefined, evens]) {
      let tokenWhole: string | undefined;
      let tokenChunked: string | undefined;
      let pages = 0;
      do {
        const options = { limit: 10, ...(predicate ? { predicate } : {}) };
        const whole = await list(kv, prefix, { ...options, ...(tokenWhole ? { continue: tokenWhole } : {}) }, oneRange);
        const chunked = await list(kv, prefix, { ...options, ...(tokenChunked ? { continue: tokenChunked } : {}) }, tiny);
        assert.deepEqual(names(chunked.items), names(whole.items));
        assert.equal(chunked.remainingItemCount, whole.remainingItemCount);
        assert.equal(chunked.continue, whole.continue);
        tokenWhole = whole.continue;
        tokenChunked = chunked.continue;
        pages++;
        if (pages === 1) await client.put(`${prefix}/a/zzz-later`).value(jsonCodec.encode(configMap('a', 999)));
      } while (tokenWhole !== undefined);
      assert.equal(pages, predicate ? 3 : 6);
      await client.delete().key(`${prefix}/a/zzz-later`);
    }
    // A page with no predicate reads exactly the keys it needs.
    const log: string[] = [];
    const page = await list(recording(kv, log), prefix, { limit: 10 }, tiny);
    assert.equal(page.remainingItemCount, 47);
    assert.equal(log.filter((l) => l.startsWith('decode')).length, 10);
  } finally {
    client.close();
    await etcd.stop();
  }
});

void test('an undecodable value fails a chunked list with Corrupt while the next chunk is in flight', async () => {
  const etcd = await startEtcd();
  const client = createEtcdClient(etcd.endpoints);
  try {
    const kv = createEtcdKV(client, { codec: storageCodec(jsonCodec), requestTimeoutMs: 5000, maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES });
    const prefix = `${uniquePrefix()}/configmaps`;
    for (let i = 0; i < 12; i++) await client.put(`${prefix}/a/cm-${String(i).padStart(2, '0')}`).value(jsonCodec.encode(configMap('a', i)));
    await client.put(`${prefix}/a/cm-03x`).value('not json');
    await assert.rejects(list(kv, prefix, {}, tiny), (err: unknown) => isStorageError(err, 'Corrupt') && (err as Error).message.endsWith("couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')"));
  } finally {
    client.close();
    await etcd.stop();
  }
});

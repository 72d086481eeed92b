import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IWatchRequest, IWatchResponse } from 'etcd3';
import { uniquePrefix } from '../../testing/index.js';
import { createEtcdClient } from '../client.js';
import { toStorageError } from '../errors.js';
import { openWatchStream, stopOwnWatchClient, useOwnWatchClient } from '../watch-stream.js';
import { besideEtcd3 } from './beside-etcd3.js';

const T = 5000;

/** Either client's raw Watch stream, as its responses and its one terminal outcome. */
interface Recorded {
  write(req: IWatchRequest): void;
  responses: IWatchResponse[];
  /** Resolves with the first response that satisfies `pred` (from those seen so far or later). */
  next(pred: (res: IWatchResponse) => boolean): Promise<IWatchResponse>;
  ended: Promise<Error | 'end'>;
  close(): void;
}

interface DuplexLike {
  on(event: 'data', fn: (res: IWatchResponse) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  on(event: 'end', fn: () => void): void;
  write(req: IWatchRequest): unknown;
  end(): void;
  cancel(): void;
}

function record(stream: DuplexLike): Recorded {
  const responses: IWatchResponse[] = [];
  const waiters: Array<{ pred: (res: IWatchResponse) => boolean; resolve: (res: IWatchResponse) => void }> = [];
  let settle!: (outcome: Error | 'end') => void;
  const ended = new Promise<Error | 'end'>((resolve) => (settle = resolve));
  stream.on('data', (res) => {
    responses.push(res);
    for (const w of [...waiters]) {
      if (w.pred(res)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(res);
      }
    }
  });
  stream.on('error', (err) => settle(err));
  stream.on('end', () => settle('end'));
  return {
    responses,
    write: (req) => void stream.write(req),
    next: (pred) => {
      const seen = responses.find(pred);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no such response within 5 s')), T);
        waiters.push({
          pred,
          resolve: (res) => {
            clearTimeout(timer);
            resolve(res);
          },
        });
      });
    },
    ended,
    close: () => {
      stream.end();
      stream.cancel();
    },
  };
}

void describe("the own Watch call against a real etcd, beside the etcd3 client's", { concurrency: false }, () => {
  const pair = besideEtcd3();

  const both = async (): Promise<[Recorded, Recorded]> => [
    record(pair.ours.watch().call),
    record((await pair.theirs.watchClient.watch()) as unknown as DuplexLike),
  ];

  void test('created, events (puts, deletes, large values across frames), progress and cancel replies decode as etcd3 decodes them', async () => {
    const prefix = uniquePrefix();
    const key = Buffer.from(`${prefix}/`);
    const rangeEnd = Buffer.from(`${prefix}0`);
    const first = await pair.theirs.put(`${prefix}/a`).value('0').exec();
    const start = Number(first.header.revision);
    const streams = await both();
    for (const s of streams) s.write({ create_request: { key, range_end: rangeEnd, start_revision: start, prev_kv: true, progress_notify: true } });
    // Both created replies first: each carries the revision at its creation, which a put made
    // before the slower stream is created would move.
    await Promise.all(streams.map((s) => s.next((res) => res.created)));
    await pair.theirs.put(`${prefix}/a`).value('1').exec();
    await pair.theirs.put(`${prefix}/big`).value(Buffer.alloc(100_000, 'v')).exec();
    await pair.theirs.put(`${prefix}/many`).value(Buffer.alloc(1_000_000, 'w')).exec();
    const last = await pair.theirs.delete().key(`${prefix}/a`).exec();
    const lastRevision = Number(last.header.revision);
    for (const s of streams) await s.next((res) => res.events.some((e) => Number(e.kv.mod_revision) === lastRevision));
    for (const s of streams) s.write({ progress_request: {} });
    const progress = await Promise.all(streams.map((s) => s.next((res) => res.watch_id === '-1')));
    assert.deepEqual(progress[0], progress[1]);
    assert.equal(Number(progress[0]!.header.revision), lastRevision);
    for (const s of streams) s.write({ cancel_request: { watch_id: 0 } });
    const cancelled = await Promise.all(streams.map((s) => s.next((res) => res.canceled)));
    assert.deepEqual(cancelled[0], cancelled[1]);
    const [mine, theirsSeen] = streams.map((s) => s.responses);
    assert.equal(mine!.length, theirsSeen!.length);
    for (let i = 0; i < mine!.length; i++) assert.deepEqual(mine![i], theirsSeen![i], `response ${i}`);
    const events = mine!.flatMap((r) => r.events);
    assert.deepEqual(
      events.map((e) => [e.type, e.kv.key.toString().slice(prefix.length), e.kv.value.length, e.prev_kv?.value.length ?? null]),
      [
        ['Put', '/a', 1, null],
        ['Put', '/a', 1, 1],
        ['Put', '/big', 100_000, null],
        ['Put', '/many', 1_000_000, null],
        ['Delete', '/a', 0, 1],
      ],
    );
    for (const s of streams) s.close();
  });

  void test('a watch from a compacted revision is cancelled with compact_revision, as with etcd3', async () => {
    const prefix = uniquePrefix();
    const a = await pair.theirs.put(`${prefix}/a`).value('1').exec();
    const b = await pair.theirs.put(`${prefix}/a`).value('2').exec();
    await pair.theirs.kv.compact({ revision: b.header.revision, physical: true });
    const streams = await both();
    for (const s of streams) s.write({ create_request: { key: Buffer.from(`${prefix}/a`), start_revision: a.header.revision } });
    const replies = await Promise.all(streams.map((s) => s.next((res) => res.canceled)));
    assert.equal(replies[0]!.compact_revision, b.header.revision);
    assert.deepEqual(replies[0], replies[1]);
    for (const s of streams) s.close();
  });

  void test('openWatchStream on the own client: events, progress, compaction and cancellation reach the handlers as on etcd3', async () => {
    const client = createEtcdClient(pair.etcd.endpoints);
    useOwnWatchClient(client, pair.ours);
    try {
      const prefix = uniquePrefix();
      const seen: string[] = [];
      let progressAt = 0;
      const created = await pair.theirs.put(`${prefix}/x`).value('0').exec();
      const stream = openWatchStream(
        client,
        { key: Buffer.from(`${prefix}/`), rangeEnd: Buffer.from(`${prefix}0`), startRevision: Number(created.header.revision) + 1, prevKv: true, progressNotify: true },
        {
          onEvents: (events) => seen.push(...events.map((e) => `${e.type} ${e.kv.value.toString()}`)),
          onProgress: (revision, onDemand) => {
            if (onDemand) progressAt = revision;
          },
          onCompacted: () => assert.fail('not compacted'),
          onError: (err) => assert.fail(String(err)),
        },
      );
      stream.requestProgress();
      const put = await pair.theirs.put(`${prefix}/x`).value('1').exec();
      await pair.theirs.delete().key(`${prefix}/x`).exec();
      const deadline = Date.now() + T;
      while ((seen.length < 2 || progressAt === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(seen, ['Put 1', 'Delete ']);
      assert.ok(progressAt > 0 && progressAt < Number(put.header.revision) + 2);
      assert.equal(stream.member(), new URL(pair.etcd.endpoints[0]!).host);
      stream.close();

      // From a compacted revision: onCompacted with etcd's compacted revision.
      await pair.theirs.kv.compact({ revision: put.header.revision });
      const compacted = await new Promise<number>((resolve, reject) => {
        openWatchStream(
          client,
          { key: Buffer.from(`${prefix}/x`), startRevision: Number(created.header.revision), prevKv: false, progressNotify: false },
          { onEvents: () => reject(new Error('events')), onProgress: () => undefined, onCompacted: resolve, onError: reject },
        );
      });
      assert.equal(compacted, Number(put.header.revision));
    } finally {
      stopOwnWatchClient(client, pair.ours);
      client.close();
    }
  });

  void test('a stream whose etcd goes away fails with a connection failure (Unreachable), and a new stream works once etcd is back', async () => {
    const s = record(pair.ours.watch().call);
    s.write({ create_request: { key: Buffer.from(uniquePrefix()) } });
    await s.next((res) => res.created);
    await pair.etcd.restart();
    const outcome = await s.ended;
    assert.ok(outcome instanceof Error);
    assert.equal(toStorageError(outcome, 'k').code, 'Unreachable', String(outcome));
    const again = record(pair.ours.watch().call);
    again.write({ create_request: { key: Buffer.from(uniquePrefix()) } });
    assert.equal((await again.next((res) => res.created)).created, true);
    again.close();
  });
});

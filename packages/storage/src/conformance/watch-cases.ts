import assert from 'node:assert/strict';
import type { KubeObject, Status } from '@kapi/machinery';
import type { Predicate, WatchEvent } from '../interface.js';
import type { ConformanceCase, ConformanceContext } from './context.js';
import { EventReader, configMap, keyFor, rawOf, rejectsWith, watcherOf } from './context.js';

const collection = (ctx: ConformanceContext) => `${ctx.prefix}/configmaps`;

/** Matches objects labelled app=web. */
const appWeb: Predicate = { empty: false, matches: (obj: KubeObject) => obj.metadata.labels?.app === 'web' };

function labelled(name: string, app: string | undefined, data: Record<string, string> = {}): KubeObject {
  const obj = configMap(name, data);
  if (app !== undefined) obj.metadata.labels = { app };
  return obj;
}

async function setLabel(ctx: ConformanceContext, name: string, app: string | undefined): Promise<KubeObject> {
  return ctx.storage.guaranteedUpdate(keyFor(ctx.prefix, name), (cur) => {
    const metadata = { ...cur!.metadata };
    if (app === undefined) delete metadata.labels;
    else metadata.labels = { app };
    return { ...cur!, metadata };
  });
}

async function setData(ctx: ConformanceContext, name: string, data: Record<string, string>): Promise<KubeObject> {
  return ctx.storage.guaranteedUpdate(keyFor(ctx.prefix, name), (cur) => ({ ...cur!, data }));
}

const rv = (obj: KubeObject) => Number(obj.metadata.resourceVersion);
const summary = (e: WatchEvent) => `${e.type} ${(e.object as KubeObject).metadata?.name ?? ''}@${e.revision}`;

/** Asserts an event's type, object and revision (= the object's resourceVersion). */
function assertEvent(event: WatchEvent, type: WatchEvent['type'], object: KubeObject): void {
  assert.equal(event.type, type, `expected ${type} ${object.metadata.name}, got ${summary(event)}`);
  assert.deepEqual(event.object, object);
  assert.equal(event.revision, rv(object));
}

export const watchCases: ConformanceCase[] = [
  {
    name: 'watch: events arrive in order, with unique increasing revisions and the written objects',
    watch: true,
    async run(ctx) {
      const start = await ctx.storage.currentRevision();
      const reader = new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: String(start) }));
      try {
        const a = await ctx.storage.create(keyFor(ctx.prefix, 'a'), configMap('a', { v: '1' }));
        const b = await ctx.storage.create(keyFor(ctx.prefix, 'b'), configMap('b'));
        const a2 = await setData(ctx, 'a', { v: '2' });
        const deleted = await ctx.storage.delete(keyFor(ctx.prefix, 'b'));
        const c = await ctx.storage.create(keyFor(ctx.prefix, 'c', 'other'), configMap('c', {}, 'other'));
        const events = await reader.take(5);
        assertEvent(events[0]!, 'ADDED', a);
        assertEvent(events[1]!, 'ADDED', b);
        assertEvent(events[2]!, 'MODIFIED', a2);
        assertEvent(events[3]!, 'DELETED', deleted);
        assert.ok(rv(deleted) > rv(a2));
        assertEvent(events[4]!, 'ADDED', c);
        const revisions = events.map((e) => e.revision);
        for (let i = 1; i < revisions.length; i++) assert.ok(revisions[i]! > revisions[i - 1]!, `revisions not increasing: ${revisions.join(',')}`);
      } finally {
        reader.stop();
      }
    },
  },
  {
    name: 'watch: resumable from every revision — each watch sees exactly the later events',
    watch: true,
    async run(ctx) {
      const revisions = [await ctx.storage.currentRevision()];
      const written: Array<{ type: WatchEvent['type']; obj: KubeObject }> = [];
      const record = (type: WatchEvent['type'], obj: KubeObject) => {
        written.push({ type, obj });
        revisions.push(rv(obj));
      };
      record('ADDED', await ctx.storage.create(keyFor(ctx.prefix, 'x'), configMap('x')));
      record('ADDED', await ctx.storage.create(keyFor(ctx.prefix, 'y'), configMap('y')));
      record('MODIFIED', await setData(ctx, 'x', { n: '1' }));
      record('DELETED', await ctx.storage.delete(keyFor(ctx.prefix, 'y')));
      record('ADDED', await ctx.storage.create(keyFor(ctx.prefix, 'z'), configMap('z')));
      record('MODIFIED', await setData(ctx, 'x', { n: '2' }));

      const readers: EventReader[] = [];
      try {
        for (let i = 0; i < written.length; i++) {
          readers.push(new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: String(revisions[i]) })));
        }
        for (let i = 0; i < readers.length; i++) {
          const events = await readers[i]!.take(written.length - i);
          events.forEach((event, j) => assertEvent(event, written[i + j]!.type, written[i + j]!.obj));
        }
        // Nothing more than those: the next event of every watch is the next write.
        const sentinel = await ctx.storage.create(keyFor(ctx.prefix, 'sentinel'), configMap('sentinel'));
        for (const reader of readers) assertEvent(await reader.nextChange(), 'ADDED', sentinel);
      } finally {
        for (const reader of readers) reader.stop();
      }
    },
  },
  {
    name: 'watch: resourceVersion "0" or unset starts with ADDED for the current state, then changes',
    watch: true,
    async run(ctx) {
      const a = await ctx.storage.create(keyFor(ctx.prefix, 'a'), configMap('a'));
      const b = await ctx.storage.create(keyFor(ctx.prefix, 'b'), configMap('b'));
      const zero = new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: '0' }));
      const unset = new EventReader(await watcherOf(ctx).watch(collection(ctx)));
      try {
        for (const reader of [zero, unset]) {
          const [first, second] = await reader.take(2);
          assertEvent(first!, 'ADDED', a);
          assertEvent(second!, 'ADDED', b);
        }
        const a2 = await setData(ctx, 'a', { v: '2' });
        for (const reader of [zero, unset]) assertEvent(await reader.nextChange(), 'MODIFIED', a2);
      } finally {
        zero.stop();
        unset.stop();
      }
    },
  },
  {
    name: 'watch: sendInitialEvents=true sends the state, a BOOKMARK annotated k8s.io/initial-events-end, then changes',
    watch: true,
    async run(ctx) {
      const a = await ctx.storage.create(keyFor(ctx.prefix, 'a'), configMap('a'));
      const b = await ctx.storage.create(keyFor(ctx.prefix, 'b'), configMap('b'));
      await ctx.storage.create(`${ctx.prefix}/elsewhere/x`, configMap('x'));
      const before = await ctx.storage.currentRevision();
      const reader = new EventReader(
        await watcherOf(ctx).watch(collection(ctx), { resourceVersion: '', sendInitialEvents: true, allowBookmarks: true }),
      );
      const noBookmarks = new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: '0', sendInitialEvents: true }));
      try {
        const [first, second, end] = await reader.take(3);
        assertEvent(first!, 'ADDED', a);
        assertEvent(second!, 'ADDED', b);
        assert.equal(end!.type, 'BOOKMARK', `expected the initial-events-end BOOKMARK, got ${summary(end!)}`);
        const meta = (end!.object as KubeObject).metadata;
        assert.deepEqual(meta.annotations, { 'k8s.io/initial-events-end': 'true' });
        // RV "" is a consistent read: the bookmark is not older than etcd was when the watch began.
        assert.ok(Number(meta.resourceVersion) >= before, `bookmark at ${meta.resourceVersion}, watch began at ${before}`);
        assert.equal(end!.revision, Number(meta.resourceVersion));

        const [na, nb] = await noBookmarks.take(2);
        assertEvent(na!, 'ADDED', a);
        assertEvent(nb!, 'ADDED', b);

        const a2 = await setData(ctx, 'a', { v: '2' });
        const next = await reader.nextChange();
        assertEvent(next, 'MODIFIED', a2);
        assert.ok(next.revision > end!.revision);
        // Without allowBookmarks no bookmark is sent, not even the initial-events-end one.
        assertEvent(await noBookmarks.expectEvent(), 'MODIFIED', a2);
      } finally {
        reader.stop();
        noBookmarks.stop();
      }
    },
  },
  {
    name: 'watch: sendInitialEvents=false with resourceVersion "" or "0" sends only the changes after now',
    watch: true,
    async run(ctx) {
      await ctx.storage.create(keyFor(ctx.prefix, 'a'), configMap('a'));
      const readers = [
        new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: '', sendInitialEvents: false })),
        new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: '0', sendInitialEvents: false })),
      ];
      try {
        const b = await ctx.storage.create(keyFor(ctx.prefix, 'b'), configMap('b'));
        for (const reader of readers) {
          const event = await reader.nextChange();
          // A watch "from now" may start at any revision up to the write; it must not replay a.
          assert.notEqual((event.object as KubeObject).metadata.name, 'a', `replayed the current state: ${summary(event)}`);
          assertEvent(event, 'ADDED', b);
        }
      } finally {
        for (const reader of readers) reader.stop();
      }
    },
  },
  {
    name: 'watch: with allowBookmarks a quiet watch gets BOOKMARKs that follow the store revision; without it none',
    watch: true,
    async run(ctx) {
      const start = await ctx.storage.currentRevision();
      const withBookmarks = new EventReader(
        await watcherOf(ctx).watch(collection(ctx), { resourceVersion: String(start), allowBookmarks: true }),
      );
      const without = new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: String(start) }));
      try {
        // A write outside the watched prefix advances the store revision, not the watch's events.
        const elsewhere = await ctx.storage.create(`${ctx.prefix}/elsewhere/x`, configMap('x'));
        const deadline = Date.now() + 3 * ctx.bookmarkTimeoutMs;
        let bookmark: WatchEvent;
        do {
          bookmark = await withBookmarks.nextBookmark(Math.max(1, deadline - Date.now()));
          assert.deepEqual(Object.keys(bookmark.object), ['metadata']);
          assert.equal(bookmark.revision, Number((bookmark.object as KubeObject).metadata.resourceVersion));
          assert.equal((bookmark.object as KubeObject).metadata.annotations, undefined);
        } while (bookmark.revision < rv(elsewhere));

        const sentinel = await ctx.storage.create(keyFor(ctx.prefix, 'sentinel'), configMap('sentinel'));
        const change = await withBookmarks.nextChange();
        assertEvent(change, 'ADDED', sentinel);
        assert.ok(change.revision > bookmark.revision);
        // The watch without allowBookmarks was just as quiet, yet its first event is the write.
        assertEvent(await without.expectEvent(), 'ADDED', sentinel);
      } finally {
        withBookmarks.stop();
        without.stop();
      }
    },
  },
  {
    name: 'watch: a selector sees objects that start matching as ADDED and stop matching as DELETED',
    watch: true,
    async run(ctx) {
      const start = await ctx.storage.currentRevision();
      const reader = new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: String(start), predicate: appWeb }));
      try {
        const a = await ctx.storage.create(keyFor(ctx.prefix, 'a'), labelled('a', 'web'));
        await ctx.storage.create(keyFor(ctx.prefix, 'b'), labelled('b', 'db'));
        const b2 = await setLabel(ctx, 'b', 'web');
        const a2 = await setData(ctx, 'a', { v: '2' });
        const a3 = await setLabel(ctx, 'a', 'db');
        await setData(ctx, 'a', { v: '3' });
        const b3 = await ctx.storage.delete(keyFor(ctx.prefix, 'b'));
        await ctx.storage.delete(keyFor(ctx.prefix, 'a'));
        const sentinel = await ctx.storage.create(keyFor(ctx.prefix, 'z'), labelled('z', 'web'));

        assertEvent(await reader.nextChange(), 'ADDED', a);
        assertEvent(await reader.nextChange(), 'ADDED', b2);
        assertEvent(await reader.nextChange(), 'MODIFIED', a2);
        // Stops matching: DELETED with the previous (matching) state at the event's revision.
        const out = await reader.nextChange();
        assertEvent(out, 'DELETED', { ...a2, metadata: { ...a2.metadata, resourceVersion: a3.metadata.resourceVersion! } });
        assertEvent(await reader.nextChange(), 'DELETED', b3);
        // Changes to a non-matching object, and its deletion, are not sent.
        assertEvent(await reader.nextChange(), 'ADDED', sentinel);
      } finally {
        reader.stop();
      }
    },
  },
  {
    name: 'watch: recursive=false watches only the exact key; a prefix watch does not see sibling prefixes',
    watch: true,
    async run(ctx) {
      const key = keyFor(ctx.prefix, 'a');
      const start = await ctx.storage.currentRevision();
      const single = new EventReader(await watcherOf(ctx).watch(key, { resourceVersion: String(start), recursive: false }));
      const prefixed = new EventReader(await watcherOf(ctx).watch(`${ctx.prefix}/configmaps/default/a`, { resourceVersion: String(start) }));
      try {
        await ctx.storage.create(keyFor(ctx.prefix, 'ab'), configMap('ab'));
        const child = await ctx.storage.create(`${key}/child`, configMap('child'));
        const a = await ctx.storage.create(key, configMap('a'));
        const a2 = await setData(ctx, 'a', { v: '2' });
        const gone = await ctx.storage.delete(key);
        const again = await ctx.storage.create(key, configMap('a', { v: 'again' }));
        assertEvent(await single.expectEvent(), 'ADDED', a);
        assertEvent(await single.expectEvent(), 'MODIFIED', a2);
        assertEvent(await single.expectEvent(), 'DELETED', gone);
        assertEvent(await single.expectEvent(), 'ADDED', again);
        // The prefix ".../a" means ".../a/": only the child.
        assertEvent(await prefixed.nextChange(), 'ADDED', child);

        const initial = new EventReader(await watcherOf(ctx).watch(key, { resourceVersion: '0', recursive: false }));
        try {
          assertEvent(await initial.expectEvent(), 'ADDED', again);
          const last = await setData(ctx, 'a', { v: 'last' });
          assertEvent(await initial.nextChange(), 'MODIFIED', last);
        } finally {
          initial.stop();
        }
      } finally {
        single.stop();
        prefixed.stop();
      }
    },
  },
  {
    name: 'watch: a compacted resourceVersion gives one ERROR event (410 Expired), then the stream ends',
    watch: true,
    raw: true,
    async run(ctx) {
      const start = await ctx.storage.currentRevision();
      await ctx.storage.create(keyFor(ctx.prefix, 'a'), configMap('a'));
      await ctx.storage.create(keyFor(ctx.prefix, 'b'), configMap('b'));
      await setData(ctx, 'a', { v: '2' });
      await rawOf(ctx).compact(await rawOf(ctx).revision());
      const reader = new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: String(start) }));
      try {
        const event = await reader.expectEvent();
        assert.equal(event.type, 'ERROR', `expected ERROR, got ${summary(event)}`);
        const status = event.object as Status;
        // etcd-backed watches say the first; kube's watch cache says "too old resource version: N (M)".
        assert.match(status.message ?? '', /^(The resourceVersion for the provided watch is too old\.|too old resource version: \d+ \(\d+\))$/);
        assert.deepEqual({ ...status, message: '' }, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: '',
          reason: 'Expired',
          code: 410,
        });
        await reader.expectDone();
      } finally {
        reader.stop();
      }
    },
  },
  {
    name: 'watch: stop() and an aborted signal end the iterator, also while it waits',
    watch: true,
    async run(ctx) {
      const start = String(await ctx.storage.currentRevision());
      const stopped = new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: start }));
      const waiting = stopped.next(10_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      stopped.stop();
      assert.equal(await waiting, 'done');

      const controller = new AbortController();
      const aborted = new EventReader(await watcherOf(ctx).watch(collection(ctx), { resourceVersion: start, signal: controller.signal }));
      const first = await ctx.storage.create(keyFor(ctx.prefix, 'a'), configMap('a'));
      assertEvent(await aborted.expectEvent(), 'ADDED', first);
      controller.abort();
      await ctx.storage.create(keyFor(ctx.prefix, 'b'), configMap('b'));
      await aborted.expectDone();

      const preAborted = new EventReader(
        await watcherOf(ctx).watch(collection(ctx), { resourceVersion: '0', signal: AbortSignal.abort() }),
      );
      await preAborted.expectDone();

      // Breaking out of for-await stops the watch too.
      const looped = await watcherOf(ctx).watch(collection(ctx), { resourceVersion: start });
      for await (const event of looped) {
        assertEvent(event, 'ADDED', first);
        break;
      }
      const after = new EventReader(looped);
      await after.expectDone();
    },
  },
  {
    name: 'watch: a malformed resourceVersion is rejected with InvalidError before the stream starts',
    watch: true,
    async run(ctx) {
      await rejectsWith(watcherOf(ctx).watch(collection(ctx), { resourceVersion: 'abc' }), 'InvalidError');
      await rejectsWith(watcherOf(ctx).watch(collection(ctx), { resourceVersion: '-1' }), 'InvalidError');
    },
  },
];

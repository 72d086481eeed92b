/**
 * The garbage collector and its informers over a registry whose storage is the watch cache
 * (real etcd): it reacts to watch events (one list per monitor, never again while the watches
 * hold), builds its graph without the lease and acts only during a term, and an informer
 * resumes an ended watch from its last resourceVersion and lists again after an expiry.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Watch, WatchEvent } from '@kapi/storage';
import { startInformer, type Registry, type RestResource } from '@kapi/registry';
import { resource, startCachedRegistry, type CachedRegistry } from '@kapi/registry/testing';
import { startControllers } from './controller-manager.js';
import { garbageCollector } from './garbage-collector.js';

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

void describe('garbage collector over the watch cache', () => {
  let fixture: CachedRegistry;
  let registry: Registry;
  const ns = { namespace: 'default' };
  const configMaps = () => resource(registry, 'configmaps');
  const make = async (name: string, owner?: KubeObject): Promise<KubeObject> => {
    const ownerReferences = owner === undefined ? undefined : [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name!, uid: owner.metadata.uid! }];
    return configMaps().creater.create(ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(ownerReferences ? { ownerReferences } : {}) } }, {});
  };
  const exists = async (name: string): Promise<boolean> => {
    try {
      await configMaps().getter.get(ns, name, {});
      return true;
    } catch {
      return false;
    }
  };

  before(async () => {
    fixture = await startCachedRegistry('gc-test');
    registry = fixture.registry;
  });
  after(async () => fixture.close());

  void it('collects dependents from watch events: each monitor lists once, never again', async () => {
    const gc = garbageCollector(registry);
    const controllers = startControllers(registry, [
      { name: 'garbage-collector-controller', owner: 'kube-controller-manager', leaderElected: true, synced: () => gc.synced(), run: (term) => gc.run(term), stop: () => gc.stop() },
    ], { leaderElection: false });
    try {
      assert.equal(controllers.synced(), false, 'not synced before the first lists (readyz informer-sync fails)');
      await until('the informers to sync', () => controllers.synced());
      const listsAtSync = gc.lists();
      for (let i = 0; i < 10; i++) {
        const owner = await make(`owner-${i}`);
        await make(`dep-${i}`, owner);
        await configMaps().deleter.delete(ns, `owner-${i}`, {});
      }
      for (let i = 0; i < 10; i++) await until(`dep-${i} to go`, async () => !(await exists(`dep-${i}`)));
      // No poll and no relist: only the events of the watches opened after the first lists.
      assert.equal(gc.lists(), listsAtSync);
    } finally {
      await controllers.stop();
    }
  });

  void it('builds its graph without the lease; deletes only during a term', async () => {
    const gc = garbageCollector(registry);
    try {
      await until('the monitors to sync', () => gc.synced());
      const owner = await make('term-owner');
      const dep = await make('term-dep', owner);
      await configMaps().deleter.delete(ns, 'term-owner', {});
      // The graph saw the owner go (its node is gone, the dependent's is there) …
      await until('the graph to see the deletion', () => !gc.graph.nodes.has(owner.metadata.uid!) || gc.graph.nodes.get(owner.metadata.uid!)!.virtual);
      assert.ok(gc.graph.nodes.has(dep.metadata.uid!));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(await exists('term-dep'), 'no deletion without a term');
      // … and acts once a term starts.
      const term = new AbortController();
      const running = gc.run(term.signal);
      await until('term-dep to go', async () => !(await exists('term-dep')));
      term.abort();
      await running;
      const owner2 = await make('term-owner-2');
      await make('term-dep-2', owner2);
      await configMaps().deleter.delete(ns, 'term-owner-2', {});
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok(await exists('term-dep-2'), 'the term ended: nothing deleted');
      const next = new AbortController();
      const again = gc.run(next.signal);
      await until('term-dep-2 to go in the next term', async () => !(await exists('term-dep-2')));
      next.abort();
      await again;
    } finally {
      await gc.stop();
    }
  });

  void it('an informer resumes an ended watch from its last resourceVersion and lists again after 410 Expired', async () => {
    // Fault plan per watch call: the 1st ends after its first event, the 2nd fails with 410 once the gate opens, later ones pass.
    const plan: Array<'end-after-one' | 'expire'> = ['end-after-one', 'expire'];
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const real = configMaps();
    const watchedFrom: string[] = [];
    const faulty: RestResource = {
      ...real,
      watcher: {
        async watch(ctx, options): Promise<Watch> {
          watchedFrom.push(options.resourceVersion ?? '');
          const mode = plan.shift();
          if (mode === 'expire') {
            const expired: WatchEvent = { type: 'ERROR', object: { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 }, revision: 0 };
            return {
              stop: () => undefined,
              async *[Symbol.asyncIterator]() {
                await gate;
                yield expired;
              },
            };
          }
          const inner = await real.watcher.watch(ctx, options);
          if (mode === undefined) return inner;
          return {
            stop: () => inner.stop(),
            async *[Symbol.asyncIterator]() {
              for await (const event of inner) {
                yield event;
                if (event.type !== 'BOOKMARK') return;
              }
            },
          };
        },
      },
    };
    const seen = new Map<string, string>();
    const informer = startInformer(
      faulty,
      {
        onList(items) {
          const names = new Set(items.filter((i) => i.metadata.namespace === 'default').map((i) => i.metadata.name!));
          for (const name of [...seen.keys()]) if (!names.has(name)) seen.delete(name);
          for (const name of names) seen.set(name, 'listed');
        },
        onEvent(type, obj) {
          if (obj.metadata.namespace !== 'default') return;
          if (type === 'DELETED') seen.delete(obj.metadata.name!);
          else seen.set(obj.metadata.name!, type);
        },
      },
      { userAgent: 'test', retryDelayMs: 20 },
    );
    try {
      await until('the first list', () => informer.synced());
      assert.equal(informer.lists, 1);
      const a = await make('resume-a');
      await until('resume-a seen', () => seen.get('resume-a') === 'ADDED');
      // The first watch ended after that event: the second starts from its resourceVersion, without a list.
      await until('a second watch', () => watchedFrom.length >= 2);
      assert.equal(watchedFrom[1], a.metadata.resourceVersion);
      assert.equal(informer.lists, 1, 'resumed without listing');
      // While the second watch is stuck, resume-a goes and resume-b comes; then it expires (410).
      await configMaps().deleter.delete(ns, 'resume-a', {});
      await make('resume-b');
      assert.ok(seen.has('resume-a'), 'the stuck watch delivered nothing');
      openGate();
      await until('a relist', () => informer.lists === 2);
      assert.equal(watchedFrom.length >= 3 ? watchedFrom[2] !== a.metadata.resourceVersion : true, true);
      await until('resume-b listed and resume-a gone', () => seen.has('resume-b') && !seen.has('resume-a'));
    } finally {
      await informer.stop();
    }
  });
});

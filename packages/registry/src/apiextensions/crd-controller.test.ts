/**
 * The CRD controller over a registry whose storage is the watch cache (real etcd), as the
 * server runs it: `synced` waits for the first list's reconciles, a watch that ends is
 * resumed without a relist, a relist after 410 Expired withdraws CRDs that went meanwhile,
 * one CRD's reconciles never overlap, CRDs that claim the same names are told apart even
 * when the controller lists them before any status was written (and their events come
 * late: its own writes count at once, as kube's mutation cache), and a CRD whose custom
 * resources are held by finalizers of their own is finalized once those go.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { createEtcdStorage, type Watch, type WatchEvent } from '@kapi/storage';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { createWatchCache, type WatchCache } from '@kapi/watch-cache';
import { builtinDefinitions } from '../builtin/index.js';
import { createRegistry, type Registry } from '../registry.js';
import type { RestResource, Updater } from '../rest.js';
import { resource } from '../testing/registry-fixture.js';
import { startCrdController, type CrdController, type CrdControllerOptions } from './crd-controller.js';
import { customResourceDefinitions } from './crd-resource.js';
import { APIEXTENSIONS_GROUP, CLEANUP_FINALIZER, findCondition, type CustomResourceDefinition } from './crd-types.js';

const CLUSTER = { namespace: '' };
const GROUP = 'example.com';

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

function crdBody(plural: string, kind: string, versions: readonly string[] = ['v1'], singular = plural.replace(/s$/, '')): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular, kind },
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
    },
  };
}

interface Setup {
  registry: Registry;
  crds: ReturnType<typeof resource>;
  get(name: string): Promise<CustomResourceDefinition | undefined>;
  /** Starts a controller; `store` replaces the CRD store the controller sees (fault injection). */
  start(options?: CrdControllerOptions, store?: (real: RestResource) => RestResource): CrdController;
  close(): Promise<void>;
}

void describe('CRD controller over the watch cache', () => {
  let etcd: TestEtcd;

  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.stop();
  });

  /** A registry on a fresh prefix over its own watch cache (CRDs included, custom resources added as they are served, as the server does). */
  async function setup(): Promise<Setup> {
    const prefix = uniquePrefix('crd-controller');
    const definitions = [...builtinDefinitions, customResourceDefinitions];
    const cacheEntry = (d: { group: string; plural: string; storagePrefix?: string }) => ({ prefix: `${prefix}/${d.storagePrefix ?? d.plural}`, group: d.group, resource: d.plural });
    // The cache owns its backend (its close() closes it).
    const cache: WatchCache = createWatchCache(createEtcdStorage({ endpoints: etcd.endpoints }), { resources: definitions.map(cacheEntry) });
    const registry = createRegistry({ storage: cache, prefix, definitions });
    await registry.ensureSystemNamespaces();
    const crds = resource(registry, 'customresourcedefinitions', APIEXTENSIONS_GROUP);
    const controllers: CrdController[] = [];
    return {
      registry,
      crds,
      async get(name) {
        try {
          return (await crds.getter.get(CLUSTER, name, {})) as CustomResourceDefinition;
        } catch {
          return undefined;
        }
      },
      start(options = {}, store) {
        const seen: Registry =
          store === undefined
            ? registry
            : {
                get resources() {
                  return registry.resources;
                },
                serviceNetwork: registry.serviceNetwork,
                lookup: (g, v, p) => {
                  const found = registry.lookup(g, v, p);
                  return found !== undefined && g === APIEXTENSIONS_GROUP && p === 'customresourcedefinitions' ? store(found) : found;
                },
                register: (d) => registry.register(d),
                unregister: (g, p) => registry.unregister(g, p),
                subscribe: (l) => registry.subscribe(l),
                ensureSystemNamespaces: () => registry.ensureSystemNamespaces(),
              };
        const controller = startCrdController(seen, { beforeRegister: (d) => cache.addResource(cacheEntry(d)), cleanupRetryMs: 50, ...options });
        controllers.push(controller);
        return controller;
      },
      async close() {
        await Promise.all(controllers.map((c) => c.stop()));
        await cache.close();
      },
    };
  }

  const served = (registry: Registry, plural: string, version = 'v1') => registry.lookup(GROUP, version, plural) !== undefined;

  void it('synced() resolves only after the first list was reconciled: stored CRDs are served and their status written', async () => {
    const s = await setup();
    try {
      await s.crds.creater.create(CLUSTER, crdBody('apples', 'Apple'), {});
      await s.crds.creater.create(CLUSTER, crdBody('pears', 'Pear'), {});
      // Hold every status write until the gate opens.
      let openGate: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      let held = 0;
      const controller = s.start({}, (real) => {
        const status = real.subresources!.get('status')!;
        const updater: Updater = {
          async update(ctx, name, body, options) {
            held++;
            await gate;
            return status.updater!.update(ctx, name, body, options);
          },
        };
        return { ...real, subresources: new Map([...real.subresources!, ['status', { ...status, updater }]]) };
      });
      let resolved = false;
      void controller.synced().then(() => (resolved = true));
      await until('a status write to be held', () => held >= 1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(controller.hasSynced, false, 'not synced while the first list is being reconciled');
      assert.equal(resolved, false);
      openGate();
      await controller.synced();
      assert.equal(controller.hasSynced, true);
      // Both are served the moment synced resolves, with Established written.
      assert.ok(served(s.registry, 'apples') && served(s.registry, 'pears'));
      for (const name of ['apples', 'pears']) {
        assert.equal(findCondition((await s.get(`${name}.${GROUP}`))!, 'Established')?.status, 'True', `${name} established`);
      }
    } finally {
      await s.close();
    }
  });

  void it('an empty first list syncs at once; stop() while lists fail resolves synced() without marking it', async () => {
    const s = await setup();
    try {
      const controller = s.start();
      await controller.synced();
      assert.equal(controller.hasSynced, true);
      // A controller whose lists fail (etcd unreachable): stop() still releases whoever waits on synced().
      let attempts = 0;
      const reported: unknown[] = [];
      const stuck = s.start({ relistDelayMs: 10, onError: (err) => reported.push(err) }, (real) => ({
        ...real,
        lister: {
          list: () => {
            attempts++;
            return Promise.reject(new Error('unreachable'));
          },
        },
      }));
      await until('a few list attempts', () => attempts >= 2);
      const waiting = stuck.synced();
      await stuck.stop();
      await waiting;
      assert.equal(stuck.hasSynced, false);
      assert.ok(reported.length >= 1 && reported.every((e) => e instanceof Error && e.message === 'unreachable'), 'failed lists are reported');
    } finally {
      await s.close();
    }
  });

  for (const late of [false, true]) {
    const when = late ? ', with the watch events late (after both status writes)' : '';
    void it(`CRDs listed before any status was written that claim the same kind: the first is accepted, the second refused${when}`, async () => {
      const s = await setup();
      try {
        // Both stored before the controller runs, so its first list holds neither's acceptedNames.
        await s.crds.creater.create(CLUSTER, crdBody('alphas', 'Thing'), {});
        await s.crds.creater.create(CLUSTER, crdBody('betas', 'Thing'), {});
        const settled = async () => {
          const [a, b] = [await s.get(`alphas.${GROUP}`), await s.get(`betas.${GROUP}`)];
          return findCondition(a!, 'NamesAccepted') !== undefined && findCondition(b!, 'NamesAccepted') !== undefined;
        };
        // Late: the watch delivers nothing until both have a status, so the second reconcile
        // cannot learn the first one's accepted names from its event (only from the write).
        let release: () => void = () => undefined;
        const released = new Promise<void>((resolve) => (release = resolve));
        const controller = s.start(
          {},
          late
            ? (real) => ({
                ...real,
                watcher: {
                  async watch(ctx, options): Promise<Watch> {
                    const inner = await real.watcher!.watch(ctx, options);
                    return {
                      stop: () => inner.stop(),
                      async *[Symbol.asyncIterator]() {
                        await released;
                        yield* inner;
                      },
                    };
                  },
                },
              })
            : undefined,
        );
        await controller.synced();
        await until('both to have NamesAccepted', settled);
        release();
        // Let the follow-up events (each CRD's own status write) be reconciled too.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const a = (await s.get(`alphas.${GROUP}`))!;
        const b = (await s.get(`betas.${GROUP}`))!;
        assert.equal(findCondition(a, 'NamesAccepted')?.status, 'True');
        assert.equal(findCondition(a, 'Established')?.status, 'True');
        assert.deepEqual(a.status?.acceptedNames?.kind, 'Thing');
        assert.deepEqual(
          [findCondition(b, 'NamesAccepted')?.status, findCondition(b, 'NamesAccepted')?.reason, findCondition(b, 'NamesAccepted')?.message],
          ['False', 'KindConflict', '"Thing" is already in use'],
        );
        assert.equal(findCondition(b, 'Established')?.status, 'False');
        assert.ok(served(s.registry, 'alphas'));
        assert.ok(!served(s.registry, 'betas'), 'the refused CRD is not served');
      } finally {
        await s.close();
      }
    });
  }

  void it('a watch that ends is resumed from its last resourceVersion, without listing again', async () => {
    const s = await setup();
    try {
      let lists = 0;
      const listedAt: string[] = [];
      const watchedFrom: string[] = [];
      // The first watch ends after its first event; later ones pass through.
      let endAfterOne = true;
      const controller = s.start({ relistDelayMs: 20 }, (real) => ({
        ...real,
        lister: {
          list(ctx, options) {
            lists++;
            listedAt.push(options.resourceVersion ?? '');
            return real.lister!.list(ctx, options);
          },
        },
        watcher: {
          async watch(ctx, options): Promise<Watch> {
            watchedFrom.push(options.resourceVersion ?? '');
            const inner = await real.watcher!.watch(ctx, options);
            if (!endAfterOne) return inner;
            endAfterOne = false;
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
      }));
      await controller.synced();
      assert.deepEqual(listedAt, [''], 'one list, consistent (everything stored before the start is in it)');
      await s.crds.creater.create(CLUSTER, crdBody('figs', 'Fig'), {});
      await until('figs served', () => served(s.registry, 'figs'));
      await until('a second watch', () => watchedFrom.length >= 2);
      assert.notEqual(watchedFrom[1], watchedFrom[0], 'resumed from a later resourceVersion');
      // The resumed watch carries the rest: the controller's own status write, then a new CRD.
      await s.crds.creater.create(CLUSTER, crdBody('kiwis', 'Kiwi'), {});
      await until('kiwis served', () => served(s.registry, 'kiwis'));
      await until('kiwis established', async () => findCondition((await s.get(`kiwis.${GROUP}`))!, 'Established')?.status === 'True');
      assert.equal(lists, 1, 'no relist after the watch ended');
      assert.equal(watchedFrom.length, 2);
    } finally {
      await s.close();
    }
  });

  void it('after 410 Expired it lists again: a CRD that went meanwhile is withdrawn, one that came is served', async () => {
    const s = await setup();
    try {
      // Watch calls: the 2nd is stuck until the gate opens, then answers 410; the others pass.
      let calls = 0;
      let openGate: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      let lists = 0;
      let endFirst: () => void = () => undefined;
      const controller = s.start({ relistDelayMs: 20 }, (real) => ({
        ...real,
        lister: {
          list(ctx, options) {
            lists++;
            return real.lister!.list(ctx, options);
          },
        },
        watcher: {
          async watch(ctx, options): Promise<Watch> {
            calls++;
            if (calls === 2) {
              const expired: WatchEvent = { type: 'ERROR', object: { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 } as KubeObject, revision: 0 };
              return {
                stop: () => undefined,
                async *[Symbol.asyncIterator]() {
                  await gate;
                  yield expired;
                },
              };
            }
            const inner = await real.watcher!.watch(ctx, options);
            if (calls !== 1) return inner;
            const ended = new Promise<'end'>((resolve) => (endFirst = () => resolve('end')));
            return {
              stop: () => inner.stop(),
              async *[Symbol.asyncIterator]() {
                const it = inner[Symbol.asyncIterator]();
                for (;;) {
                  const next = await Promise.race([it.next(), ended]);
                  if (next === 'end' || next.done === true) return;
                  yield next.value;
                }
              },
            };
          },
        },
      }));
      await s.crds.creater.create(CLUSTER, crdBody('limes', 'Lime'), {});
      await controller.synced();
      await until('limes served', () => served(s.registry, 'limes'));
      await until('limes established', async () => findCondition((await s.get(`limes.${GROUP}`))!, 'Established')?.status === 'True');
      assert.equal(lists, 1);
      // The first watch ends; the second is stuck: the controller sees nothing of what follows.
      endFirst();
      await until('the stuck watch', () => calls >= 2);
      const limes = `limes.${GROUP}`;
      await s.crds.deleter.delete(CLUSTER, limes, {});
      const terminating = (await s.get(limes))!;
      await s.crds.updater.update(CLUSTER, limes, { ...terminating, metadata: { ...terminating.metadata, finalizers: terminating.metadata.finalizers!.filter((f) => f !== CLEANUP_FINALIZER) } }, {});
      assert.equal(await s.get(limes), undefined, 'limes is gone from storage');
      await s.crds.creater.create(CLUSTER, crdBody('melons', 'Melon'), {});
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(served(s.registry, 'limes') && !served(s.registry, 'melons'), 'nothing seen while the watch is stuck');
      openGate();
      await until('a relist', () => lists === 2);
      await until('limes withdrawn', () => !served(s.registry, 'limes'));
      await until('melons served', () => served(s.registry, 'melons'));
    } finally {
      await s.close();
    }
  });

  void it("one CRD's reconciles never overlap, and the latest spec wins", async () => {
    const s = await setup();
    try {
      let inFlight = 0;
      let maxInFlight = 0;
      const controller = s.start({}, (real) => {
        const status = real.subresources!.get('status')!;
        const updater: Updater = {
          async update(ctx, name, body, options) {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            try {
              await new Promise((resolve) => setTimeout(resolve, 30));
              return await status.updater!.update(ctx, name, body, options);
            } finally {
              inFlight--;
            }
          },
        };
        return { ...real, subresources: new Map([...real.subresources!, ['status', { ...status, updater }]]) };
      });
      await controller.synced();
      const name = `plums.${GROUP}`;
      await s.crds.creater.create(CLUSTER, crdBody('plums', 'Plum'), {});
      // Spec updates while status writes are slow: each one is an event for the same CRD.
      for (let n = 2; n <= 4; n++) {
        for (;;) {
          const current = (await s.get(name))!;
          const versions = ['v1', ...Array.from({ length: n - 1 }, (_, i) => `v${i + 2}`)];
          const body = crdBody('plums', 'Plum', versions);
          try {
            await s.crds.updater.update(CLUSTER, name, { ...current, spec: body['spec'] }, {});
            break;
          } catch {
            // a status write came in between: read again
          }
        }
      }
      await until('the last version served', () => served(s.registry, 'plums', 'v4'));
      assert.equal(maxInFlight, 1, 'never two status writes at once');
    } finally {
      await s.close();
    }
  });

  void it('a CRD whose custom resources hold finalizers of their own goes once those are removed', async () => {
    const s = await setup();
    try {
      const controller = s.start();
      await controller.synced();
      const name = `cherries.${GROUP}`;
      await s.crds.creater.create(CLUSTER, crdBody('cherries', 'Cherry'), {});
      await until('cherries served', () => served(s.registry, 'cherries'));
      const cherries = resource(s.registry, 'cherries', GROUP);
      const ns = { namespace: 'default' };
      await cherries.creater.create(ns, { apiVersion: `${GROUP}/v1`, kind: 'Cherry', metadata: { name: 'held', finalizers: ['example.com/hold'] } }, {});
      await cherries.creater.create(ns, { apiVersion: `${GROUP}/v1`, kind: 'Cherry', metadata: { name: 'free' } }, {});
      await s.crds.deleter.delete(CLUSTER, name, {});
      await until('free deleted and held terminating', async () => {
        const items = (await cherries.lister.list(ns, {})).items;
        return items.length === 1 && items[0]!.metadata.deletionTimestamp !== undefined;
      });
      const crd = (await s.get(name))!;
      assert.equal(findCondition(crd, 'Terminating')?.reason, 'InstanceDeletionInProgress');
      // Removing the last finalizer makes no CRD event: the controller's retry finishes the job.
      const held = await cherries.getter.get(ns, 'held', {});
      await cherries.updater.update(ns, 'held', { ...held, metadata: { ...held.metadata, finalizers: [] } }, {});
      await until('the CRD to go', async () => (await s.get(name)) === undefined);
      await until('cherries withdrawn', () => !served(s.registry, 'cherries'));
    } finally {
      await s.close();
    }
  });
});

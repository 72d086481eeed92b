import { after, before, describe, test } from 'node:test';
import type { Storage } from '../interface.js';
import type { ConformanceCase, ConformanceContext } from './context.js';
import type { RawStore } from './raw-store.js';
import { createAndGetCases } from './create-get-cases.js';
import { listCases } from './list-cases.js';
import { guaranteedUpdateCases } from './guaranteed-update-cases.js';
import { deleteCases } from './delete-cases.js';
import { compactionCases } from './compaction-cases.js';
import { watchCases } from './watch-cases.js';
import type { Watcher } from '../interface.js';

/** What a backend's test file provides: a storage, a key prefix it owns, and cleanup. */
export interface ConformanceSetup {
  storage: Storage;
  /** A prefix no one else writes under ("/" first, no trailing "/"); each case uses a sub-prefix. */
  prefix: string;
  /** Direct access to the backing store; without it the cases that need it are skipped. */
  raw?: RawStore;
  /**
   * How long the bookmark cases wait for a BOOKMARK on a quiet watch with allowBookmarks
   * (default 5000 ms). Over etcd, start it with a short progress-notify interval
   * (`startEtcd({ watchProgressNotifyIntervalMs: 250 })`), or quiet watches get no bookmark
   * for 10 minutes.
   */
  bookmarkTimeoutMs?: number;
  cleanup(): Promise<void>;
}

export interface ConformanceOptions {
  /** Cases this backend does not pass, by exact name, each with the reason. */
  skips?: Record<string, string>;
}

/** Every case, in the order they run. */
export const conformanceCases: readonly ConformanceCase[] = [
  ...createAndGetCases,
  ...listCases,
  ...guaranteedUpdateCases,
  ...deleteCases,
  ...compactionCases,
  ...watchCases,
];

/**
 * Registers the storage conformance suite as node:test tests under `describe(name)`. `setup`
 * runs once before the cases and `cleanup` once after; each case gets its own sub-prefix.
 * Cases that need raw store access or a watch skip themselves (with that reason) when the
 * setup offers no raw store or the storage does not implement `Watcher`.
 * Cases run one at a time (some compare store revisions, and compaction affects the whole
 * store). A skip naming no case throws, so skips cannot silently go stale.
 */
export function runStorageConformance(
  name: string,
  setup: () => Promise<ConformanceSetup>,
  options: ConformanceOptions = {},
): void {
  const skips = options.skips ?? {};
  const known = new Set(conformanceCases.map((c) => c.name));
  for (const skipped of Object.keys(skips)) {
    if (!known.has(skipped)) throw new Error(`conformance skip names no case: ${JSON.stringify(skipped)}`);
  }

  void describe(`storage conformance: ${name}`, { concurrency: false }, () => {
    let env: ConformanceSetup | undefined;
    let counter = 0;
    before(async () => {
      env = await setup();
    });
    after(async () => {
      await env?.cleanup();
    });

    for (const c of conformanceCases) {
      const reason = skips[c.name];
      void test(c.name, reason !== undefined ? { skip: reason } : {}, async (t) => {
        if (!env) throw new Error('conformance setup failed');
        if (c.raw && !env.raw) {
          t.skip('the backend offers no raw store access');
          return;
        }
        const watcher = asWatcher(env.storage);
        if (c.watch && !watcher) {
          t.skip('the storage does not implement Watcher (no watch method)');
          return;
        }
        const ctx: ConformanceContext = {
          storage: env.storage,
          prefix: `${env.prefix}/case-${++counter}`,
          bookmarkTimeoutMs: env.bookmarkTimeoutMs ?? 5000,
        };
        if (env.raw) ctx.raw = env.raw;
        if (watcher) ctx.watcher = watcher;
        await c.run(ctx);
      });
    }
  });
}

function asWatcher(storage: Storage): Watcher | undefined {
  const candidate = storage as Storage & Partial<Watcher>;
  return typeof candidate.watch === 'function' ? (candidate as Storage & Watcher) : undefined;
}

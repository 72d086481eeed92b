/**
 * The controllers kapi runs itself (kube-controller-manager's part of the lifecycle): they
 * run in every replica but act only in the one holding the leader Lease.
 */
import type { Registry } from '../registry.js';
import { sleep, startLeaderElection, type LeaderElectionOptions, type LeaderElector } from './leader-election.js';
import { garbageCollector } from './garbage-collector.js';
import { namespaceController } from './namespace-controller.js';

export { startLeaderElection, microTime, type LeaderElectionOptions, type LeaderElector } from './leader-election.js';
export { namespaceController, type NamespaceController } from './namespace-controller.js';
export { garbageCollector, type GarbageCollector } from './garbage-collector.js';

export interface ControllerOptions {
  readonly leaderElection?: LeaderElectionOptions;
  /** How often the namespace controller looks for terminating namespaces; default 1000 ms. */
  readonly namespaceResyncMs?: number;
  /** How often the garbage collector makes a pass (it lists every resource); default 5000 ms; false = no garbage collector. */
  readonly garbageCollectorResyncMs?: number | false;
}

export interface RunningControllers {
  readonly elector: LeaderElector;
  /** Stops acting, releases the lease, and resolves once the loops have ended. */
  stop(): Promise<void>;
}

export function startControllers(registry: Registry, options: ControllerOptions = {}): RunningControllers {
  const elector = startLeaderElection(registry, options.leaderElection);
  const namespaces = namespaceController(registry);
  const collector = options.garbageCollectorResyncMs === false ? undefined : garbageCollector(registry);
  const gcEveryMs = options.garbageCollectorResyncMs === false ? Infinity : (options.garbageCollectorResyncMs ?? 5000);
  let lastGc = 0;
  const resyncMs = options.namespaceResyncMs ?? 1000;
  let stopped = false;
  const loop = (async () => {
    for (;;) {
      const term = await elector.nextTerm();
      if (term === undefined || stopped) return;
      while (!term.aborted) {
        try {
          await namespaces.syncAll(term);
        } catch {
          // retried on the next resync
        }
        if (collector !== undefined && Date.now() - lastGc >= gcEveryMs) {
          lastGc = Date.now();
          try {
            await collector.sync(term);
          } catch {
            // retried on the next resync
          }
        }
        await sleep(resyncMs, term);
      }
    }
  })();
  return {
    elector,
    async stop(): Promise<void> {
      stopped = true;
      await elector.stop();
      await loop;
    },
  };
}

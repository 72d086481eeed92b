/**
 * The controllers kapi runs itself (kube-controller-manager's part of the lifecycle): they
 * run in every replica but act only in the one holding the leader Lease.
 */
import type { Registry } from '../registry.js';
import { startLeaderElection, type LeaderElectionOptions, type LeaderElector } from './leader-election.js';
import { namespaceController } from './namespace-controller.js';

export { startLeaderElection, microTime, type LeaderElectionOptions, type LeaderElector } from './leader-election.js';
export { namespaceController, type NamespaceController } from './namespace-controller.js';

export interface ControllerOptions {
  readonly leaderElection?: LeaderElectionOptions;
  /** How often the namespace controller looks for terminating namespaces; default 1000 ms. */
  readonly namespaceResyncMs?: number;
}

export interface RunningControllers {
  readonly elector: LeaderElector;
  /** Stops acting, releases the lease, and resolves once the loops have ended. */
  stop(): Promise<void>;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

export function startControllers(registry: Registry, options: ControllerOptions = {}): RunningControllers {
  const elector = startLeaderElection(registry, options.leaderElection);
  const namespaces = namespaceController(registry);
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

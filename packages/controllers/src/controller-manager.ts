/**
 * The controllers kapi runs itself (kube-controller-manager's part of the lifecycle): their
 * informers and the garbage collector's graph run in every replica (so a new leader starts
 * with them warm), but they act only in the one holding the leader Lease, for as long as
 * its term lasts.
 */
import type { Registry } from '@kapi/registry';
import { startLeaderElection, type LeaderElectionOptions, type LeaderElector } from './leader-election.js';
import { garbageCollector, type GarbageCollector, type GarbageCollectorOptions } from './garbage-collector.js';
import { namespaceController, type NamespaceController } from './namespace-controller.js';

export { startLeaderElection, microTime, type LeaderElectionOptions, type LeaderElector } from './leader-election.js';
export { namespaceController, type NamespaceController, type NamespaceControllerOptions } from './namespace-controller.js';
export { garbageCollector, type GarbageCollector, type GarbageCollectorOptions } from './garbage-collector.js';

/** A controller that acts only while this replica leads (see startControllers). */
export interface TermController {
  /** True once its informers have made their first lists. */
  synced(): boolean;
  /** Acts until `term` aborts; resolves when it stopped acting. */
  run(term: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

export interface ControllerOptions {
  /** false: no leader election, this replica always acts (kube's --leader-elect=false). */
  readonly leaderElection?: LeaderElectionOptions | false;
  /** When a terminating namespace with content left is looked at again; default 1000 ms. */
  readonly namespaceResyncMs?: number;
  /** The garbage collector's options; false = no garbage collector. */
  readonly garbageCollector?: GarbageCollectorOptions | false;
  /** More controllers run in the leader's terms (the apiserver's service account controllers). */
  readonly additional?: readonly TermController[];
}

export interface RunningControllers {
  /** undefined with leader election off. */
  readonly elector: LeaderElector | undefined;
  readonly garbageCollector: GarbageCollector | undefined;
  readonly namespaces: NamespaceController;
  /** True once every informer (namespaces, every garbage-collector monitor) has made its first list. */
  synced(): boolean;
  /** Stops acting, releases the lease, and resolves once the loops have ended. */
  stop(): Promise<void>;
}

/** A leader elector for a replica that always leads (one term until stop). */
function alwaysLeader(): LeaderElector {
  const term = new AbortController();
  let stopped = false;
  return {
    identity: 'leader-election-disabled',
    isLeader: () => !stopped,
    nextTerm: () => Promise.resolve(stopped ? undefined : term.signal),
    stop: () => {
      stopped = true;
      term.abort();
      return Promise.resolve();
    },
  };
}

export function startControllers(registry: Registry, options: ControllerOptions = {}): RunningControllers {
  const namespaces = namespaceController(registry, { resyncMs: options.namespaceResyncMs ?? 1000 });
  const collector = options.garbageCollector === false ? undefined : garbageCollector(registry, options.garbageCollector ?? {});
  const additional = options.additional ?? [];
  const elector = options.leaderElection === false ? alwaysLeader() : startLeaderElection(registry, options.leaderElection);
  const loop = (async () => {
    for (;;) {
      const term = await elector.nextTerm();
      if (term === undefined) return;
      await Promise.all([namespaces.run(term), collector?.run(term), ...additional.map((c) => c.run(term))]);
    }
  })();
  return {
    elector: options.leaderElection === false ? undefined : elector,
    garbageCollector: collector,
    namespaces,
    synced: () => namespaces.synced() && (collector?.synced() ?? true) && additional.every((c) => c.synced()),
    async stop(): Promise<void> {
      await elector.stop();
      await loop;
      await Promise.all([namespaces.stop(), collector?.stop(), ...additional.map((c) => c.stop())]);
    },
  };
}
export {
  startKubernetesServiceController,
  type KubernetesServiceController,
  type KubernetesServiceOptions,
  type MasterLeases,
} from './kubernetes-service.js';

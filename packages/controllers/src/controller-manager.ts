/**
 * Runs kapi's controllers: the leader-elected ones act only in the terms this replica holds
 * the leader Lease (their informers, and the garbage collector's graph, run in every replica
 * so that a new leader starts with them warm); the others act from start to stop. No
 * leader-elected controller, no leader election (no Lease is written).
 */
import { setMaxListeners } from 'node:events';
import type { Registry } from '@kapi/registry';
import type { Controller } from './controller.js';
import { startLeaderElection, type LeaderElectionOptions, type LeaderElector } from './leader-election.js';

export interface ControllerManagerOptions {
  /** false: no leader election, this replica always leads (kube's --leader-elect=false). */
  readonly leaderElection?: LeaderElectionOptions | false;
}

export interface RunningControllers {
  /** undefined with leader election off, or with no leader-elected controller. */
  readonly elector: LeaderElector | undefined;
  /** The names of the controllers running, in the order given. */
  readonly names: readonly string[];
  /** The running controller of that name. */
  get(name: string): Controller | undefined;
  /** True once every controller's informers have made their first lists. */
  synced(): boolean;
  /** Stops acting, releases the lease, and resolves once every controller has stopped. */
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

export function startControllers(registry: Registry, controllers: readonly Controller[], options: ControllerManagerOptions = {}): RunningControllers {
  const elected = controllers.filter((c) => c.leaderElected);
  const everyReplica = controllers.filter((c) => !c.leaderElected);
  const lifetime = new AbortController();
  const campaigning = elected.length > 0 && options.leaderElection !== false;
  const elector = elected.length === 0 ? undefined : campaigning ? startLeaderElection(registry, options.leaderElection || undefined) : alwaysLeader();
  const terms = (async () => {
    for (;;) {
      const term = await elector?.nextTerm();
      if (term === undefined) return;
      // Every controller of the term waits on it (a few listeners each): not a leak.
      setMaxListeners(Math.max(10, 4 * elected.length), term);
      await Promise.all(elected.map((c) => c.run(term)));
    }
  })();
  const always = Promise.all(everyReplica.map((c) => c.run(lifetime.signal)));
  return {
    elector: campaigning ? elector : undefined,
    names: controllers.map((c) => c.name),
    get: (name) => controllers.find((c) => c.name === name),
    synced: () => controllers.every((c) => c.synced()),
    async stop(): Promise<void> {
      lifetime.abort();
      await elector?.stop();
      await Promise.all([terms, always]);
      await Promise.all(controllers.map((c) => c.stop()));
    },
  };
}

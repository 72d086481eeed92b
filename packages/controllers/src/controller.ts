/**
 * The one shape every controller kapi runs has: a name, who runs it, and a run/stop
 * lifecycle. `startControllers` (controller-manager.ts) runs a list of them; the catalogue
 * (catalogue.ts) builds that list from what the apiserver hands over.
 */

/** A controller's lifecycle, without its name. */
export interface TermController {
  /** True once its informers have made their first lists (a controller without informers: always). */
  synced(): boolean;
  /**
   * Acts until `signal` aborts — the end of the leader's term, or of the process — and resolves
   * once it has stopped acting. Called again for every later term; never rejects.
   */
  run(signal: AbortSignal): Promise<void>;
  /** Releases what it holds (informers, its lease, its address); called once, after the last run resolved. */
  stop(): Promise<void>;
}

/**
 * `kube-controller-manager`: one of KCM's controllers (its name is KCM's), acting only while
 * this replica holds the leader Lease unless the catalogue says otherwise, switched by
 * `--controllers`. `kube-apiserver`: kube-apiserver's own background work (named by its
 * post-start hook), run in every replica and always on.
 */
export type ControllerOwner = 'kube-controller-manager' | 'kube-apiserver';

export interface Controller extends TermController {
  /** kube-controller-manager's name (`namespace-controller`), or kube-apiserver's post-start hook's (`bootstrap-controller`). */
  readonly name: string;
  readonly owner: ControllerOwner;
  /** True: acts only in the terms this replica leads; false: in every replica from start to stop. */
  readonly leaderElected: boolean;
}

/**
 * Leases for writes that expire (kube's `--event-ttl` on Events). Granting an etcd lease per
 * write would cost one LeaseGrant per Event and leave etcd with as many leases as Events, so a
 * lease is shared, as kube-apiserver 1.32's storage shares it: each grant asks for the
 * requested TTL plus a reuse margin (5% of the TTL in whole seconds, at most
 * `--lease-reuse-duration-seconds`), and a later write attaches to the last lease granted when
 * that lease outlives the write's TTL yet ends within its TTL plus margin (a lease granted for
 * a much longer TTL is not used for a shorter one), up to 1000 writes per lease. A key so lives
 * between its TTL and its TTL plus the margin.
 */

/** kube's share of the TTL added as the reuse margin. */
const REUSE_FRACTION = 0.05;
/** kube's most writes attached to one lease. */
export const DEFAULT_LEASE_MAX_OBJECT_COUNT = 1000;
/** kube's `--lease-reuse-duration-seconds` default. */
export const DEFAULT_LEASE_REUSE_DURATION_SECONDS = 60;

export interface LeaseManagerOptions {
  /** `--lease-reuse-duration-seconds`: the largest margin added to a TTL (0: no reuse; below 0 shortens leases, as in kube). */
  readonly reuseDurationSeconds?: number;
  /** Writes per lease at most (default 1000). */
  readonly maxObjectCount?: number;
  /** The clock (ms); default Date.now. */
  readonly now?: () => number;
  /**
   * Called on each grant with the number of writes counted against the previous lease,
   * including the one that asked for this grant (kube's `etcd_lease_object_counts`).
   */
  readonly onGrant?: (attachedCount: number) => void;
}

export interface LeaseManager {
  /** The ID of a lease (decimal string) that lives at least `ttlSeconds` from now, granting one when the last does not fit. */
  leaseFor(ttlSeconds: number): Promise<string>;
}

/** `grant(ttl)` makes one etcd LeaseGrant of `ttl` seconds and returns the lease's ID. */
export function createLeaseManager(grant: (ttlSeconds: number) => Promise<string>, options: LeaseManagerOptions = {}): LeaseManager {
  const reuseLimit = options.reuseDurationSeconds ?? DEFAULT_LEASE_REUSE_DURATION_SECONDS;
  const maxObjects = options.maxObjectCount !== undefined && options.maxObjectCount > 0 ? options.maxObjectCount : DEFAULT_LEASE_MAX_OBJECT_COUNT;
  const now = options.now ?? Date.now;
  // The last lease granted (expiresAt 0: none yet) and the writes counted against it.
  let last = { id: '0', expiresAt: 0 };
  let attached = 0;
  // One grant at a time (kube holds a lock across it): writes arriving meanwhile wait, then decide.
  let granting: Promise<string> | undefined;

  return {
    async leaseFor(ttlSeconds) {
      while (granting !== undefined) await granting.catch(() => undefined);
      const at = now();
      const margin = Math.min(Math.trunc(REUSE_FRACTION * ttlSeconds), reuseLimit);
      const outlives = at + ttlSeconds * 1000 < last.expiresAt;
      const closeEnough = at + (ttlSeconds + margin) * 1000 > last.expiresAt;
      // Every write counts against the current lease, also one that ends up granting (or failing to).
      attached++;
      if (outlives && closeEnough && attached <= maxObjects) return last.id;
      const granted = ttlSeconds + margin;
      const request = grant(granted);
      granting = request;
      try {
        const id = await request;
        last = { id, expiresAt: at + granted * 1000 };
        options.onGrant?.(attached);
        attached = 1;
        return id;
      } finally {
        granting = undefined;
      }
    },
  };
}

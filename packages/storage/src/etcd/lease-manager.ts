/**
 * Leases for writes that expire (kube's `--event-ttl` on Events). Granting an etcd lease per
 * write would cost one LeaseGrant per Event and leave etcd with as many leases as Events, so a
 * lease is shared, as kube-apiserver's storage shares it: each grant asks for the requested TTL
 * plus a reuse margin (5% of the TTL, at most `--lease-reuse-duration-seconds`), and later
 * writes attach to that lease while it still outlives their own TTL, up to a number of keys
 * per lease. A key so lives between its TTL and its TTL plus the margin.
 */

/** kube's share of the TTL added as the reuse margin. */
const REUSE_FRACTION = 0.05;
/** kube's most keys attached to one lease. */
export const DEFAULT_LEASE_MAX_OBJECT_COUNT = 1000;
/** kube's `--lease-reuse-duration-seconds` default. */
export const DEFAULT_LEASE_REUSE_DURATION_SECONDS = 60;

export interface LeaseManagerOptions {
  /** `--lease-reuse-duration-seconds`: the largest margin added to a TTL (0 or less: no reuse). */
  readonly reuseDurationSeconds?: number;
  /** Keys per lease at most (default 1000). */
  readonly maxObjectCount?: number;
  /** The clock (ms); default Date.now. */
  readonly now?: () => number;
}

export interface LeaseManager {
  /** The ID of a lease (decimal string) that lives at least `ttlSeconds` from now, granting one when none does. */
  leaseFor(ttlSeconds: number): Promise<string>;
}

/** `grant(ttl)` makes one etcd LeaseGrant of `ttl` seconds and returns the lease's ID. */
export function createLeaseManager(grant: (ttlSeconds: number) => Promise<string>, options: LeaseManagerOptions = {}): LeaseManager {
  const reuseLimit = options.reuseDurationSeconds ?? DEFAULT_LEASE_REUSE_DURATION_SECONDS;
  const maxObjects = options.maxObjectCount !== undefined && options.maxObjectCount > 0 ? options.maxObjectCount : DEFAULT_LEASE_MAX_OBJECT_COUNT;
  const now = options.now ?? Date.now;
  let current: { id: string; expiresAt: number; attached: number } | undefined;
  // One grant at a time (kube holds a lock across it): writes arriving meanwhile wait and attach to it.
  let granting: Promise<unknown> | undefined;

  const reusable = (at: number, ttlSeconds: number): boolean =>
    current !== undefined && at + ttlSeconds * 1000 < current.expiresAt && current.attached < maxObjects;

  return {
    async leaseFor(ttlSeconds) {
      for (;;) {
        const at = now();
        if (reusable(at, ttlSeconds)) {
          current!.attached++;
          return current!.id;
        }
        if (granting !== undefined) {
          await granting.catch(() => undefined);
          continue;
        }
        // kube truncates the margin to whole seconds; a negative limit shortens the lease as kube's does.
        const granted = ttlSeconds + Math.min(Math.trunc(REUSE_FRACTION * ttlSeconds), reuseLimit);
        const request = grant(granted);
        granting = request;
        try {
          const id = await request;
          current = { id, expiresAt: at + granted * 1000, attached: 1 };
          return id;
        } finally {
          granting = undefined;
        }
      }
    },
  };
}

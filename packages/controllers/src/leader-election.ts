/**
 * Leader election through a coordination.k8s.io/v1 Lease read and written through the
 * registry (kube's leaderelection with a LeaseLock): every replica runs an elector; the one
 * holding an unexpired lease acts. Expiry is judged by when this replica last saw the lease
 * record change (not by the holder's clock), as kube does. The leader renews every
 * `retryPeriodMs`; when it has not renewed for `renewDeadlineMs` it stops acting (its term's
 * signal aborts), which is before another replica may take over (`leaseDurationMs` after its
 * last renewal, since renewDeadline < leaseDuration).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeObject } from '@kapi/machinery';
import { isAlreadyExists, isConflict, isNotFound } from '@kapi/machinery';
import { sleep, type Registry } from '@kapi/registry';

export interface LeaderElectionOptions {
  /** The Lease's namespace; default kube-system. */
  readonly namespace?: string;
  /** The Lease's name; default kapi-controller-manager. */
  readonly name?: string;
  /** This replica's identity; default `<hostname>_<pid>_<uuid>` (kube: `<hostname>_<uuid>`; the pid tells replicas on one host apart). */
  readonly identity?: string;
  /** kube's --leader-elect-lease-duration; default 15 s. */
  readonly leaseDurationMs?: number;
  /** kube's --leader-elect-renew-deadline; default 10 s. */
  readonly renewDeadlineMs?: number;
  /** kube's --leader-elect-retry-period; default 2 s. */
  readonly retryPeriodMs?: number;
}

export interface LeaderElector {
  readonly identity: string;
  /** True while this replica holds the lease. */
  isLeader(): boolean;
  /** Resolves with the signal of the next term this replica leads (aborted when the term ends), or undefined once stopped. */
  nextTerm(): Promise<AbortSignal | undefined>;
  /**
   * Stops campaigning; a leader gives the lease up (holderIdentity cleared) so another
   * replica takes over at once, unless `release` is false (as if the process died: the others
   * wait for the lease to expire).
   */
  stop(options?: { release?: boolean }): Promise<void>;
}

const USER_AGENT = 'kapi-controller-manager/leader-election';

/** kube's MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function startLeaderElection(registry: Registry, options: LeaderElectionOptions = {}): LeaderElector {
  const leases = registry.lookup('coordination.k8s.io', 'v1', 'leases');
  if (leases?.getter === undefined || leases.creater === undefined || leases.updater === undefined) throw new Error('the registry does not serve leases');
  const { getter, creater, updater } = leases;
  const namespace = options.namespace ?? 'kube-system';
  const name = options.name ?? 'kapi-controller-manager';
  const identity = options.identity ?? `${hostname()}_${process.pid}_${randomUUID()}`;
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  const req = { namespace, userAgent: USER_AGENT };
  const stopping = new AbortController();

  let observedRecord = '';
  let observedAt = 0;
  let term: AbortController | undefined;
  let waiters: Array<(signal: AbortSignal | undefined) => void> = [];

  const spec = (now: number, current: Record<string, unknown> | undefined, acquiring: boolean): Record<string, unknown> => ({
    ...current,
    holderIdentity: identity,
    leaseDurationSeconds: Math.max(1, Math.ceil(leaseDurationMs / 1000)),
    acquireTime: acquiring ? microTime(now) : (current?.['acquireTime'] ?? microTime(now)),
    renewTime: microTime(now),
    leaseTransitions: acquiring && current !== undefined ? Number(current['leaseTransitions'] ?? 0) + 1 : Number(current?.['leaseTransitions'] ?? 0),
  });

  /** kube's tryAcquireOrRenew: true when this replica holds the lease after the call. */
  async function tryAcquireOrRenew(): Promise<boolean> {
    const now = Date.now();
    let lease: KubeObject;
    try {
      lease = await getter.get(req, name, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await creater.create(req, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: spec(now, undefined, true) }, {});
        observedRecord = '';
        observedAt = now;
        return true;
      } catch (createErr) {
        if (isAlreadyExists(createErr)) return false;
        throw createErr;
      }
    }
    const current = (lease['spec'] ?? {}) as Record<string, unknown>;
    const holder = typeof current['holderIdentity'] === 'string' ? current['holderIdentity'] : '';
    const record = JSON.stringify(current);
    if (record !== observedRecord) {
      observedRecord = record;
      observedAt = now;
    }
    const duration = typeof current['leaseDurationSeconds'] === 'number' ? current['leaseDurationSeconds'] * 1000 : leaseDurationMs;
    if (holder !== '' && holder !== identity && observedAt + duration > now) return false;
    try {
      const { object } = await updater.update(req, name, { ...lease, spec: spec(now, current, holder !== identity) }, {});
      observedRecord = JSON.stringify(object['spec'] ?? {});
      observedAt = now;
      return true;
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return false;
      throw err;
    }
  }

  let renewedAt = 0;
  async function attempt(): Promise<boolean> {
    try {
      const held = await tryAcquireOrRenew();
      if (held) renewedAt = Date.now();
      return held;
    } catch {
      return false;
    }
  }

  function beginTerm(): void {
    term = new AbortController();
    const signal = term.signal;
    for (const w of waiters) w(signal);
    waiters = [];
  }

  function endTerm(): void {
    term?.abort();
    term = undefined;
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      if (term === undefined) {
        if (await attempt()) beginTerm();
        else await sleep(retryPeriodMs, stopping.signal);
        continue;
      }
      await sleep(retryPeriodMs, stopping.signal);
      if (stopping.signal.aborted) break;
      // Renew, retrying until renewDeadline has passed since the last successful renewal.
      let renewed = false;
      while (!stopping.signal.aborted && Date.now() - renewedAt < renewDeadlineMs) {
        if (await attempt()) {
          renewed = true;
          break;
        }
        await sleep(Math.min(retryPeriodMs, 200), stopping.signal);
      }
      if (!renewed) endTerm();
    }
  })();

  return {
    identity,
    isLeader: () => term !== undefined,
    nextTerm(): Promise<AbortSignal | undefined> {
      if (stopping.signal.aborted) return Promise.resolve(undefined);
      if (term !== undefined) return Promise.resolve(term.signal);
      return new Promise((resolve) => waiters.push(resolve));
    },
    async stop(stopOptions = {}): Promise<void> {
      if (stopping.signal.aborted) return;
      stopping.abort();
      const wasLeader = term !== undefined;
      endTerm();
      for (const w of waiters) w(undefined);
      waiters = [];
      await loop;
      if (!wasLeader || stopOptions.release === false) return;
      // Release: clear the holder so another replica need not wait for expiry (kube's ReleaseOnCancel).
      try {
        const lease = await getter.get(req, name, {});
        const current = (lease['spec'] ?? {}) as Record<string, unknown>;
        if (current['holderIdentity'] === identity) {
          const { holderIdentity: _h, ...rest } = current;
          await updater.update(req, name, { ...lease, spec: { ...rest, leaseDurationSeconds: 1, renewTime: microTime(Date.now()) } }, {});
        }
      } catch {
        // best effort
      }
    },
  };
}

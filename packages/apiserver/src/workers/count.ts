/** How many workers --workers asks for. */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * --workers=N: N; 0: one per CPU this process may run on (its affinity, as `taskset` sets it),
 * at most the cgroup's CPU quota rounded up (a container limited to 2 CPUs on a 64-core host
 * gets 2 workers, not 64 copies of the watch cache).
 */
export function resolveWorkerCount(flag: number): number {
  if (flag > 0) return flag;
  const quota = cgroupCpuQuota();
  return Math.max(1, Math.min(availableParallelism(), quota ?? Infinity));
}

/** The CPU quota of this process's cgroup in whole CPUs (rounded up), or undefined when none is set. */
export function cgroupCpuQuota(): number | undefined {
  // cgroup v2: "max 100000" or "<quota> <period>".
  const v2 = readOrUndefined('/sys/fs/cgroup/cpu.max');
  if (v2 !== undefined) {
    const [quota, period] = v2.trim().split(/\s+/);
    return quota === 'max' || quota === undefined ? undefined : cpus(Number(quota), Number(period));
  }
  // cgroup v1: cpu.cfs_quota_us is -1 without a limit.
  const quota = readOrUndefined('/sys/fs/cgroup/cpu/cpu.cfs_quota_us');
  const period = readOrUndefined('/sys/fs/cgroup/cpu/cpu.cfs_period_us');
  return quota === undefined || period === undefined ? undefined : cpus(Number(quota), Number(period));
}

function cpus(quota: number, period: number): number | undefined {
  return quota > 0 && period > 0 ? Math.ceil(quota / period) : undefined;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

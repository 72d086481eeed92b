import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * Why processes cannot be pinned here ("taskset not found", "1 CPU"), or undefined when they
 * can: taskset runs and the machine has at least two CPUs. The machine's CPUs count, not the
 * ones this process may use now, so that a process already pinned to one CPU (as the side by
 * side pins itself while it spawns the servers) can still move its load generator to another.
 */
export function pinningUnavailable(): string | undefined {
  const n = cpus().length;
  if (n < 2) return `${n} CPU${n === 1 ? '' : 's'}`;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'taskset not found';
  }
}

/** Whether `taskset` exists and the machine has at least two CPUs to split. */
export function canPin(): boolean {
  return pinningUnavailable() === undefined;
}

/**
 * Sets the CPU affinity of every thread of `pid` (`taskset -a -p -c <cpus> <pid>`). Processes
 * and threads started afterwards inherit it. Returns false (and changes nothing) on failure.
 */
export function pin(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The CPU list a process may run on (`taskset -c -p`), e.g. "0" or "0,1"; undefined on failure. */
export function affinity(pid: number): string | undefined {
  try {
    const out = execFileSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' });
    return out.trim().split(': ').pop();
  } catch {
    return undefined;
  }
}

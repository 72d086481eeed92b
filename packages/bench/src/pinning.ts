import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Whether `taskset` exists and the machine has at least two CPUs to split. */
export function canPin(): boolean {
  if (availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
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

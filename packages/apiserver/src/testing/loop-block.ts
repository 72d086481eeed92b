/**
 * How long the event loop of this process (an in-process test server's) runs without a break:
 * the measure of the cost tests (request-cost, body-limits). Time is this thread's CPU time, so
 * that a loaded machine does not count the time it did not run us.
 */
import { readFileSync } from 'node:fs';

/** This thread's CPU time in ms (Linux: /proc/self/task/<pid>/schedstat, ns), or undefined elsewhere. */
export function mainThreadCpuMs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * The longest stretch the event loop ran without a 5 ms heartbeat until `until` settles, in
 * this thread's CPU time (wall time where that cannot be read).
 */
export async function longestBlock(until: Promise<unknown>): Promise<number> {
  const clock = () => mainThreadCpuMs() ?? performance.now();
  let last = clock();
  let longest = 0;
  const heartbeat = setInterval(() => {
    const now = clock();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await until.catch(() => undefined);
  } finally {
    clearInterval(heartbeat);
  }
  return longest;
}

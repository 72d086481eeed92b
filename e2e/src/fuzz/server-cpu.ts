/**
 * The server's main-thread CPU time, sampled from /proc every 50 ms, to tell a slow `/readyz`
 * probe caused by kapi from one caused by the machine. On a shared, loaded machine (the 2-core
 * test machine often runs at load 30+) a probe can wait seconds while the server's thread ran
 * for only milliseconds: the scheduler gave it no core. What kapi controls is how long its
 * event loop stays busy, which the thread's CPU time bounds from above: a probe answered after
 * `ms` of wall time during which the thread ran `c` ms of CPU waited behind at most `c` ms of
 * the server's own work.
 */
import { readFileSync } from 'node:fs';

interface Sample {
  readonly at: number;
  readonly pid: number;
  readonly cpuMs: number;
}

/** The CPU time of thread `pid` of process `pid` (its main thread) in ms, or undefined (not Linux, gone). */
function mainThreadCpuMs(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

export class ServerCpu {
  private readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;

  /** `pid()`: the server's current process id (it changes when the suite restarts a crashed server). */
  constructor(pid: () => number | undefined) {
    this.timer = setInterval(() => {
      const current = pid();
      const cpuMs = current === undefined ? undefined : mainThreadCpuMs(current);
      if (current === undefined || cpuMs === undefined) return;
      this.samples.push({ at: Date.now(), pid: current, cpuMs });
      // Two minutes are plenty: slow probes are judged every second.
      while (this.samples.length > 0 && this.samples[0]!.at < Date.now() - 120_000) this.samples.shift();
    }, 50);
    this.timer.unref();
  }

  /**
   * The CPU time the server's main thread ran between `from` and `to` (ms since the epoch),
   * rounded outwards to the samples around them; undefined when unknown (no samples around,
   * or the server restarted in between).
   */
  ranDuring(from: number, to: number): number | undefined {
    let before: Sample | undefined;
    let after: Sample | undefined;
    for (const s of this.samples) {
      if (s.at <= from) before = s;
      if (s.at >= to) {
        after = s;
        break;
      }
    }
    if (before === undefined || after === undefined || before.pid !== after.pid) return undefined;
    return after.cpuMs - before.cpuMs;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

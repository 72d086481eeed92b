import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let clockTicks: number | undefined;

function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export interface ProcessSample {
  /** User + system CPU time consumed so far, in seconds. */
  cpuSeconds: number;
  /** Resident set size, in bytes. */
  rssBytes: number;
}

/**
 * The process and its live descendants together (a kapi server with --workers is a primary
 * and its worker processes): CPU and RSS summed. Undefined when the process is gone.
 */
export function readProcess(pid: number): ProcessSample | undefined {
  const own = readOneProcess(pid);
  if (own === undefined) return undefined;
  for (const child of childPids(pid)) {
    const sample = readProcess(child);
    if (sample === undefined) continue;
    own.cpuSeconds += sample.cpuSeconds;
    own.rssBytes += sample.rssBytes;
  }
  return own;
}

/** Reads `/proc/<pid>/stat` and `/proc/<pid>/status`; undefined when the process is gone. */
function readOneProcess(pid: number): ProcessSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    return { cpuSeconds: (utime + stime) / ticksPerSecond(), rssBytes: rssKb * 1024 };
  } catch {
    return undefined;
  }
}

/** Child process ids of `parentPid` whose command name is `comm` (via /proc/<pid>/task/../children). */
export function childPids(parentPid: number, comm?: string): number[] {
  let text = '';
  try {
    text = readFileSync(`/proc/${parentPid}/task/${parentPid}/children`, 'utf8');
  } catch {
    return [];
  }
  return text
    .trim()
    .split(/\s+/)
    .filter((s) => s !== '')
    .map(Number)
    .filter((pid) => {
      if (comm === undefined) return true;
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm;
      } catch {
        return false;
      }
    });
}

/** Scheduler time of one thread so far (`/proc/<pid>/task/<tid>/schedstat`), in seconds. */
export interface ThreadSchedule {
  /** On a CPU. */
  runSeconds: number;
  /** Runnable but waiting for a CPU (on a run queue). */
  waitSeconds: number;
}

/** Parses a schedstat line: "<ns on cpu> <ns waiting on a run queue> <timeslices>". */
export function parseSchedstat(text: string): ThreadSchedule | undefined {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  if (!Number.isFinite(run) || !Number.isFinite(wait)) return undefined;
  return { runSeconds: run! / 1e9, waitSeconds: wait! / 1e9 };
}

/**
 * Scheduler times of every thread of the process and its live descendants, by "pid/tid";
 * empty when the kernel does not report them (no schedstats) or the process is gone.
 */
export function readThreadSchedules(pid: number): Map<string, ThreadSchedule> {
  const out = new Map<string, ThreadSchedule>();
  const visit = (p: number) => {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      try {
        const schedule = parseSchedstat(readFileSync(`/proc/${p}/task/${tid}/schedstat`, 'utf8'));
        if (schedule !== undefined) out.set(`${p}/${tid}`, schedule);
      } catch {
        // the thread ended
      }
    }
    for (const child of childPids(p)) visit(child);
  };
  visit(pid);
  return out;
}

/** What the scheduler did with a process's threads over an interval. */
export interface ScheduleUsage {
  /** Time the threads were runnable but waited for a CPU, summed over threads. */
  waitSeconds: number;
  /**
   * The thread that ran the most (a Node server's main thread): how long it ran and how long
   * it waited for a CPU. A server whose busiest thread waits more than it runs was starved
   * by the machine, not slowed by its own work.
   */
  busiest: ThreadSchedule;
}

/** The difference between two readThreadSchedules snapshots (threads in `after` only: counted from 0). */
export function scheduleUsage(before: Map<string, ThreadSchedule>, after: Map<string, ThreadSchedule>): ScheduleUsage | undefined {
  if (after.size === 0) return undefined;
  let waitSeconds = 0;
  let busiest: ThreadSchedule = { runSeconds: 0, waitSeconds: 0 };
  for (const [id, end] of after) {
    const start = before.get(id) ?? { runSeconds: 0, waitSeconds: 0 };
    const delta = { runSeconds: end.runSeconds - start.runSeconds, waitSeconds: end.waitSeconds - start.waitSeconds };
    waitSeconds += delta.waitSeconds;
    if (delta.runSeconds > busiest.runSeconds) busiest = delta;
  }
  return { waitSeconds, busiest };
}

export interface ProcessUsage {
  cpuSeconds: number;
  peakRssBytes: number;
  endRssBytes: number;
  /** The scheduler's side (Linux schedstats), when available. */
  schedule?: ScheduleUsage;
}

/**
 * Samples a process once a second from now until `finish()`: CPU seconds used in between,
 * the peak RSS seen, and the scheduler's run and run-queue times of its threads in between.
 * `finish()` returns undefined when the process vanished.
 */
export function monitorProcess(pid: number): { finish(): ProcessUsage | undefined } {
  const first = readProcess(pid);
  const schedulesBefore = readThreadSchedules(pid);
  let peak = first?.rssBytes ?? 0;
  const timer = setInterval(() => {
    const s = readProcess(pid);
    if (s && s.rssBytes > peak) peak = s.rssBytes;
  }, 1000);
  timer.unref();
  return {
    finish() {
      clearInterval(timer);
      const last = readProcess(pid);
      const schedule = scheduleUsage(schedulesBefore, readThreadSchedules(pid));
      if (!first || !last) return undefined;
      peak = Math.max(peak, last.rssBytes);
      return { cpuSeconds: last.cpuSeconds - first.cpuSeconds, peakRssBytes: peak, endRssBytes: last.rssBytes, ...(schedule !== undefined ? { schedule } : {}) };
    },
  };
}

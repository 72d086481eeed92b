import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

export interface ProcessUsage {
  cpuSeconds: number;
  peakRssBytes: number;
  endRssBytes: number;
}

/**
 * Samples a process once a second from now until `finish()`: CPU seconds used in between
 * and the peak RSS seen. `finish()` returns undefined when the process vanished.
 */
export function monitorProcess(pid: number): { finish(): ProcessUsage | undefined } {
  const first = readProcess(pid);
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
      if (!first || !last) return undefined;
      peak = Math.max(peak, last.rssBytes);
      return { cpuSeconds: last.cpuSeconds - first.cpuSeconds, peakRssBytes: peak, endRssBytes: last.rssBytes };
    },
  };
}

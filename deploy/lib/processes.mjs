// @ts-check
/**
 * Background processes of the local cluster, recorded in `<dir>/run/<name>.pid` as JSON
 * {pid, startTime, argv}. `startTime` (field 22 of /proc/<pid>/stat) guards against pid reuse:
 * a record whose pid now belongs to another process counts as not running, and is never
 * signalled. Processes run in their own session (detached), survive the command that started
 * them, and write stdout and stderr to `<dir>/logs/<name>.log`.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @typedef {{ pid: number, startTime: string | null, argv: string[] }} ProcessRecord
 */

/** Field 22 (start time) and field 3 (state) of /proc/<pid>/stat; null without procfs or process. */
function procStat(/** @type {number} */ pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: split after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
  } catch {
    return null;
  }
}

export class ProcessTable {
  /** @param {string} dir the cluster directory */
  constructor(dir) {
    this.runDir = join(dir, 'run');
    this.logDir = join(dir, 'logs');
  }

  /** @param {string} name */
  pidFile(name) {
    return join(this.runDir, `${name}.pid`);
  }

  /** @param {string} name */
  logFile(name) {
    return join(this.logDir, `${name}.log`);
  }

  /** @param {string} name @returns {ProcessRecord | undefined} */
  record(name) {
    try {
      return JSON.parse(readFileSync(this.pidFile(name), 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** The pid of `name` when its recorded process is alive (not a zombie), else undefined. */
  pid(/** @type {string} */ name) {
    const rec = this.record(name);
    if (!rec) return undefined;
    const stat = procStat(rec.pid);
    if (stat === null) {
      if (existsSync('/proc/self/stat')) return undefined; // procfs works: the process is gone
      try {
        process.kill(rec.pid, 0);
        return rec.pid;
      } catch {
        return undefined;
      }
    }
    if (stat.state === 'Z' || (rec.startTime !== null && stat.startTime !== rec.startTime)) return undefined;
    return rec.pid;
  }

  running(/** @type {string} */ name) {
    return this.pid(name) !== undefined;
  }

  /**
   * Starts `argv` in the background as `name`, appending its output to the log, and records it.
   * @param {string} name
   * @param {string[]} argv  program and arguments
   * @param {{ cwd: string, env?: NodeJS.ProcessEnv }} options
   * @returns {Promise<number>} the pid
   */
  async start(name, argv, options) {
    mkdirSync(this.runDir, { recursive: true });
    mkdirSync(this.logDir, { recursive: true });
    const log = openSync(this.logFile(name), 'a');
    writeFileSync(log, `\n==== ${new Date().toISOString()} starting ${name}: ${argv.join(' ')}\n`);
    const [program, ...args] = argv;
    if (program === undefined) throw new Error(`${name}: empty command`);
    const child = spawn(program, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    const pid = await new Promise((resolve, reject) => {
      child.once('error', (err) => reject(new Error(`${name}: cannot start ${program}: ${err.message}`)));
      child.once('spawn', () => resolve(child.pid));
    });
    child.unref();
    writeFileSync(this.pidFile(name), `${JSON.stringify({ pid, startTime: procStat(pid)?.startTime ?? null, argv })}\n`);
    return pid;
  }

  /**
   * Sends `signal` to `name` (if running) and waits for it to exit; after `graceMs` a SIGTERM is
   * followed by SIGKILL. Removes the record. Resolves false when it was not running.
   * @param {string} name
   * @param {{ signal?: NodeJS.Signals, graceMs?: number }} [options]
   */
  async stop(name, options = {}) {
    const signal = options.signal ?? 'SIGTERM';
    const pid = this.pid(name);
    if (pid === undefined) {
      rmSync(this.pidFile(name), { force: true });
      return false;
    }
    process.kill(pid, signal);
    const deadline = Date.now() + (options.graceMs ?? 10_000);
    let killed = signal === 'SIGKILL';
    while (this.pid(name) !== undefined) {
      if (!killed && Date.now() > deadline) {
        process.kill(pid, 'SIGKILL');
        killed = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    rmSync(this.pidFile(name), { force: true });
    return true;
  }

  /** The last `bytes` of the log of `name`. */
  logTail(/** @type {string} */ name, bytes = 3000) {
    try {
      const text = readFileSync(this.logFile(name), 'utf8');
      return text.slice(-bytes);
    } catch {
      return '(no log)';
    }
  }
}

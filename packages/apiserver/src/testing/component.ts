/**
 * One control-plane process of the e2e control plane or of kapi-bench's density scenario (a
 * kapi replica, kapi-lb, kube-apiserver, kube-controller-manager, kube-scheduler, kwok): spawned with its output appended to a log
 * file in the run's directory, killed and started again on demand, and SIGKILLed when this
 * process exits so a failed run leaves nothing behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  process.on('exit', killAll);
  // An interrupted run (Ctrl-C, a CI timeout) must not leave a control plane behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ComponentSpec {
  /** Short name, also the log file's name (`<name>.log`). */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The log file (appended to across restarts). */
  readonly logFile: string;
  /** Resolves true once the process serves (polled every 200 ms after each start). */
  readonly ready?: () => Promise<boolean>;
  /**
   * Start the process again 1 s after it exits on its own, as the kubelet does for a static
   * pod: kube-controller-manager and kube-scheduler exit by design when they lose their lease.
   */
  readonly restartOnExit?: boolean;
}

export class Component {
  private child: ChildProcess | undefined;
  private starts = 0;
  private stopping = false;
  /** Exits this harness did not ask for (each followed by a restart when `restartOnExit`). */
  readonly unexpectedExits: string[] = [];

  constructor(readonly spec: ComponentSpec) {}

  get name(): string {
    return this.spec.name;
  }

  pid(): number | undefined {
    return this.running() ? this.child?.pid : undefined;
  }

  running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The log so far (the last `maxBytes`). */
  log(maxBytes = 16_384): string {
    try {
      const text = readFileSync(this.spec.logFile, 'utf8');
      return text.slice(-maxBytes);
    } catch {
      return '';
    }
  }

  /**
   * Spawns the process and waits for `ready` (when given) up to `timeoutMs`; rejects with the
   * log's tail when the process exits first or is not ready in time (the process is then killed).
   */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.running()) throw new Error(`${this.name} is already running`);
    installExitHook();
    const fd = openSync(this.spec.logFile, 'a');
    writeSync(fd, `\n==== ${new Date().toISOString()} start #${++this.starts}: ${this.spec.command} ${this.spec.args.join(' ')}\n`);
    const child = spawn(this.spec.command, [...this.spec.args], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    this.stopping = false;
    live.add(child);
    child.once('exit', (code, signal) => {
      live.delete(child);
      if (this.stopping || this.child !== child) return;
      const what = `${new Date().toISOString()} exited on its own (code ${code}, signal ${signal})`;
      this.unexpectedExits.push(what);
      this.note(`${what}${this.spec.restartOnExit ? '; restarting in 1 s' : ''}`);
      if (this.spec.restartOnExit) {
        setTimeout(() => {
          if (!this.stopping && this.child === child) this.start().catch((err: unknown) => this.note(`restart failed: ${String(err)}`));
        }, 1000).unref();
      }
    });
    let spawnError: Error | undefined;
    child.once('error', (err) => (spawnError = err));
    if (!this.spec.ready) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (spawnError) throw new Error(`${this.name}: could not start ${this.spec.command}: ${spawnError.message}`);
      if (!this.running()) throw new Error(`${this.name} exited early (code ${child.exitCode}, signal ${child.signalCode}); log:\n${this.log(4096)}`);
      if (await this.spec.ready().catch(() => false)) return;
      if (Date.now() > deadline) {
        await this.kill('SIGKILL');
        throw new Error(`${this.name} was not ready within ${timeoutMs} ms; log:\n${this.log(4096)}`);
      }
      await sleep(200);
    }
  }

  private note(line: string): void {
    try {
      const fd = openSync(this.spec.logFile, 'a');
      writeSync(fd, `\n==== ${line}\n`);
      closeSync(fd);
    } catch {
      // the run directory is gone
    }
  }

  /** Sends `signal` (default SIGKILL) and waits for the exit (SIGKILL after 10 s); no restart follows. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || !this.running()) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  /** SIGTERM, then SIGKILL after 10 s. */
  stop(): Promise<void> {
    return this.kill('SIGTERM');
  }
}

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** e2e/go: the Go module of the client-go tests (go.mod and go.sum are committed; nothing vendored). */
export const goModuleDir = fileURLToPath(new URL('../../go', import.meta.url));
/** e2e/.cache: built binaries (git-ignored). The Go build cache is Go's default (`go env GOCACHE`). */
export const e2eCacheDir = fileURLToPath(new URL('../../.cache', import.meta.url));

/**
 * Builds `./cmd/<command>` of {@link goModuleDir} into `e2e/.cache/bin/<command>` with the
 * machine's `go` (`$GO` overrides) and resolves the binary's path and how long the build took.
 * Modules come from the module proxy on first use; later builds are incremental (a few
 * seconds). Rejects with go's output when the build fails or `go` is missing.
 */
export function buildGoCommand(command: string, timeoutMs = 20 * 60_000): Promise<{ binary: string; seconds: number }> {
  const binDir = join(e2eCacheDir, 'bin');
  mkdirSync(binDir, { recursive: true });
  writeFileSync(join(e2eCacheDir, '.gitignore'), '*\n');
  const binary = join(binDir, command);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.env.GO ?? 'go',
      ['build', '-buildvcs=false', '-o', binary, `./cmd/${command}`],
      { cwd: goModuleDir, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`go build ./cmd/${command} failed (is Go ≥ 1.23 installed and the module proxy reachable?): ${error.message}\n${stdout}${stderr}`));
        else resolve({ binary, seconds: (Date.now() - started) / 1000 });
      },
    );
  });
}

/**
 * A child process that speaks a line protocol: one JSON object per stdout line. `next(event)`
 * waits for the next line whose `event` field equals `event`.
 */
export class LineProcess {
  private readonly child: ChildProcess;
  private readonly lines: Record<string, unknown>[] = [];
  private readonly waiters: (() => void)[] = [];
  private stderrText = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(binary: string, args: string[]) {
    this.child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      try {
        this.lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        this.lines.push({ event: 'unparsed', line });
      }
      this.wake();
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderrText = (this.stderrText + c.toString()).slice(-64 * 1024)));
    this.child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      this.wake();
    });
    this.child.on('error', (err) => {
      this.stderrText += `\nspawn error: ${err.message}`;
      this.exit = { code: -1, signal: null };
      this.wake();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** The last 64 KiB of stderr. */
  stderr(): string {
    return this.stderrText;
  }

  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.exit;
  }

  /** Writes one line to stdin. */
  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Resolves the first unread line whose `event` is `event`; rejects on exit or timeout. */
  async next(event: string, timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.lines.findIndex((l) => l.event === event);
      if (index >= 0) return this.lines.splice(index, 1)[0]!;
      if (this.exit) throw new Error(`process exited (${JSON.stringify(this.exit)}) before "${event}"; stderr:\n${this.stderrText}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no "${event}" within ${timeoutMs} ms; stderr:\n${this.stderrText}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** SIGKILL unless already exited, and wait for the exit. */
  async kill(): Promise<void> {
    if (this.exit) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await exited;
  }
}

import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** The kubectl the tests drive: `$KUBECTL`, else /usr/bin/kubectl, else `kubectl` from PATH. */
export const kubectlBinary = process.env.KUBECTL ?? (existsSync('/usr/bin/kubectl') ? '/usr/bin/kubectl' : 'kubectl');

export interface KubectlResult {
  /** Exit status (the signal number + 128 when killed, -1 on spawn failure). */
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlOptions {
  kubeconfig: string;
  /** `--cache-dir`, so runs never share discovery caches with `~/.kube`. */
  cacheDir: string;
  /** Kill kubectl after this long; default 60000 ms. */
  timeoutMs?: number;
}

/**
 * Runs the machine's kubectl with `--kubeconfig` and `--cache-dir` against one server. Never
 * throws for a non-zero exit: callers assert on `code`, `stdout` and `stderr`.
 */
export class Kubectl {
  constructor(private readonly options: KubectlOptions) {}

  /** Runs `kubectl <args>` with `input` on stdin (for `-f -`). */
  run(args: string[], input?: string): Promise<KubectlResult> {
    const fullArgs = [`--kubeconfig=${this.options.kubeconfig}`, `--cache-dir=${this.options.cacheDir}`, ...args];
    return new Promise((resolve) => {
      const child = execFile(
        kubectlBinary,
        fullArgs,
        { timeout: this.options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, KUBECONFIG: '' } },
        (error, stdout, stderr) => {
          let code = 0;
          if (error) {
            const e = error as NodeJS.ErrnoException & { code?: number | string; signal?: string };
            code = typeof e.code === 'number' ? e.code : e.signal ? 128 : -1;
          }
          resolve({ code, stdout, stderr });
        },
      );
      if (input !== undefined) child.stdin?.end(input);
      else child.stdin?.end();
    });
  }

  /** Runs kubectl and throws (with its stderr) unless it exits 0; returns stdout. */
  async ok(args: string[], input?: string): Promise<string> {
    const result = await this.run(args, input);
    if (result.code !== 0) {
      throw new Error(`kubectl ${args.join(' ')} exited ${result.code}\nstderr: ${result.stderr}\nstdout: ${result.stdout}`);
    }
    return result.stdout;
  }

  /** `kubectl <args> -o json`, parsed. */
  async json<T = Record<string, unknown>>(args: string[]): Promise<T> {
    return JSON.parse(await this.ok([...args, '-o', 'json'])) as T;
  }

  /** `kubectl <args> -o yaml`, parsed. */
  async yaml<T = Record<string, unknown>>(args: string[]): Promise<T> {
    return parseYaml(await this.ok([...args, '-o', 'yaml'])) as T;
  }
}

/** A kubectl that keeps running (e.g. `get -w`): its output so far, waiting for output, stopping it. */
export interface KubectlProcess {
  /** stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves stdout once it matches `pattern`; rejects when kubectl exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The same for stderr (e.g. the request log of `-v=6`). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM (if still running) and the result. */
  stop(): Promise<KubectlResult>;
}

/** Starts `kubectl <args>` with `options` (`--kubeconfig`, `--cache-dir`) without waiting for it. */
export function startKubectl(options: KubectlOptions, args: string[]): KubectlProcess {
  const child = spawn(kubectlBinary, [`--kubeconfig=${options.kubeconfig}`, `--cache-dir=${options.cacheDir}`, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: '' },
  });
  let stdout = '';
  let stderr = '';
  let exitCode: number | undefined;
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    wake();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    wake();
  });
  const exited = new Promise<void>((resolve) =>
    child.on('close', (code, signal) => {
      exitCode = code ?? (signal ? 128 : -1);
      wake();
      resolve();
    }),
  );
  child.on('error', (err) => (stderr += `\nspawn error: ${err.message}`));
  const waitFor = (read: () => string, pattern: RegExp, timeoutMs: number): Promise<string> =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(read())) done(() => resolve(read()));
          else if (exitCode !== undefined) done(() => reject(new Error(`kubectl ${args.join(' ')} exited ${exitCode} before printing ${pattern}\nstdout: ${stdout}\nstderr: ${stderr}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`kubectl ${args.join(' ')}: no ${pattern} within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    waitForOutput: (pattern, timeoutMs = 20_000) => waitFor(() => stdout, pattern, timeoutMs),
    waitForStderr: (pattern, timeoutMs = 20_000) => waitFor(() => stderr, pattern, timeoutMs),
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      await exited;
      return { code: exitCode ?? -1, stdout, stderr };
    },
  };
}

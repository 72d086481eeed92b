import { execFile } from 'node:child_process';
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

/**
 * Drives deploy/cluster.sh (the `make cluster` script) for tests: a private directory and a
 * free block of ports below the kernel's ephemeral range (where other tests' `freePort()` and
 * outgoing connections live), `up`, `info`, single-process commands, and `down --purge`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployDir } from './repo.js';

export interface ClusterInfo {
  dir: string;
  basePort: number;
  kubeconfig: string;
  server: string;
  certDir: string;
  /** The admin client certificate and key (CN=kapi-admin, O=system:masters) of the kubeconfig. */
  clientCertificate: string;
  clientKey: string;
  processes: Record<string, { pid: number | null; url: string | null; ports: number[]; log: string; argv: string[] }>;
}

export interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port whose `count` consecutive ports (all below 32768) are free right now. */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * (32_000 - 20_000 - count));
    let free = true;
    for (let p = base; p < base + count && free; p++) free = await portFree(p);
    if (free) return base;
  }
  throw new Error(`no block of ${count} free ports found below 32000`);
}

export class LocalCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'kapi-cluster-'));

  constructor(readonly basePort: number) {}

  /** Runs `deploy/cluster.sh <args>` for this cluster; never throws for a non-zero exit. */
  run(args: string[], timeoutMs = 120_000): Promise<ScriptResult> {
    const env = { ...process.env, KAPI_CLUSTER_DIR: this.dir, KAPI_CLUSTER_BASE_PORT: String(this.basePort) };
    return new Promise((resolve) => {
      execFile('bash', [join(deployDir, 'cluster.sh'), ...args], { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? Number((error as { code: number }).code) : -1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** Runs the script and throws with its output unless it exits 0. */
  async ok(args: string[], timeoutMs?: number): Promise<ScriptResult> {
    const result = await this.run(args, timeoutMs);
    if (result.code !== 0) throw new Error(`deploy/cluster.sh ${args.join(' ')} exited ${result.code}\n${result.stderr}\n${result.stdout}`);
    return result;
  }

  async info(): Promise<ClusterInfo> {
    return JSON.parse((await this.ok(['info'])).stdout) as ClusterInfo;
  }

  /** The serving certificate all replicas share (the kubeconfig's certificate authority). */
  ca(info: ClusterInfo): string {
    return readFileSync(join(info.certDir, 'apiserver.crt'), 'utf8');
  }
}

/** True when `pid` is a live process (not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The argument vector of a live process, from /proc/<pid>/cmdline. */
export function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((s, i, all) => s !== '' || i < all.length - 1);
}

export { portFree };

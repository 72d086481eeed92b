/**
 * The servers of a side-by-side run, started the same way: a kube-apiserver binary or a
 * kapi-apiserver on a fresh etcd of their own, both serving HTTPS on a free loopback port with
 * a self-signed certificate, the same service-account keys and issuer, AlwaysAllow, and one
 * static bearer token (a user in system:masters, exempt from API Priority and Fairness), so the
 * same client code reaches either.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { insecureGet, startKapiServer, writeServiceAccountKeys } from '@kapi/apiserver/testing';
import { freePort } from '@kapi/storage/testing';
import { kapiApiserverBinary } from './context.js';

/** The two servers a side-by-side run compares. */
export type ServerName = 'kapi' | 'kube-apiserver';

/** A server under test of a side-by-side run. */
export interface ComparedServer {
  readonly name: ServerName;
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** The bearer token every request carries. */
  readonly token: string;
  pid(): number | undefined;
  /** The last 64 KiB of its output. */
  output(): string;
  stop(): Promise<void>;
}

/** Where the kube-apiserver binary is: `$KAPI_KUBE_APISERVER`, else the cache e2e/control-plane/build-binaries.sh fills. */
export function kubeApiserverBinary(): string {
  return process.env.KAPI_KUBE_APISERVER ?? join(process.env.KAPI_REF_BIN ?? join(homedir(), '.cache', 'kapi-ref', 'bin'), 'kube-apiserver');
}

const token = 'kapi-bench-admin-token';
const issuer = 'https://kubernetes.default.svc';

/** The flags both servers get besides etcd, bind address, port and cert dir. */
function commonFlags(dir: string): string[] {
  const keys = writeServiceAccountKeys(dir);
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${token},admin,admin-uid,"system:masters"\n`);
  return [
    `--service-account-issuer=${issuer}`,
    `--service-account-key-file=${keys.keyFile}`,
    `--service-account-signing-key-file=${keys.signingKeyFile}`,
    `--api-audiences=${issuer}`,
    '--authorization-mode=AlwaysAllow',
    `--token-auth-file=${tokens}`,
  ];
}

const liveKube = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of liveKube) child.kill('SIGKILL');
});

/**
 * Starts `binary` (a kube-apiserver) on `etcdServers` and resolves once `/readyz` answers 200
 * to the admin token. Rejects with its output when it exits or is not ready within `startTimeoutMs`.
 */
export async function startKubeApiserver(options: { binary: string; etcdServers: string[]; startTimeoutMs?: number; extraArgs?: string[] }): Promise<ComparedServer> {
  if (!existsSync(options.binary)) throw new Error(`kube-apiserver not found at ${options.binary} (build it with e2e/control-plane/build-binaries.sh kube-apiserver)`);
  const dir = mkdtempSync(join(tmpdir(), 'kapi-bench-kube-'));
  const port = await freePort();
  const args = [
    `--etcd-servers=${options.etcdServers.join(',')}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${join(dir, 'certs')}`,
    ...commonFlags(dir),
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(options.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  liveKube.add(child);
  child.once('exit', () => liveKube.delete(child));
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-65536));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (): Promise<void> => {
    if (!gone()) {
      const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `https://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  for (;;) {
    if (spawnError !== undefined || gone()) {
      await stop();
      throw new Error(`kube-apiserver ${spawnError ? `could not start: ${spawnError.message}` : `exited early (code ${child.exitCode})`}:\n${output.slice(-4000)}`);
    }
    const res = await insecureGet(`${url}/readyz`, 2000, { authorization: `Bearer ${token}` }).catch(() => undefined);
    if (res?.status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`kube-apiserver was not ready within ${options.startTimeoutMs ?? 120_000} ms:\n${output.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { name: 'kube-apiserver', url, token, pid: () => (gone() ? undefined : child.pid), output: () => output, stop };
}

/** Starts a kapi-apiserver on `etcdServers` with the same TLS, token and service-account setup as {@link startKubeApiserver}. */
export async function startComparedKapi(options: { etcdServers: string[]; workers: number; startTimeoutMs?: number; env?: Record<string, string>; binary?: string }): Promise<ComparedServer> {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-bench-kapi-'));
  try {
    const server = await startKapiServer({
      binary: options.binary ?? kapiApiserverBinary(),
      etcdServers: options.etcdServers,
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      readyzToken: token,
      extraArgs: [...commonFlags(dir), ...(options.workers !== 1 ? [`--workers=${options.workers}`] : [])],
      ...(options.env ? { env: options.env } : {}),
    });
    return {
      name: 'kapi',
      url: server.url,
      token,
      pid: () => server.pid(),
      output: () => server.output(),
      async stop() {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

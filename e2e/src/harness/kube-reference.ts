/**
 * A real kube-apiserver (the oracle kapi is compared with) on its own etcd: the minimal flags
 * it insists on, a static admin token, AlwaysAllow, loopback ports. The binary comes from
 * `$KAPI_KUBE_APISERVER` or the reference build's default location; tests skip when it is
 * missing (`kubeReferenceBinary()` returns undefined).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { insecureGet } from '@kapi/apiserver/testing';

/** Where the reference build leaves its binary (see /work/shared/tools/reference/build.sh). */
export const DEFAULT_KUBE_APISERVER = '/root/.cache/kapi-ref/bin/kube-apiserver';
export const REFERENCE_TOKEN = 'kapi-reference-admin-token';

/** The kube-apiserver binary to compare with, or undefined when none is installed. */
export function kubeReferenceBinary(): string | undefined {
  const binary = process.env.KAPI_KUBE_APISERVER ?? DEFAULT_KUBE_APISERVER;
  return existsSync(binary) ? binary : undefined;
}

export interface KubeReference {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** A kubeconfig with the admin token (TLS verification off). */
  readonly kubeconfig: string;
  /** GET with the admin token; `accept` sets the Accept header. */
  get(path: string, accept?: string): Promise<{ status: number; body: string }>;
  /** Stops kube-apiserver and its etcd (unless the etcd was given), removes the state directory. Idempotent. */
  stop(): Promise<void>;
}

function writeState(dir: string, url: string): { key: string; pub: string; tokens: string; kubeconfig: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = join(dir, 'sa.key');
  const pub = join(dir, 'sa.pub');
  writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
  // system:masters: authenticated, and exempt from priority and fairness.
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${REFERENCE_TOKEN},admin,admin-uid,"system:masters"\n`);
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: kube, cluster: {server: "' + url + '", insecure-skip-tls-verify: true}}]',
      'users: [{name: admin, user: {token: ' + REFERENCE_TOKEN + '}}]',
      'contexts: [{name: kube, context: {cluster: kube, user: admin}}]',
      'current-context: kube',
      '',
    ].join('\n'),
  );
  return { key, pub, tokens, kubeconfig };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface KubeReferenceOptions {
  /** How long to wait for `/readyz`; default 120 s (the first start on a loaded machine is slow). */
  readonly timeoutMs?: number;
  /** An etcd to use (and leave running on stop); default: a new one, stopped with the server. */
  readonly etcd?: TestEtcd;
  /** More kube-apiserver flags, appended last. */
  readonly extraArgs?: readonly string[];
}

/**
 * Starts etcd (unless given one) and `binary` and resolves once `/readyz` answers 200.
 * Rejects with the server's output when it exits or never gets ready.
 */
export async function startKubeReference(binary: string, options: number | KubeReferenceOptions = {}): Promise<KubeReference> {
  const { timeoutMs = 120_000, etcd: givenEtcd, extraArgs = [] } = typeof options === 'number' ? { timeoutMs: options } : options;
  // Progress notifications every second, as deployments set them (kubeadm: 5 s): on etcd 3.4
  // kube's watch cache learns etcd's revision only from them, so without them a watch from
  // "now" on a quiet resource ends with "Too large resource version" for 10 minutes.
  const etcd: TestEtcd = givenEtcd ?? (await startEtcd({ watchProgressNotifyIntervalMs: 1000 }));
  const dir = mkdtempSync(join(tmpdir(), 'kapi-kube-reference-'));
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const state = writeState(dir, url);
  const child: ChildProcess = spawn(
    binary,
    [
      `--etcd-servers=${etcd.endpoints.join(',')}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, 'certs')}`,
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${state.pub}`,
      `--service-account-signing-key-file=${state.key}`,
      '--api-audiences=https://kubernetes.default.svc',
      '--authorization-mode=AlwaysAllow',
      `--token-auth-file=${state.tokens}`,
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-65536));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (givenEtcd === undefined) await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const get = (path: string, accept?: string) =>
    insecureGet(`${url}${path}`, 10_000, { authorization: `Bearer ${REFERENCE_TOKEN}`, ...(accept !== undefined ? { accept } : {}) });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`kube-apiserver exited early:\n${output}`);
    }
    const ready = await get('/readyz').catch(() => undefined);
    if (ready?.status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`kube-apiserver was not ready within ${timeoutMs} ms:\n${output}`);
    }
    await sleep(200);
  }
  return { url, kubeconfig: state.kubeconfig, get, stop };
}

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { startKapiServer, type KapiServer, type StartKapiServerOptions, writeKubeconfig } from '@kapi/apiserver/testing';
import { advanceEtcdRevision } from './etcd-history.js';
import { Kubectl } from './kubectl.js';

export interface StartClusterOptions {
  /** How many `kapi-apiserver` processes share the etcd; default 1. */
  replicas?: number;
  /** Passed to every server (prefix, insecure port, extra flags). */
  server?: Omit<StartKapiServerOptions, 'etcdServers'>;
}

/** A real etcd plus kapi-apiserver replicas, with one kubeconfig and kubectl per replica. */
export interface TestCluster {
  readonly etcd: TestEtcd;
  readonly servers: KapiServer[];
  /** A temporary directory for the test's files (removed by `stop`). */
  readonly dir: string;
  /** The kubeconfig that points at replica `i` (default 0). */
  kubeconfig(i?: number): string;
  /** A kubectl bound to replica `i` (default 0) with a private `--cache-dir`. */
  kubectl(i?: number): Kubectl;
  /** Stops every server, then etcd, and removes `dir`. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts etcd (`startEtcd`) and `replicas` servers on it, and writes a kubeconfig per server
 * that trusts the server's generated certificate (or skips verification when the server
 * wrote no certificate file). Cleans up everything it started when a step fails.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-e2e-'));
  const etcd = await startEtcd();
  const servers: KapiServer[] = [];
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(servers.map((s) => s.stop()));
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await advanceEtcdRevision(etcd.endpoints);
    const replicas = options.replicas ?? 1;
    for (let i = 0; i < replicas; i++) {
      servers.push(await startKapiServer({ ...options.server, etcdServers: etcd.endpoints }));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const kubeconfigs = servers.map((server, i) => {
    const path = join(dir, `kubeconfig-${i}`);
    writeKubeconfig(path, {
      server: server.url,
      ...(existsSync(server.caFile) ? { certificateAuthority: server.caFile } : {}),
    });
    return path;
  });
  const kubectls = kubeconfigs.map(
    (kubeconfig, i) => new Kubectl({ kubeconfig, cacheDir: join(dir, `kube-cache-${i}`) }),
  );
  return {
    etcd,
    servers,
    dir,
    kubeconfig: (i = 0) => kubeconfigs[i]!,
    kubectl: (i = 0) => kubectls[i]!,
    stop,
  };
}

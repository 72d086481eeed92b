/**
 * The two targets every e2e suite runs against: one kapi-apiserver on its own etcd
 * (`startCluster()`), and the local HA cluster of `make cluster` (deploy/cluster.sh: three etcd
 * members, three replicas, kapi-lb) reached through its balancer. A suite only sees a
 * {@link Target}: a server URL, a kubeconfig, and etcd's endpoints for ground truth.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startCluster } from '../harness/cluster.js';
import { etcdCredentialsIn, type EtcdCredentials } from '../harness/etcd-credentials.js';
import { Kubectl } from '../harness/kubectl.js';
import { RestClient } from '../harness/rest.js';
import { freePortBlock, LocalCluster, type ClusterInfo } from '../deploy/local-cluster.js';
import { loadTopology } from '../deploy/repo.js';

export type TargetKind = 'single' | 'cluster';

export interface Target {
  readonly kind: TargetKind;
  /** The URL clients use: the one replica, or the balancer. */
  readonly server: string;
  /** A kubeconfig for {@link server} (trusting the serving certificate when there is one). */
  readonly kubeconfig: string;
  /** The PEM file the kubeconfig trusts, if any. */
  readonly caFile: string | undefined;
  /** A private temporary directory (removed by `stop`). */
  readonly dir: string;
  /** etcd client URLs (all members for the cluster). */
  readonly etcdEndpoints: string[];
  /** The client certificate etcd asks for (the local cluster's etcd is mutual TLS), if any. */
  readonly etcdCredentials?: EtcdCredentials;
  /** The kubeconfig's client certificate (system:masters), when the target authenticates clients (the local cluster runs with RBAC). */
  readonly clientCertificate?: { readonly cert: string; readonly key: string };
  /** A kubectl with its own cache dir, bound to {@link kubeconfig}. */
  kubectl(): Kubectl;
  /** A JSON client of {@link server}; the caller closes it. */
  rest(): RestClient;
  stop(): Promise<void>;
}

/** A getter for the started target (suites register their tests before it exists). */
export type TargetRef = () => Target;

/** One kapi-apiserver on a private etcd, on free ports. */
export async function startSingleTarget(): Promise<Target> {
  const cluster = await startCluster();
  const server = cluster.servers[0]!;
  const kubeconfig = cluster.kubeconfig();
  return {
    kind: 'single',
    server: server.url,
    kubeconfig,
    caFile: existsSync(server.caFile) ? server.caFile : undefined,
    dir: cluster.dir,
    etcdEndpoints: cluster.etcd.endpoints,
    kubectl: () => new Kubectl({ kubeconfig, cacheDir: join(cluster.dir, `kube-cache-${Math.random().toString(36).slice(2)}`), timeoutMs: 60_000 }),
    rest: () => new RestClient(server.url, { maxSockets: 16 }),
    stop: () => cluster.stop(),
  };
}

/** A running `make cluster` in a temporary directory on a free block of ports. */
export interface ClusterTarget extends Target {
  readonly local: LocalCluster;
  readonly info: ClusterInfo;
}

/**
 * Starts the local HA cluster with deploy/cluster.sh (the code `make cluster` runs) in a
 * temporary directory on a free block of ports below the ephemeral range; retries on another
 * block when a port was taken in between. `stop` runs `down --purge`.
 */
export async function startClusterTarget(): Promise<ClusterTarget> {
  const topology = await loadTopology();
  let local: LocalCluster;
  for (let attempt = 1; ; attempt++) {
    local = new LocalCluster(await freePortBlock(topology.localPortCount));
    const up = await local.run(['up']);
    if (up.code === 0) break;
    await local.run(['down', '--purge']);
    rmSync(local.dir, { recursive: true, force: true });
    if (attempt >= 3 || !/is in use/.test(up.stderr)) throw new Error(`deploy/cluster.sh up failed:\n${up.stderr}\n${up.stdout}`);
  }
  // The first replica started on a fresh etcd (revision 1), so its caches list at revision 1 and
  // serve a watch from resourceVersion 1 out of memory, as kube's cacher would; the others
  // started after its first writes. Restarted, it lists where the cluster is, like a replica of
  // any cluster that has lived, so resourceVersion 1 is history no replica has (the Python suite).
  const restarted = await local.run(['restart', topology.kapiReplicas[0]!]);
  if (restarted.code !== 0) throw new Error(`deploy/cluster.sh restart failed:\n${restarted.stderr}\n${restarted.stdout}`);
  const info = await local.info();
  const dir = mkdtempSync(join(tmpdir(), 'kapi-target-'));
  const caFile = join(info.certDir, 'apiserver.crt');
  const clientCertificate = { cert: readFileSync(info.clientCertificate, 'utf8'), key: readFileSync(info.clientKey, 'utf8') };
  let stopped = false;
  return {
    kind: 'cluster',
    local,
    info,
    server: info.server,
    kubeconfig: info.kubeconfig,
    caFile: existsSync(caFile) ? caFile : undefined,
    dir,
    etcdEndpoints: topology.etcdMembers.map((m) => info.processes[m]!.url!),
    etcdCredentials: etcdCredentialsIn(join(dirname(info.certDir), 'etcd-certs')),
    kubectl: () => new Kubectl({ kubeconfig: info.kubeconfig, cacheDir: join(dir, `kube-cache-${Math.random().toString(36).slice(2)}`), timeoutMs: 60_000 }),
    clientCertificate,
    rest: () => new RestClient(info.server, { maxSockets: 16, clientCertificate }),
    async stop() {
      if (stopped) return;
      stopped = true;
      await local.run(['down', '--purge']);
      rmSync(local.dir, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function startTarget(kind: TargetKind): Promise<Target> {
  return kind === 'single' ? startSingleTarget() : startClusterTarget();
}

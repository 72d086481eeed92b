// @ts-check
/**
 * The one description of kapi's HA cluster: three etcd members, three kapi-apiserver replicas
 * and a TCP load balancer in front of them. Every flag of every command is written here once:
 *
 *   - `deploy/cluster.mjs` (`make cluster`) starts these commands as local processes, with the
 *     addresses of {@link localLayout} (loopback ports, data under .data/cluster);
 *   - `deploy/gen-compose.mjs` writes deploy/docker-compose.yml from them, with the addresses of
 *     {@link composeLayout} (service names, the images' paths).
 *
 * A layout only supplies addresses and paths; the flags and their other values are the same in
 * both (e2e/src/deploy/compose.test.ts checks the committed compose file against this module,
 * and e2e/src/deploy/cluster.test.ts checks the running processes' command lines). The Helm
 * chart (helm/kapi) passes the same flag names; its test checks that too.
 *
 * Plain JavaScript without dependencies so that it runs before and outside the TypeScript build
 * (and inside the container image).
 */

/** etcd member names, also the compose service names and the local process names. */
export const etcdMembers = /** @type {const} */ (['etcd-1', 'etcd-2', 'etcd-3']);
/** kapi-apiserver replica names. */
export const kapiReplicas = /** @type {const} */ (['kapi-1', 'kapi-2', 'kapi-3']);
/** The load balancer's name. */
export const balancer = 'lb';
/** The local-only process that carries etcd peer traffic and can drop it (partitions). */
export const peerGate = 'peer-gate';

/** --initial-cluster-token of the etcd members. */
export const etcdClusterToken = 'kapi-cluster';
/** Progress notifications every 5 s keep quiet watch caches current (etcd's default is 10 min). */
export const watchProgressNotifyInterval = '5s';
/**
 * --service-account-issuer of every replica (kubeadm's form): with it kapi signs service
 * account tokens (`kubectl create token`, pods' kube-api-access volumes) and publishes
 * kube-root-ca.crt in every namespace.
 */
export const serviceAccountIssuer = 'https://kubernetes.default.svc';
/** --etcd-prefix of every replica. */
export const etcdPrefix = '/registry';
/** The path the balancer (and the compose health checks) probe on each replica. */
export const readinessPath = '/readyz';
/** How often the balancer probes each replica. */
export const healthInterval = '1s';
/**
 * --shutdown-delay-duration of every replica: on SIGTERM a replica keeps serving everything for
 * this long but answers /readyz with 500, so the balancer (one failed probe, every
 * {@link healthInterval}) stops sending it new connections before it stops accepting them.
 * Three probe intervals: a rolling restart or `cluster.sh stop` costs clients no refused
 * connection. (kube-apiserver's default is 0; HA setups behind a load balancer set a few
 * seconds, more for cloud balancers with slower health checks.)
 */
export const shutdownDelayDuration = '3s';

/**
 * Flags whose values are addresses or paths: they come from the layout and are the only ones
 * allowed to differ between the local cluster and docker-compose.
 */
export const addressFlags = Object.freeze({
  etcd: [
    '--data-dir', '--listen-client-urls', '--advertise-client-urls', '--listen-peer-urls',
    '--initial-advertise-peer-urls', '--initial-cluster', '--listen-metrics-urls',
    '--trusted-ca-file', '--cert-file', '--key-file', '--peer-trusted-ca-file', '--peer-cert-file', '--peer-key-file',
  ],
  kapi: [
    '--etcd-servers', '--bind-address', '--secure-port', '--cert-dir', '--etcd-cafile', '--etcd-certfile', '--etcd-keyfile', '--client-ca-file', '--token-auth-file',
    '--service-account-key-file', '--service-account-signing-key-file',
  ],
  lb: ['--listen', '--backends'],
});

/**
 * @typedef {object} EtcdAddresses
 * @property {string} listenClientURL   --listen-client-urls
 * @property {string} clientURL         --advertise-client-urls, and what kapi dials
 * @property {string} listenPeerURL     --listen-peer-urls
 * @property {string} peerURL           --initial-advertise-peer-urls (what the other members dial)
 * @property {string} dataDir           --data-dir
 * @property {string} metricsURL        --listen-metrics-urls: plain HTTP /health, /livez, /readyz, /metrics
 *
 * @typedef {object} KapiAddresses
 * @property {string} bindAddress  --bind-address
 * @property {number} securePort   --secure-port
 * @property {string} host         how the balancer reaches the replica
 *
 * @typedef {object} Layout
 * @property {'local' | 'compose'} kind
 * @property {(member: string) => EtcdAddresses} etcd
 * @property {(replica: string) => KapiAddresses} kapi
 * @property {string} certDir       --cert-dir shared by the replicas (the first one generates the pair)
 * @property {string} etcdCertDir   what the etcd members read (deploy/etcd-certs.mjs): the etcd CA and their certificate; client and peer traffic is mutual TLS
 * @property {string} kapiCertDir   what the replicas read (deploy/etcd-certs.mjs): the etcd CA and kapi's client certificate for etcd, kapi's client CA, the token file, the service account keys, and the admin credentials
 * @property {string} lbListen      host:port the balancer listens on
 *
 * @typedef {object} Command
 * @property {string} name      process / service name (etcd-1, kapi-2, lb, ...)
 * @property {'etcd' | 'kapi-apiserver' | 'kapi-lb' | 'kapi-peer-gate'} program
 * @property {string[]} args
 */

/** @param {string} member @param {Layout} layout @returns {Command} */
export function etcdCommand(member, layout) {
  const self = layout.etcd(member);
  return {
    name: member,
    program: 'etcd',
    args: [
      `--name=${member}`,
      `--data-dir=${self.dataDir}`,
      `--listen-client-urls=${self.listenClientURL}`,
      `--advertise-client-urls=${self.clientURL}`,
      `--listen-peer-urls=${self.listenPeerURL}`,
      `--initial-advertise-peer-urls=${self.peerURL}`,
      `--initial-cluster=${etcdMembers.map((m) => `${m}=${layout.etcd(m).peerURL}`).join(',')}`,
      '--initial-cluster-state=new',
      `--initial-cluster-token=${etcdClusterToken}`,
      `--experimental-watch-progress-notify-interval=${watchProgressNotifyInterval}`,
      // A member that was cut off rejoins without forcing an election (etcd 3.5 defaults to it; 3.4 does not).
      '--pre-vote=true',
      '--logger=zap',
      '--log-outputs=stderr',
      `--listen-metrics-urls=${self.metricsURL}`,
      // Clients (kapi) and peers must present a certificate signed by the etcd CA.
      '--client-cert-auth=true',
      `--trusted-ca-file=${layout.etcdCertDir}/ca.crt`,
      `--cert-file=${layout.etcdCertDir}/member.crt`,
      `--key-file=${layout.etcdCertDir}/member.key`,
      '--peer-client-cert-auth=true',
      `--peer-trusted-ca-file=${layout.etcdCertDir}/ca.crt`,
      `--peer-cert-file=${layout.etcdCertDir}/member.crt`,
      `--peer-key-file=${layout.etcdCertDir}/member.key`,
    ],
  };
}

/** @param {string} replica @param {Layout} layout @returns {Command} */
export function kapiCommand(replica, layout) {
  const self = layout.kapi(replica);
  return {
    name: replica,
    program: 'kapi-apiserver',
    args: [
      `--etcd-servers=${etcdMembers.map((m) => layout.etcd(m).clientURL).join(',')}`,
      `--etcd-prefix=${etcdPrefix}`,
      `--bind-address=${self.bindAddress}`,
      `--secure-port=${self.securePort}`,
      `--cert-dir=${layout.certDir}`,
      `--shutdown-delay-duration=${shutdownDelayDuration}`,
      `--etcd-cafile=${layout.kapiCertDir}/ca.crt`,
      `--etcd-certfile=${layout.kapiCertDir}/client.crt`,
      `--etcd-keyfile=${layout.kapiCertDir}/client.key`,
      // Secure as kubeadm runs kube-apiserver: client certificates of kapi's CA (and a static
      // admin token, as the Helm chart has), Node and RBAC authorization, and service account
      // tokens signed with kubeadm's sa.key/sa.pub pair.
      `--client-ca-file=${layout.kapiCertDir}/kapi-ca.crt`,
      `--token-auth-file=${layout.kapiCertDir}/tokens.csv`,
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      `--service-account-issuer=${serviceAccountIssuer}`,
      `--service-account-key-file=${layout.kapiCertDir}/sa.pub`,
      `--service-account-signing-key-file=${layout.kapiCertDir}/sa.key`,
    ],
  };
}

/** @param {Layout} layout @returns {Command} */
export function lbCommand(layout) {
  return {
    name: balancer,
    program: 'kapi-lb',
    args: [
      `--listen=${layout.lbListen}`,
      `--backends=${kapiReplicas.map((r) => `${r}=${layout.kapi(r).host}:${layout.kapi(r).securePort}`).join(',')}`,
      `--health-path=${readinessPath}`,
      `--health-interval=${healthInterval}`,
    ],
  };
}

/**
 * Port offsets from the local cluster's base port (KAPI_CLUSTER_BASE_PORT, default 16443):
 * the balancer gets the base port itself.
 */
export const localPortOffsets = Object.freeze({
  lb: 0,
  gateControl: 1,
  kapi: { 'kapi-1': 2, 'kapi-2': 3, 'kapi-3': 4 },
  etcdClient: { 'etcd-1': 5, 'etcd-2': 6, 'etcd-3': 7 },
  etcdPeer: { 'etcd-1': 8, 'etcd-2': 9, 'etcd-3': 10 },
  etcdGate: { 'etcd-1': 11, 'etcd-2': 12, 'etcd-3': 13 },
  etcdMetrics: { 'etcd-1': 14, 'etcd-2': 15, 'etcd-3': 16 },
});
/** How many consecutive ports the local cluster uses from its base port. */
export const localPortCount = 17;
export const defaultLocalBasePort = 16443;

/**
 * @typedef {object} LocalPorts
 * @property {number} lb
 * @property {number} gateControl
 * @property {Record<string, number>} kapi
 * @property {Record<string, number>} etcdClient
 * @property {Record<string, number>} etcdPeer  where each member listens for peers
 * @property {Record<string, number>} etcdGate  the peer gate in front of each member (its advertised peer URL)
 * @property {Record<string, number>} etcdMetrics  each member's plain-HTTP health and metrics port
 */

/** @param {number} base @returns {LocalPorts} */
export function localPorts(base) {
  /** @param {Record<string, number>} offsets */
  const map = (offsets) => Object.fromEntries(Object.entries(offsets).map(([k, o]) => [k, base + o]));
  return {
    lb: base + localPortOffsets.lb,
    gateControl: base + localPortOffsets.gateControl,
    kapi: map(localPortOffsets.kapi),
    etcdClient: map(localPortOffsets.etcdClient),
    etcdPeer: map(localPortOffsets.etcdPeer),
    etcdGate: map(localPortOffsets.etcdGate),
    etcdMetrics: map(localPortOffsets.etcdMetrics),
  };
}

/**
 * Processes on 127.0.0.1. Members listen for peers on their own port but advertise the port of
 * their peer gate, so all peer traffic passes through the gate (which can drop it).
 * @param {{ dir: string, basePort: number }} options  `dir` absolute
 * @returns {Layout & { ports: LocalPorts, dir: string }}
 */
export function localLayout({ dir, basePort }) {
  const ports = localPorts(basePort);
  const host = '127.0.0.1';
  return {
    kind: 'local',
    dir,
    ports,
    etcd: (member) => ({
      listenClientURL: `https://${host}:${ports.etcdClient[member]}`,
      clientURL: `https://${host}:${ports.etcdClient[member]}`,
      listenPeerURL: `https://${host}:${ports.etcdPeer[member]}`,
      peerURL: `https://${host}:${ports.etcdGate[member]}`,
      metricsURL: `http://${host}:${ports.etcdMetrics[member]}`,
      dataDir: `${dir}/${member}`,
    }),
    kapi: (replica) => ({ bindAddress: host, securePort: /** @type {number} */ (ports.kapi[replica]), host }),
    certDir: `${dir}/certs`,
    // One folder: every local process runs as the same user.
    etcdCertDir: `${dir}/etcd-certs`,
    kapiCertDir: `${dir}/etcd-certs`,
    lbListen: `${host}:${ports.lb}`,
  };
}

/** The kapi image's paths (see the Dockerfile). */
export const imagePaths = Object.freeze({
  root: '/opt/kapi',
  certDir: '/var/lib/kapi/certs',
  /** The certificate authorities' folder: only the one-shot that makes the certificates mounts it. */
  caDir: '/var/lib/kapi/ca',
  etcdCertDir: '/var/lib/kapi/etcd-certs',
  kapiCertDir: '/var/lib/kapi/pki',
  etcdDataDir: '/var/lib/etcd/data',
});

/**
 * Containers on one compose network: each service is reached by its name on the standard
 * ports (etcd 2379/2380, kapi 6443); the balancer publishes 6443 on the host.
 * @returns {Layout}
 */
export function composeLayout() {
  return {
    kind: 'compose',
    etcd: (member) => ({
      listenClientURL: 'https://0.0.0.0:2379',
      clientURL: `https://${member}:2379`,
      listenPeerURL: 'https://0.0.0.0:2380',
      peerURL: `https://${member}:2380`,
      metricsURL: 'http://0.0.0.0:2381',
      dataDir: imagePaths.etcdDataDir,
    }),
    kapi: (replica) => ({ bindAddress: '0.0.0.0', securePort: 6443, host: replica }),
    certDir: imagePaths.certDir,
    etcdCertDir: imagePaths.etcdCertDir,
    kapiCertDir: imagePaths.kapiCertDir,
    lbListen: '0.0.0.0:6443',
  };
}

/** @param {Layout} layout @returns {Command[]} every command of the cluster, etcd first. */
export function clusterCommands(layout) {
  return [
    ...etcdMembers.map((m) => etcdCommand(m, layout)),
    ...kapiReplicas.map((r) => kapiCommand(r, layout)),
    lbCommand(layout),
  ];
}

/**
 * Splits `--flag=value` arguments into [flag, value] pairs (every argument here has that form).
 * @param {readonly string[]} args
 * @returns {[string, string][]}
 */
export function flagPairs(args) {
  return args.map((arg) => {
    const eq = arg.indexOf('=');
    return eq < 0 ? [arg, ''] : [arg.slice(0, eq), arg.slice(eq + 1)];
  });
}

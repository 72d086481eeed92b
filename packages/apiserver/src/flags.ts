/**
 * kube-apiserver's command line, as far as kapi understands it: the same flag names,
 * defaults and error texts (pflag style). A kube flag kapi does not implement is a startup
 * error when set; the few accepted without effect are those kube 1.32 itself no longer reads,
 * and the kubelet client pair (kapi opens no stream to kubelets).
 */
import { builtinDefinitions, customResourceDefinitions } from '@kapi/registry';
import { KUBE_CONTROLLER_MANAGER_CONTROLLERS, resolveControllerFlag, UnknownControllerError } from '@kapi/controllers';
import { isIP } from 'node:net';
import { formatGoDuration, parseGoDuration } from './duration.js';
import { resolveRuntimeConfig, RuntimeConfigError } from './runtime-config.js';
import type { AuditMode, AuditSettings } from './audit/index.js';
import { resolveAdmissionPlugins } from './admission/plugins.js';
import { FeatureGateError, resolveFeatureGatesWithWarnings } from './feature-gates.js';

export interface ServerFlags {
  etcdServers: string[];
  etcdPrefix: string;
  etcdCompactionIntervalMs: number;
  /** --event-ttl in ms: Events expire from etcd this long after their last write (kube counts whole seconds; under 1 s: never). */
  eventTtlMs: number;
  /** --lease-reuse-duration-seconds: the most seconds an expiring write's etcd lease is granted beyond its TTL, to be shared. */
  leaseReuseDurationSeconds: number;
  securePort: number;
  bindAddress: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  certDir: string;
  /** 0 = plain HTTP off. */
  insecurePort: number;
  insecureBindAddress: string;
  minRequestTimeoutSeconds: number;
  requestTimeoutMs: number;
  /** --profiling: /debug/pprof is served. */
  profiling: boolean;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** --max-connections (kapi extension): open client connections at most; 0 = no cap. */
  maxConnections: number;
  /** --disable-http2-serving: the secure port speaks HTTP/1.1 only. */
  disableHttp2Serving: boolean;
  /** --http2-max-streams-per-connection; 0 = kube's 100. */
  http2MaxStreamsPerConnection: number;
  /** --goaway-chance: fraction of HTTP/2 requests after which the connection is sent GOAWAY (0 to 0.02). */
  goawayChance: number;
  watchCache: boolean;
  /** --watch-cache-sizes: accepted (resource#size entries) and ignored; kapi sizes its caches by time. */
  watchCacheSizes: string[];
  /** --feature-gates resolved as kube does: each gate set explicitly or by AllAlpha/AllBeta (only gates kapi implements may leave their defaults). */
  featureGates: Record<string, boolean>;
  /** What kube logs for --feature-gates: setting a GA or deprecated gate explicitly. */
  featureGateWarnings: string[];
  /** What pflag prints for each deprecated flag given (`Flag --<name> has been deprecated, <why>`), in command-line order. */
  flagWarnings: string[];
  /** --allow-privileged: containers may run privileged (kube's default: they may not). */
  allowPrivileged: boolean;
  /** --external-hostname ('' = the advertise address): the host in `/api`'s server address and the default JWKS URI. */
  externalHostname: string;
  /** --cors-allowed-origins: Origin patterns (Go regular expressions, unanchored) that get CORS headers. */
  corsAllowedOrigins: string[];
  /** --kubelet-preferred-address-types: the Node address types tried in order to reach a kubelet. */
  kubeletPreferredAddressTypes: string[];
  /** --kubelet-port: the kubelet port of a Node that reports none. */
  kubeletPort: number;
  runtimeConfig: Record<string, string>;
  verbosity: number;
  /** --logging-format: `json` (kapi's default) or `text` (klog). */
  loggingFormat: 'json' | 'text';
  shutdownDelayMs: number;
  shutdownSendRetryAfter: boolean;
  shutdownWatchTerminationGracePeriodMs: number;
  livezGracePeriodMs: number;
  etcdCountMetricPollPeriodMs: number;
  etcdDbMetricPollIntervalMs: number;
  etcdHealthcheckTimeoutMs: number;
  etcdReadycheckTimeoutMs: number;
  /** --workers (kapi extension): server processes sharing the listening ports; 0 = one per available CPU. */
  workers: number;
  /** --etcd-max-request-bytes (kapi extension): the etcd cluster's --max-request-bytes. */
  etcdMaxRequestBytes: number;
  /** --tracing-config-file ("" = no tracing). */
  tracingConfigFile: string;
  /** kube-controller-manager's --leader-elect* flags, for kapi's own controllers (namespace deletion, garbage collection). */
  enableGarbageCollector: boolean;
  enablePriorityAndFairness: boolean;
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  leaderElectResourceNamespace: string;
  leaderElectResourceName: string;
  /** --client-ca-file ("" = no client certificates requested). */
  clientCaFile: string;
  /** --token-auth-file ("" = no static tokens). */
  tokenAuthFile: string;
  /** --requestheader-* (front-proxy authentication; off without the CA file). */
  requestHeader: RequestHeaderFlags;
  /** --proxy-client-cert-file and --proxy-client-key-file ("" = none). */
  proxyClientCertFile: string;
  proxyClientKeyFile: string;
  /** --enable-aggregator-routing: aggregated APIs (and webhooks) are reached at endpoint addresses, not ClusterIPs. */
  enableAggregatorRouting: boolean;
  /** --storage-media-type: how built-in objects are written to etcd (custom resources are always JSON). */
  storageMediaType: 'application/json' | 'application/yaml' | 'application/vnd.kubernetes.protobuf';
  /** --encryption-provider-config ("" = values stored as they are). */
  encryptionProviderConfig: string;
  /** --authorization-mode, in order. */
  authorizationModes: string[];
  /** --service-cluster-ip-range ("" = kube's default 10.0.0.0/24). */
  serviceClusterIPRange: string;
  /** --service-node-port-range. */
  serviceNodePortRange: string;
  /** --advertise-address ("" = from --bind-address, else the host's default interface). */
  advertiseAddress: string;
  /** --endpoint-reconciler-type. */
  endpointReconcilerType: 'lease' | 'none';
  /** --anonymous-auth as given; kube turns it off when AlwaysAllow is among the modes (see `anonymousAllowed`). */
  anonymousAuth: boolean;
  /** --etcd-cafile, --etcd-certfile, --etcd-keyfile ("" = unset). */
  etcdCaFile: string;
  etcdCertFile: string;
  etcdKeyFile: string;
  /** The --audit-* flags of the log backend. */
  audit: AuditSettings;
  /** --service-account-issuer (repeatable; the first signs). Empty: no service account tokens (kube requires it). */
  serviceAccountIssuers: string[];
  /** --service-account-key-file (repeatable). */
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile: string;
  /** --api-audiences; empty = the issuers. */
  apiAudiences: string[];
  serviceAccountMaxTokenExpirationMs: number;
  serviceAccountExtendTokenExpiration: boolean;
  serviceAccountJwksUri: string;
  /** --service-account-lookup: tokens are refused once their service account (or bound object) is gone. */
  serviceAccountLookup: boolean;
  /** kube-controller-manager's --root-ca-file: the CA published as kube-root-ca.crt ("" = the serving certificate). */
  rootCaFile: string;
  /** The admission plugins kapi runs, resolved from --enable/--disable-admission-plugins and --admission-control. */
  admissionPlugins: string[];
  /** --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds (DefaultTolerationSeconds admission). */
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  /** --admission-control-config-file ('' when not given); bin.ts reads it (admission/config-file.ts). */
  admissionControlConfigFile: string;
  /** kube-controller-manager's --controllers, resolved: which of kapi's kube-controller-manager controllers run. */
  enabledControllers: Set<string>;
}

/** KCM's --controllers over the controllers kapi runs (@kapi/controllers' catalogue). */
function resolveControllers(entries: readonly string[]): Set<string> {
  try {
    return resolveControllerFlag(entries);
  } catch (err) {
    if (err instanceof UnknownControllerError) throw new FlagError(err.message);
    throw err;
  }
}

/**
 * Whether requests without credentials run as system:anonymous: `--anonymous-auth`, except
 * that kube resets it to false when AlwaysAllow is one of the authorization modes (logging
 * "AnonymousAuth is not allowed with the AlwaysAllow authorizer").
 */
export function anonymousAllowed(flags: Pick<ServerFlags, 'anonymousAuth' | 'authorizationModes'>): boolean {
  return flags.anonymousAuth && !flags.authorizationModes.includes('AlwaysAllow');
}

/** Thrown for a bad command line; `bin.ts` prints `Error: <message>` and exits 1. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

/** `stringArray`: pflag's StringArray, one value per occurrence (no comma splitting). */
type FlagType = 'string' | 'stringList' | 'stringArray' | 'int' | 'float' | 'bool' | 'duration' | 'mapStringString' | 'mapStringBool';

interface FlagSpec {
  readonly type: FlagType;
  readonly defaultText: string;
  readonly help: string;
  /** A kube flag kapi does not implement: a value other than the default is a startup error. */
  readonly unimplemented?: boolean;
  /** kube marks the flag deprecated: using it prints pflag's `Flag --<name> has been deprecated, <this>`. */
  readonly deprecated?: string;
}

const FLAGS: Readonly<Record<string, FlagSpec>> = {
  'etcd-servers': { type: 'stringList', defaultText: '', help: 'List of etcd servers to connect with (scheme://ip:port), comma separated.' },
  'etcd-prefix': { type: 'string', defaultText: '/registry', help: 'The prefix to prepend to all resource paths in etcd.' },
  'etcd-compaction-interval': { type: 'duration', defaultText: '5m0s', help: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.' },
  'lease-reuse-duration-seconds': { type: 'int', defaultText: '60', help: 'The time in seconds that each lease is reused. A lower value could avoid large number of objects reusing the same lease. Notice that a too small value may cause performance problems at storage layer.' },
  'event-ttl': { type: 'duration', defaultText: '1h0m0s', help: 'Amount of time to retain events.' },
  'secure-port': { type: 'int', defaultText: '6443', help: 'The port on which to serve HTTPS with authentication and authorization. It cannot be switched off with 0.' },
  'bind-address': { type: 'string', defaultText: '0.0.0.0', help: 'The IP address on which to listen for the --secure-port port.' },
  'tls-cert-file': { type: 'string', defaultText: '', help: 'File containing the default x509 Certificate for HTTPS. If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory specified by --cert-dir.' },
  'tls-private-key-file': { type: 'string', defaultText: '', help: 'File containing the default x509 private key matching --tls-cert-file.' },
  'cert-dir': { type: 'string', defaultText: '/var/run/kubernetes', help: 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.' },
  'insecure-port': { type: 'int', defaultText: '0', help: 'The port on which to serve unsecured, unauthenticated HTTP (kapi extension for benchmarks and local use). 0 disables it.' },
  'insecure-bind-address': { type: 'string', defaultText: '127.0.0.1', help: 'The IP address on which to serve the --insecure-port.' },
  'min-request-timeout': { type: 'int', defaultText: '1800', help: 'The minimum number of seconds a handler must keep a request open before timing it out (watch requests).' },
  'request-timeout': { type: 'duration', defaultText: '1m0s', help: 'The duration a handler must keep a request open before timing it out.' },
  'max-requests-inflight': { type: 'int', defaultText: '400', help: 'The maximum number of non-mutating requests in flight at a given time. 0 means no limit.' },
  'max-mutating-requests-inflight': { type: 'int', defaultText: '200', help: 'The maximum number of mutating requests in flight at a given time. 0 means no limit.' },
  'max-connections': {
    type: 'int',
    defaultText: '20000',
    help: 'The maximum number of open client connections, over all listeners (kapi extension). At the limit, a new connection closes the one idle the longest (no request in progress), or is refused when every connection is serving a request. Lowered at start to leave a quarter (at most 1024) of the open-files limit free. 0 means no limit.',
  },
  'disable-http2-serving': { type: 'bool', defaultText: 'false', help: 'If true, HTTP2 serving will be disabled [default=false]' },
  'http2-max-streams-per-connection': { type: 'int', defaultText: '0', help: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default." },
  'goaway-chance': {
    type: 'float',
    defaultText: '0',
    help: "To prevent HTTP/2 clients from getting stuck on a single apiserver, randomly close a connection (GOAWAY). The client's other in-flight requests won't be affected, and the client will reconnect, likely landing on a different apiserver after going through the load balancer again. This argument sets the fraction of requests that will be sent a GOAWAY. Clusters with single apiservers, or which don't use a load balancer, should NOT enable this. Min is 0 (off), Max is .02 (1/50 requests); .001 (1/1000) is a recommended starting point.",
  },
  'watch-cache': { type: 'bool', defaultText: 'true', help: 'Enable watch caching in the apiserver.' },
  'watch-cache-sizes': { type: 'stringList', defaultText: '', help: 'Watch cache size settings for some resources (resource[.group]#size). Accepted for compatibility; kapi sizes its watch caches by a time window and ignores it.' },
  'feature-gates': { type: 'stringArray', defaultText: '', help: 'Comma-separated list of [kube:]key=value pairs that describe feature gates; kube-apiserver 1.32\'s gates and rules (unknown gates and gates set against their lock are errors). kapi implements ConsistentListFromCache (default true), AllowUnsafeMalformedObjectDeletion (default false) and RemoteRequestHeaderUID (allows --requestheader-uid-headers); any other gate is accepted only at its kube default (AllAlpha/AllBeta too), otherwise kapi refuses to start.' },
  'runtime-config': { type: 'mapStringString', defaultText: '', help: 'A set of key=value pairs that enable or disable built-in APIs. Supported options are: v1=true|false for the core API group; <group>/<version>=true|false for a specific API group and version (e.g. events.k8s.io/v1beta1=false); <group>/<version>/<resource>=true|false for one resource; api/all, api/ga, api/beta, api/alpha=true|false for all versions, versions of the form v[0-9]+, v[0-9]+beta[0-9]+, v[0-9]+alpha[0-9]+.' },
  v: { type: 'int', defaultText: '0', help: 'Number for the log level verbosity. Every request is logged from 3 on.' },
  'logging-format': { type: 'string', defaultText: 'json', help: 'Sets the log format. Permitted formats: "json", "text". kapi writes JSON by default (kube-apiserver: text).' },
  'shutdown-delay-duration': { type: 'duration', defaultText: '0s', help: 'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.' },
  'shutdown-send-retry-after': { type: 'bool', defaultText: 'false', help: 'If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a \'Retry-After\' response header, in addition \'Connection: close\' response header is set in order to tear down the TCP connection when idle.' },
  'shutdown-watch-termination-grace-period': { type: 'duration', defaultText: '0s', help: 'This option, if set, represents the maximum amount of grace period the apiserver will wait for active watch request(s) to drain during the graceful server shutdown window.' },
  'livez-grace-period': { type: 'duration', defaultText: '0s', help: 'This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. From apiserver\'s start time to when this amount of time has elapsed, /livez will assume that unfinished post-start hooks will complete successfully and therefore return true.' },
  'etcd-count-metric-poll-period': { type: 'duration', defaultText: '1m0s', help: 'Frequency of polling etcd for number of resources per type. 0 disables the metric collection.' },
  'etcd-db-metric-poll-interval': { type: 'duration', defaultText: '30s', help: 'The interval of requests to poll etcd and update metric. 0 disables the metric collection' },
  'etcd-healthcheck-timeout': { type: 'duration', defaultText: '2s', help: 'The timeout to use when checking etcd health.' },
  'etcd-readycheck-timeout': { type: 'duration', defaultText: '2s', help: 'The timeout to use when checking etcd readiness' },
  'workers': { type: 'int', defaultText: '1', help: 'The number of server processes of this apiserver (kapi extension; kube-apiserver uses every core in one process). Each worker is a full replica with its own etcd client and watch caches (memory grows with the count) sharing the listening ports; a primary process restarts a worker that dies and forwards SIGTERM. The in-flight and connection limits are for the whole server, divided evenly among the workers. 1 runs one process, no primary. 0 means one per available CPU (bounded by the cgroup CPU quota).' },
  'etcd-max-request-bytes': { type: 'int', defaultText: '1572864', help: 'The etcd cluster\'s --max-request-bytes (kapi extension; kube-apiserver has no such flag). A create or update whose etcd request would be larger is refused, without being sent, with the 500 kube-apiserver answers when etcd refuses it ("etcdserver: request is too large"; over this plus 512 KiB, the gRPC send-limit error). The default is etcd\'s default.' },
  'tracing-config-file': { type: 'string', defaultText: '', help: 'File with apiserver tracing configuration.' },
  version: { type: 'string', defaultText: 'false', help: '--version, --version=raw prints version information and quits.' },
  'enable-garbage-collector': { type: 'bool', defaultText: 'true', help: 'Enables the generic garbage collector. MUST be synced with the corresponding flag of the kube-controller-manager.' },
  'enable-priority-and-fairness': { type: 'bool', defaultText: 'true', help: 'If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness (kapi: keeps the max-in-flight limits and, when true, the FlowSchemas\' Dangling conditions as kube\'s config consumer writes them)' },
  'service-cluster-ip-range': { type: 'string', defaultText: '', help: 'A CIDR notation IP range from which to assign service cluster IPs. This must not overlap with any IP ranges assigned to nodes or pods. Default 10.0.0.0/24. kapi serves single-stack services: one CIDR.' },
  'service-node-port-range': { type: 'string', defaultText: '30000-32767', help: 'A port range to reserve for services with NodePort visibility. This must not overlap with the ephemeral port range on nodes. Example: \'30000-32767\'. Inclusive at both ends of the range.' },
  'advertise-address': { type: 'string', defaultText: '', help: 'The IP address on which to advertise the apiserver to members of the cluster (the `kubernetes` Endpoints). This address must be reachable by the rest of the cluster. If blank, the --bind-address will be used. If --bind-address is unspecified, the host\'s default interface will be used.' },
  'endpoint-reconciler-type': { type: 'string', defaultText: 'lease', help: 'Use an endpoint reconciler (lease, none) for the `kubernetes` Endpoints and EndpointSlice. kapi does not build master-count.' },
  // kube-controller-manager's leader election flags, for the kube-controller-manager controllers kapi runs itself (--controllers).
  'leader-elect': { type: 'bool', defaultText: 'true', help: 'Start a leader election client and gain leadership before executing the main loop (kapi\'s kube-controller-manager controllers). Enable this when running replicated components for high availability.' },
  'leader-elect-lease-duration': { type: 'duration', defaultText: '15s', help: 'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate. This is only applicable if leader election is enabled.' },
  'leader-elect-renew-deadline': { type: 'duration', defaultText: '10s', help: 'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration. This is only applicable if leader election is enabled.' },
  'leader-elect-retry-period': { type: 'duration', defaultText: '2s', help: 'The duration the clients should wait between attempting acquisition and renewal of a leadership. This is only applicable if leader election is enabled.' },
  'leader-elect-resource-namespace': { type: 'string', defaultText: 'kube-system', help: 'The namespace of resource object that is used for locking during leader election.' },
  'leader-elect-resource-name': { type: 'string', defaultText: 'kapi-controller-manager', help: 'The name of resource object that is used for locking during leader election.' },
  'client-ca-file': { type: 'string', defaultText: '', help: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.' },
  'requestheader-client-ca-file': { type: 'string', defaultText: '', help: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.' },
  'requestheader-allowed-names': { type: 'stringList', defaultText: '', help: 'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.' },
  'requestheader-username-headers': { type: 'stringList', defaultText: '', help: 'List of request headers to inspect for usernames. X-Remote-User is common.' },
  'requestheader-uid-headers': { type: 'stringList', defaultText: '', help: 'List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.' },
  'requestheader-group-headers': { type: 'stringList', defaultText: '', help: 'List of request headers to inspect for groups. X-Remote-Group is suggested.' },
  'requestheader-extra-headers-prefix': { type: 'stringList', defaultText: '', help: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.' },
  'proxy-client-cert-file': { type: 'string', defaultText: '', help: 'Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. kapi presents it to aggregated API servers (APIServices with a service).' },
  'proxy-client-key-file': { type: 'string', defaultText: '', help: 'Private key for the client certificate of --proxy-client-cert-file.' },
  'enable-aggregator-routing': { type: 'bool', defaultText: 'false', help: 'Turns on aggregator routing requests to endpoints IP rather than cluster IP.' },
  'token-auth-file': { type: 'string', defaultText: '', help: 'If set, the file that will be used to secure the secure port of the API server via token authentication.' },
  'authorization-mode': { type: 'stringList', defaultText: 'AlwaysAllow', help: 'Ordered list of plug-ins to do authorization on secure port. kapi builds AlwaysAllow,AlwaysDeny,RBAC,Node (kube also has ABAC,Webhook: a startup error here).' },
  'storage-media-type': { type: 'string', defaultText: 'application/vnd.kubernetes.protobuf', help: 'The media type to use to store objects in storage. Some resources or storage backends may only support a specific media type and will ignore this setting. Supported media types: [application/json, application/yaml, application/vnd.kubernetes.protobuf]' },
  'encryption-provider-config': { type: 'string', defaultText: '', help: 'The file containing configuration for encryption providers to be used for storing secrets in etcd' },
  'anonymous-auth': { type: 'bool', defaultText: 'true', help: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.' },
  'etcd-cafile': { type: 'string', defaultText: '', help: 'SSL Certificate Authority file used to secure etcd communication.' },
  'etcd-certfile': { type: 'string', defaultText: '', help: 'SSL certification file used to secure etcd communication.' },
  'etcd-keyfile': { type: 'string', defaultText: '', help: 'SSL key file used to secure etcd communication.' },
  'audit-policy-file': { type: 'string', defaultText: '', help: 'Path to the file that defines the audit policy configuration.' },
  'audit-log-path': { type: 'string', defaultText: '', help: 'If set, all requests coming to the apiserver will be logged to this file.  \'-\' means standard out.' },
  'audit-log-maxage': { type: 'int', defaultText: '0', help: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' },
  'audit-log-maxbackup': { type: 'int', defaultText: '0', help: 'The maximum number of old audit log files to retain. Setting a value of 0 will mean there\'s no restriction on the number of files.' },
  'audit-log-maxsize': { type: 'int', defaultText: '0', help: 'The maximum size in megabytes of the audit log file before it gets rotated.' },
  'audit-log-compress': { type: 'bool', defaultText: 'false', help: 'If set, the rotated log files will be compressed using gzip.' },
  'audit-log-format': { type: 'string', defaultText: 'json', help: 'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json. kapi writes json only (legacy is a startup error).' },
  'audit-log-mode': { type: 'string', defaultText: 'blocking', help: 'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict. kapi writes events off the request path in every mode; blocking-strict fails a request whose event cannot be queued.' },
  'audit-log-version': { type: 'string', defaultText: 'audit.k8s.io/v1', help: 'API group and version used for serializing audit events written to log.' },
  'audit-log-batch-buffer-size': { type: 'int', defaultText: '10000', help: 'The size of the buffer to store events before batching and writing. Only used in batch mode.' },
  'audit-log-batch-max-size': { type: 'int', defaultText: '1', help: 'The maximum size of a batch. Only used in batch mode.' },
  'audit-log-batch-max-wait': { type: 'duration', defaultText: '0s', help: 'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.' },
  'audit-log-batch-throttle-enable': { type: 'bool', defaultText: 'false', help: 'Whether batching throttling is enabled. Only used in batch mode. Not implemented by kapi: true is a startup error.' },
  'audit-log-batch-throttle-qps': { type: 'string', defaultText: '0', help: 'Maximum average number of batches per second. Only used in batch mode.' },
  'audit-log-batch-throttle-burst': { type: 'int', defaultText: '0', help: 'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.' },
  'audit-log-truncate-enabled': { type: 'bool', defaultText: 'false', help: 'Whether event and batch truncating is enabled.' },
  'audit-log-truncate-max-batch-size': { type: 'int', defaultText: '10485760', help: 'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.' },
  'audit-log-truncate-max-event-size': { type: 'int', defaultText: '102400', help: 'Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn\'t reduce the size enough, event is discarded.' },
  'audit-webhook-config-file': { type: 'string', defaultText: '', help: 'Path to a kubeconfig formatted file that defines the audit webhook configuration.' },
  'audit-webhook-mode': { type: 'string', defaultText: 'batch', help: 'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.' },
  'audit-webhook-version': { type: 'string', defaultText: 'audit.k8s.io/v1', help: 'API group and version used for serializing audit events written to webhook.' },
  'audit-webhook-initial-backoff': { type: 'duration', defaultText: '10s', help: 'The amount of time to wait before retrying the first failed request.' },
  'audit-webhook-batch-buffer-size': { type: 'int', defaultText: '10000', help: 'The size of the buffer to store events before batching and writing. Only used in batch mode.' },
  'audit-webhook-batch-max-size': { type: 'int', defaultText: '400', help: 'The maximum size of a batch. Only used in batch mode.' },
  'audit-webhook-batch-max-wait': { type: 'duration', defaultText: '30s', help: 'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.' },
  'audit-webhook-batch-throttle-enable': { type: 'bool', defaultText: 'true', help: 'Whether batching throttling is enabled. Only used in batch mode.' },
  'audit-webhook-batch-throttle-qps': { type: 'float', defaultText: '10', help: 'Maximum average number of batches per second. Only used in batch mode.' },
  'audit-webhook-batch-throttle-burst': { type: 'int', defaultText: '15', help: 'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.' },
  'audit-webhook-truncate-enabled': { type: 'bool', defaultText: 'false', help: 'Whether event and batch truncating is enabled.' },
  'audit-webhook-truncate-max-batch-size': { type: 'int', defaultText: '10485760', help: 'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.' },
  'audit-webhook-truncate-max-event-size': { type: 'int', defaultText: '102400', help: 'Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn\'t reduce the size enough, event is discarded.' },
  'service-account-issuer': { type: 'stringArray', defaultText: '', help: 'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. If it is not an https URL, issuer discovery (/.well-known/openid-configuration) is not served. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted. kapi serves no service account tokens without it (kube-apiserver requires it).' },
  'service-account-key-file': { type: 'stringArray', defaultText: '', help: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. Must be specified when --service-account-signing-key-file is provided' },
  'service-account-signing-key-file': { type: 'string', defaultText: '', help: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key.' },
  'api-audiences': { type: 'stringList', defaultText: '', help: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.' },
  'service-account-max-token-expiration': { type: 'duration', defaultText: '0s', help: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.' },
  'service-account-extend-token-expiration': { type: 'bool', defaultText: 'true', help: 'Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.' },
  'service-account-jwks-uri': { type: 'string', defaultText: '', help: 'Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. Default: https://<advertise address>:<secure port>/openid/v1/jwks.' },
  'service-account-lookup': { type: 'bool', defaultText: 'true', help: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.' },
  'root-ca-file': { type: 'string', defaultText: '', help: 'kube-controller-manager\'s flag (kapi runs its root CA publisher): the CA bundle published as ca.crt of the kube-root-ca.crt ConfigMap in every namespace and of service account token Secrets. Default: the serving certificate (--tls-cert-file, or the generated one).' },
  controllers: { type: 'stringList', defaultText: '*', help: `kube-controller-manager's list of controllers to enable, for those kapi runs: '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. kapi runs ${KUBE_CONTROLLER_MANAGER_CONTROLLERS.join(', ')}; switch them off when the real kube-controller-manager runs them.` },
  'enable-admission-plugins': { type: 'stringList', defaultText: '', help: 'admission plugins that should be enabled in addition to default enabled ones (kube\'s default set; see the README for the plugins kapi builds). Naming a plugin kapi does not build is a startup error.' },
  'disable-admission-plugins': { type: 'stringList', defaultText: '', help: 'admission plugins that should be disabled although they are in the default enabled plugins list.' },
  'admission-control-config-file': { type: 'string', defaultText: '', help: 'File with admission control configuration (an AdmissionConfiguration; kapi reads the PodSecurity plugin\'s PodSecurityConfiguration and refuses configuration for its other plugins).' },
  'default-not-ready-toleration-seconds': { type: 'int', defaultText: '300', help: 'Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.' },
  'default-unreachable-toleration-seconds': { type: 'int', defaultText: '300', help: 'Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.' },
  'admission-control': { type: 'stringList', defaultText: '', help: 'Exactly the admission plugins to run; given empty, none runs (DEPRECATED: Use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.)', deprecated: 'Use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.' },
  // kube security flags kapi does not implement yet: setting one is a startup error, never silently ignored.
  ...unimplementedFlags([
    'service-account-signing-endpoint',
    'tls-cipher-suites', 'tls-min-version',
    'authorization-config', 'authentication-config', 'oidc-issuer-url', 'authorization-webhook-config-file',
    'authentication-token-webhook-config-file', 'authorization-policy-file',
  ], ['enable-bootstrap-token-auth', 'encryption-provider-config-automatic-reload', 'contention-profiling']),
  // Accepted without effect, as in kube-apiserver 1.32 itself: deprecated flags kube no longer reads, and
  // flags for what kapi does not do (it opens no stream to kubelets, so it has no kubelet client pair to use).
  'default-watch-cache-size': { type: 'int', defaultText: '100', help: 'Default watch cache size. If zero, watch cache will be disabled for resources that do not have a default watch size set. kube 1.32 no longer reads it; nor does kapi.', deprecated: 'watch caches are sized automatically and this flag will be removed in a future version' },
  'apiserver-count': { type: 'int', defaultText: '1', help: 'The number of apiservers running in the cluster, must be a positive number. (In use when --endpoint-reconciler-type=master-count is enabled, which kapi does not build.)', deprecated: 'apiserver-count is deprecated and will be removed in a future version.' },
  'storage-initialization-timeout': { type: 'duration', defaultText: '1m0s', help: 'Maximum amount of time to wait for storage initialization before declaring apiserver ready. kube reads it only with the WatchCacheInitializationPostStartHook gate, which kapi does not offer.' },
  'kubelet-client-certificate': { type: 'string', defaultText: '', help: 'Path to a client cert file for TLS. kapi opens no stream to kubelets (pods/log, exec and the node proxy answer kube\'s errors up to the dial), so it presents no certificate.' },
  'kubelet-client-key': { type: 'string', defaultText: '', help: 'Path to a client key file for TLS. kapi opens no stream to kubelets, so it presents no key.' },
  'kubelet-preferred-address-types': { type: 'stringList', defaultText: 'Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP', help: 'List of the preferred NodeAddressTypes to use for kubelet connections.' },
  'kubelet-port': { type: 'int', defaultText: '10250', help: 'The kubelet port, for a Node that reports none.', deprecated: 'kubelet-port is deprecated and will be removed.' },
  'allow-privileged': { type: 'bool', defaultText: 'false', help: 'If true, allow privileged containers. [default=false]' },
  'external-hostname': { type: 'string', defaultText: '', help: 'The hostname to use when generating externalized URLs for this master (e.g. Swagger API Docs or OpenID Discovery).' },
  'cors-allowed-origins': { type: 'stringList', defaultText: '', help: "List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to support subdomain matching. If this list is empty CORS will not be enabled. Please ensure each expression matches the entire hostname by anchoring to the start with '^' or including the '//' prefix, and by anchoring to the end with '$' or including the ':' port separator suffix. Examples of valid expressions are '//example\\.com(:|$)' and '^https://example\\.com(:|$)'" },
  'storage-backend': { type: 'string', defaultText: '', help: "The storage backend for persistence. Options: 'etcd3' (default)." },
  'etcd-servers-overrides': { type: 'stringList', defaultText: '', help: 'Per-resource etcd servers overrides, comma separated. The individual override format: group/resource#servers, where servers are URLs, semicolon separated. kapi keeps every resource on --etcd-servers: a valid override is a startup error.', unimplemented: true },
  'max-connection-bytes-per-sec': { type: 'int', defaultText: '0', help: 'If non-zero, throttle each user connection to this number of bytes/sec. Currently only applies to long-running requests. kapi does not throttle: a non-zero value is a startup error.', unimplemented: true },
  profiling: { type: 'bool', defaultText: 'true', help: 'Enable profiling via web interface host:port/debug/pprof/ (V8\'s CPU and heap profiles of the process that answers, in pprof\'s format)' },
};

function unimplementedFlags(strings: string[], bools: string[]): Record<string, FlagSpec> {
  const out: Record<string, FlagSpec> = {};
  const help = 'A kube-apiserver flag kapi does not implement: setting it is a startup error.';
  for (const name of strings) out[name] = { type: 'string', defaultText: '', help, unimplemented: true };
  for (const name of bools) out[name] = { type: 'bool', defaultText: 'false', help, unimplemented: true };
  return out;
}

const SHORTHANDS: Readonly<Record<string, string>> = { v: 'v' };

type FlagValue = string | string[] | number | boolean | Record<string, string> | Record<string, boolean>;

/** Go's strconv.ParseBool. */
function parseGoBool(raw: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(raw)) return false;
  return undefined;
}

function invalidArgument(value: string, name: string, detail: string): FlagError {
  return new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: ${detail}`);
}

function parseValue(name: string, spec: FlagSpec, raw: string): FlagValue {
  switch (spec.type) {
    case 'string':
      return raw;
    case 'stringList':
      return raw === '' ? [] : raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
    case 'stringArray':
      return raw === '' ? [] : [raw];
    case 'int': {
      if (!/^[+-]?[0-9]+$/.test(raw)) throw invalidArgument(raw, name, `strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) throw invalidArgument(raw, name, `strconv.ParseInt: parsing ${JSON.stringify(raw)}: value out of range`);
      return n;
    }
    case 'float': {
      // Go's strconv.ParseFloat (decimal forms, Inf, NaN).
      if (!/^[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|inf|infinity|nan)$/i.test(raw)) {
        throw invalidArgument(raw, name, `strconv.ParseFloat: parsing ${JSON.stringify(raw)}: invalid syntax`);
      }
      const lower = raw.toLowerCase().replace(/^\+/, '');
      return lower === 'nan' ? NaN : lower.endsWith('inf') || lower.endsWith('infinity') ? (lower.startsWith('-') ? -Infinity : Infinity) : Number(raw);
    }
    case 'bool': {
      const parsed = parseGoBool(raw);
      if (parsed !== undefined) return parsed;
      throw invalidArgument(raw, name, `strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
    }
    case 'duration':
      try {
        return parseGoDuration(raw);
      } catch (err) {
        throw invalidArgument(raw, name, (err as Error).message);
      }
    case 'mapStringBool': {
      // kube's feature gate parsing: `missing bool value for X`, `invalid value of X=v, err: ...`.
      const out: Record<string, boolean> = {};
      for (const pair of raw.split(',').filter((p) => p.trim() !== '')) {
        const eq = pair.indexOf('=');
        const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
        if (eq < 0) throw invalidArgument(raw, name, `missing bool value for ${key}`);
        const value = pair.slice(eq + 1).trim();
        const parsed = parseGoBool(value);
        if (parsed === undefined) throw invalidArgument(raw, name, `invalid value of ${key}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
        out[key] = parsed;
      }
      return out;
    }
    case 'mapStringString': {
      const out: Record<string, string> = {};
      for (const pair of raw.split(',').filter((p) => p.trim() !== '')) {
        const eq = pair.indexOf('=');
        if (eq < 0) throw invalidArgument(raw, name, `${pair} must be formatted as key=value`);
        out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
      }
      return out;
    }
  }
}

/** Splits argv into flag name/value pairs (pflag rules); throws FlagError for unknown flags or stray arguments. */
function scan(argv: readonly string[], program: string): Map<string, FlagValue> | 'help' {
  const values = new Map<string, FlagValue>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') return 'help';
    let name: string;
    let inline: string | undefined;
    let display: string;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
      display = `--${name}`;
    } else if (arg.startsWith('-') && arg.length > 1) {
      const body = arg.slice(1);
      const short = body[0]!;
      const long = SHORTHANDS[short];
      if (long === undefined) throw new FlagError(`unknown shorthand flag: '${short}' in ${arg}`);
      name = long;
      const tail = body.slice(1);
      inline = tail === '' ? undefined : tail.startsWith('=') ? tail.slice(1) : tail;
      display = `-${short}`;
    } else {
      positional.push(arg);
      continue;
    }
    const spec = FLAGS[name];
    if (spec === undefined) throw new FlagError(`unknown flag: ${display}`);
    let raw: string;
    if (inline !== undefined) raw = inline;
    else if (spec.type === 'bool' || name === 'version') raw = 'true';
    else if (i + 1 < argv.length) raw = argv[++i]!;
    else throw new FlagError(`flag needs an argument: ${display}`);
    const value = parseValue(name, spec, raw);
    const previous = values.get(name);
    if ((spec.type === 'stringList' || spec.type === 'stringArray') && Array.isArray(previous)) values.set(name, [...previous, ...(value as string[])]);
    else if ((spec.type === 'mapStringString' || spec.type === 'mapStringBool') && previous !== undefined) values.set(name, { ...(previous as Record<string, unknown>), ...(value as Record<string, unknown>) } as FlagValue);
    else values.set(name, value);
  }
  if (positional.length > 0) {
    throw new FlagError(`${JSON.stringify(program)} does not take any arguments, got [${positional.map((p) => JSON.stringify(p)).join(' ')}]`);
  }
  return values;
}

function validatePort(name: string, port: number, allowZero: boolean): void {
  if (allowZero && port === 0) return;
  if (port >= 1 && port <= 65535) return;
  throw new FlagError(
    allowZero
      ? `--${name} ${port} must be between 0 and 65535, inclusive. 0 for turning off insecure (HTTP) port.`
      : `--${name} ${port} must be between 1 and 65535, inclusive. It cannot be turned off with 0`,
  );
}

/**
 * The leader election timings as client-go's NewLeaderElector checks them (kube-controller-manager
 * exits with these texts): the lease must outlast the renew deadline, which must exceed
 * 1.2 retry periods, and each must be positive.
 */
function validateLeaderElection(flags: ServerFlags): void {
  const lease = flags.leaderElectLeaseDurationMs;
  const renew = flags.leaderElectRenewDeadlineMs;
  const retry = flags.leaderElectRetryPeriodMs;
  if (lease <= renew) throw new FlagError('leaseDuration must be greater than renewDeadline');
  if (renew <= 1.2 * retry) throw new FlagError('renewDeadline must be greater than retryPeriod*JitterFactor');
  if (lease < 1) throw new FlagError('leaseDuration must be greater than zero');
  if (renew < 1) throw new FlagError('renewDeadline must be greater than zero');
  if (retry < 1) throw new FlagError('retryPeriod must be greater than zero');
  if (flags.leaderElectResourceNamespace === '') throw new FlagError('leaderElection.resourceNamespace: Required value: resourceNamespace is required');
  if (flags.leaderElectResourceName === '') throw new FlagError('leaderElection.resourceName: Required value: resourceName is required');
}

/**
 * The service network flags, with kube's texts: pflag's for values that do not parse, kube's
 * options validation for a range that is too large or of the wrong family. kapi serves
 * single-stack services only: a second CIDR is refused.
 */
function validateServiceNetwork(flags: ServerFlags): void {
  if (flags.advertiseAddress !== '' && isIP(flags.advertiseAddress) === 0) {
    throw invalidArgument(flags.advertiseAddress, 'advertise-address', `failed to parse IP: ${JSON.stringify(flags.advertiseAddress)}`);
  }
  const ports = flags.serviceNodePortRange.split('-');
  const badPort = (text: string) => invalidArgument(flags.serviceNodePortRange, 'service-node-port-range', `strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  for (const part of ports.slice(0, 2)) if (!/^\d+$/.test(part)) throw badPort(part);
  if (ports.length !== 2) throw invalidArgument(flags.serviceNodePortRange, 'service-node-port-range', `invalid port range: ${JSON.stringify(flags.serviceNodePortRange)}`);
  if (Number(ports[1]) < Number(ports[0])) {
    throw invalidArgument(flags.serviceNodePortRange, 'service-node-port-range', `end port cannot be less than start port: ${flags.serviceNodePortRange}`);
  }
  if (flags.endpointReconcilerType !== 'lease' && flags.endpointReconcilerType !== 'none') {
    if (flags.endpointReconcilerType === 'master-count') throw new FlagError('--endpoint-reconciler-type=master-count is not implemented by kapi (lease, none)');
    throw new FlagError(`Reconciler not implemented: ${String(flags.endpointReconcilerType)}`);
  }
  if (flags.serviceClusterIPRange === '') return;
  const cidrs = flags.serviceClusterIPRange.split(',');
  if (cidrs.length > 2) throw new FlagError('--service-cluster-ip-range must not contain more than two entries');
  const parsed = cidrs.map((cidr, i) => {
    const [ip, bits] = cidr.split('/');
    if (ip === undefined || bits === undefined || !/^\d+$/.test(bits) || isIP(ip) === 0 || Number(bits) > (isIP(ip) === 4 ? 32 : 128)) {
      throw new FlagError(`service-cluster-ip-range[${i}] is not a valid cidr`);
    }
    return { family: isIP(ip), bits: Number(bits), cidr };
  });
  if (parsed.length === 2) {
    if (parsed[0]!.family === parsed[1]!.family) throw new FlagError('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
    throw new FlagError('dual-stack --service-cluster-ip-range is not implemented by kapi: give one CIDR');
  }
  const primary = parsed[0]!;
  const errs: string[] = [];
  if (primary.family === 4 && primary.bits < 12) errs.push('specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12');
  if (primary.family === 6 && primary.bits < 108) errs.push('specified --service-cluster-ip-range is too large; for 128-bit addresses, the mask must be >= 108');
  if (flags.advertiseAddress !== '' && isIP(flags.advertiseAddress) !== primary.family) {
    errs.push(`service IP family ${JSON.stringify(primary.cidr)} must match public address family ${JSON.stringify(flags.advertiseAddress)}`);
  }
  if (errs.length === 1) throw new FlagError(errs[0]!);
  if (errs.length > 1) throw new FlagError(`[${errs.join(', ')}]`);
}

/** kube's audit webhook option checks (only when --audit-webhook-config-file is set), in kube's order. */
function validateAuditWebhook(get: <T extends FlagValue>(name: string) => T): void {
  const modes = ['batch', 'blocking', 'blocking-strict'];
  const mode = get<string>('audit-webhook-mode');
  if (!modes.includes(mode)) throw new FlagError(`invalid audit webhook mode ${mode}, allowed modes are ${JSON.stringify(modes.join(','))}`);
  if (mode === 'batch') {
    const positive = (flag: string, what: string) => {
      const value = get<number>(flag);
      if (!(value > 0)) throw new FlagError(`invalid audit batch webhook ${what} ${value}, must be a positive number`);
    };
    positive('audit-webhook-batch-buffer-size', 'buffer size');
    positive('audit-webhook-batch-max-size', 'max batch size');
    if (get<boolean>('audit-webhook-batch-throttle-enable')) {
      positive('audit-webhook-batch-throttle-qps', 'throttle QPS');
      positive('audit-webhook-batch-throttle-burst', 'throttle burst');
    }
  }
  const maxEvent = get<number>('audit-webhook-truncate-max-event-size');
  const maxBatch = get<number>('audit-webhook-truncate-max-batch-size');
  if (maxEvent <= 0) throw new FlagError(`invalid audit truncate webhook max event size ${maxEvent}, must be a positive number`);
  if (maxBatch < maxEvent) throw new FlagError(`invalid audit truncate webhook max batch size ${maxBatch}, must be greater than max event size (${maxEvent})`);
  if (get<string>('audit-webhook-version') !== 'audit.k8s.io/v1') throw new FlagError('invalid group version, allowed versions are ["audit.k8s.io/v1"]');
}

/** kube's audit log option checks (only when --audit-log-path is set), then what kapi does not build. */
function validateAuditLog(audit: AuditSettings, get: <T extends FlagValue>(name: string) => T): void {
  const modes = ['batch', 'blocking', 'blocking-strict'];
  if (!modes.includes(audit.mode ?? '')) throw new FlagError(`invalid audit log mode ${audit.mode}, allowed modes are ${JSON.stringify(modes.join(','))}`);
  if (audit.mode === 'batch') {
    if ((audit.bufferSize ?? 0) <= 0) throw new FlagError(`invalid audit batch log buffer size ${audit.bufferSize}, must be a positive number`);
    if ((audit.maxBatchSize ?? 0) <= 0) throw new FlagError(`invalid audit batch log max batch size ${audit.maxBatchSize}, must be a positive number`);
    if (get<boolean>('audit-log-batch-throttle-enable')) throw new FlagError('--audit-log-batch-throttle-enable is not implemented by kapi');
  }
  // kube checks the truncate sizes whether or not truncating is on.
  const maxBatch = get<number>('audit-log-truncate-max-batch-size');
  const maxEvent = get<number>('audit-log-truncate-max-event-size');
  if (maxEvent <= 0) throw new FlagError(`invalid audit truncate log max event size ${maxEvent}, must be a positive number`);
  if (maxBatch < maxEvent) throw new FlagError(`invalid audit truncate log max batch size ${maxBatch}, must be greater than max event size (${maxEvent})`);
  const version = get<string>('audit-log-version');
  if (version !== 'audit.k8s.io/v1') throw new FlagError('invalid group version, allowed versions are ["audit.k8s.io/v1"]');
  const format = get<string>('audit-log-format');
  if (format !== 'json' && format !== 'legacy') throw new FlagError(`invalid audit log format ${format}, allowed formats are "legacy,json"`);
  if (format === 'legacy') throw new FlagError('--audit-log-format=legacy is not implemented by kapi (json is)');
  if ((audit.maxAgeDays ?? 0) < 0) throw new FlagError(`--audit-log-maxage ${audit.maxAgeDays} can't be a negative number`);
  if ((audit.maxBackups ?? 0) < 0) throw new FlagError(`--audit-log-maxbackup ${audit.maxBackups} can't be a negative number`);
  if ((audit.maxSizeMb ?? 0) < 0) throw new FlagError(`--audit-log-maxsize ${audit.maxSizeMb} can't be a negative number`);
}

/** The largest --service-account-max-token-expiration kube allows (2^32 s), and the smallest (an hour). */
const MAX_TOKEN_EXPIRATION_MS = 2 ** 32 * 1000;
const MIN_TOKEN_EXPIRATION_MS = 3600 * 1000;

/**
 * kube's service account flag checks, in its order. kapi runs without service account
 * tokens when none of the issuer, key, signing key and audience flags is given (kube
 * requires them); once one is given, kube's rules apply.
 */
export interface RequestHeaderFlags {
  clientCaFile: string;
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** kube's RequestHeaderAuthenticationOptions checks. */
function requestHeaderErrors(flags: ServerFlags): string[] {
  // kube also refuses blank entries ("empty value in ..."); kapi's list parser drops them.
  const errors: string[] = [];
  const h = flags.requestHeader;
  if (h.uidHeaders.length > 0 && flags.featureGates['RemoteRequestHeaderUID'] !== true) errors.push('--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled');
  return errors;
}

function serviceAccountErrors(flags: ServerFlags): string[] {
  const attempted = flags.serviceAccountIssuers.length > 0 || flags.serviceAccountSigningKeyFile !== '' || flags.apiAudiences.length > 0;
  if (!attempted && flags.serviceAccountKeyFiles.length === 0) return [];
  const errors: string[] = [];
  if (flags.serviceAccountIssuers.length === 0) errors.push('service-account-issuer is a required flag');
  const seen = new Set<string>();
  for (const issuer of flags.serviceAccountIssuers) {
    if (issuer === '') errors.push('service-account-issuer should not be an empty string');
    else if (issuer.includes(':') && !URL.canParse(issuer)) errors.push(`service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL`);
    if (seen.has(issuer)) errors.push(`service-account-issuer ${JSON.stringify(issuer)} is already specified`);
    seen.add(issuer);
  }
  if (flags.serviceAccountKeyFiles.length === 0) errors.push('either `--service-account-key-file` or `--service-account-signing-endpoint` must be set');
  const max = flags.serviceAccountMaxTokenExpirationMs;
  if (max !== 0 && (max < MIN_TOKEN_EXPIRATION_MS || max > MAX_TOKEN_EXPIRATION_MS)) errors.push('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  if (!attempted) errors.push('--service-account-signing-key-file and --service-account-issuer are required flags');
  else if (flags.serviceAccountSigningKeyFile === '' || flags.serviceAccountIssuers.length === 0) {
    errors.push('--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together');
  }
  return errors;
}

/** kube's authorization-mode checks, then kapi's: a kube mode kapi does not build is an error. */
function validateAuthorizationModes(modes: readonly string[]): void {
  if (modes.length === 0) throw new FlagError('at least one authorization-mode must be passed');
  const kube = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];
  const built = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Node'];
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!kube.includes(mode)) throw new FlagError(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    if (seen.has(mode)) throw new FlagError(`authorization-mode ${JSON.stringify(mode)} has mode specified more than once`);
    seen.add(mode);
    if (!built.includes(mode)) throw new FlagError(`authorization-mode ${mode} is not implemented by kapi (built: ${built.join(', ')})`);
  }
}

/** `--version` (kube's verflag): print the version and exit, as a line or as Go's `%#v` of version.Info. */
export interface VersionRequest {
  readonly version: 'line' | 'raw';
}

/**
 * kube's verflag values: true/false (strconv.ParseBool), `raw`; a `v`-prefixed value (kube:
 * report that version instead) is not built by kapi.
 */
function versionRequest(raw: string | undefined): VersionRequest | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'raw') return { version: 'raw' };
  if (raw.startsWith('v')) throw new FlagError('--version=<version> (setting the reported version) is not implemented by kapi');
  const parsed = parseGoBool(raw);
  if (parsed === undefined) throw invalidArgument(raw, 'version', `strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
  return parsed ? { version: 'line' } : undefined;
}

/**
 * Parses kube-apiserver style arguments (without the program name). Returns `'help'` for
 * -h/--help and a VersionRequest for --version/--version=raw. Throws FlagError with pflag/kube texts: `unknown flag: --x`, `invalid argument
 * "abc" for "--secure-port" flag: ...`, `--etcd-servers must be specified`, port ranges,
 * negative timeouts, `--tls-cert-file and --tls-private-key-file must be given together`.
 */
/** --feature-gates (every occurrence) resolved; kube's and kapi's refusals become FlagErrors. */
function featureGates(occurrences: string[]): { gates: Record<string, boolean>; warnings: string[] } {
  try {
    return resolveFeatureGatesWithWarnings(occurrences);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new FlagError(err.message);
    throw err;
  }
}

export function parseFlags(argv: readonly string[], program = 'kapi-apiserver'): ServerFlags | 'help' | VersionRequest {
  const values = scan(argv, program);
  if (values === 'help') return 'help';
  const version = versionRequest(values.get('version') as string | undefined);
  if (version !== undefined) return version;
  const get = <T extends FlagValue>(name: string): T => {
    if (values.has(name)) return values.get(name) as T;
    const spec = FLAGS[name]!;
    return parseValue(name, spec, spec.defaultText) as T;
  };
  const gates = featureGates(get<string[]>('feature-gates'));
  const flags: ServerFlags = {
    etcdServers: get<string[]>('etcd-servers'),
    etcdPrefix: get<string>('etcd-prefix'),
    etcdCompactionIntervalMs: get<number>('etcd-compaction-interval'),
    eventTtlMs: get<number>('event-ttl'),
    leaseReuseDurationSeconds: get<number>('lease-reuse-duration-seconds'),
    securePort: get<number>('secure-port'),
    bindAddress: get<string>('bind-address'),
    tlsCertFile: get<string>('tls-cert-file'),
    tlsPrivateKeyFile: get<string>('tls-private-key-file'),
    certDir: get<string>('cert-dir'),
    insecurePort: get<number>('insecure-port'),
    insecureBindAddress: get<string>('insecure-bind-address'),
    minRequestTimeoutSeconds: get<number>('min-request-timeout'),
    requestTimeoutMs: get<number>('request-timeout'),
    profiling: get<boolean>('profiling'),
    maxRequestsInflight: get<number>('max-requests-inflight'),
    maxConnections: get<number>('max-connections'),
    disableHttp2Serving: get<boolean>('disable-http2-serving'),
    http2MaxStreamsPerConnection: get<number>('http2-max-streams-per-connection'),
    goawayChance: get<number>('goaway-chance'),
    maxMutatingRequestsInflight: get<number>('max-mutating-requests-inflight'),
    watchCache: get<boolean>('watch-cache'),
    watchCacheSizes: get<string[]>('watch-cache-sizes'),
    featureGates: gates.gates,
    featureGateWarnings: gates.warnings,
    flagWarnings: [...values.keys()].flatMap((name) => {
      const why = FLAGS[name]?.deprecated;
      return why === undefined ? [] : [`Flag --${name} has been deprecated, ${why}`];
    }),
    allowPrivileged: get<boolean>('allow-privileged'),
    externalHostname: get<string>('external-hostname'),
    corsAllowedOrigins: get<string[]>('cors-allowed-origins'),
    kubeletPreferredAddressTypes: get<string[]>('kubelet-preferred-address-types'),
    kubeletPort: get<number>('kubelet-port'),
    runtimeConfig: get<Record<string, string>>('runtime-config'),
    verbosity: get<number>('v'),
    loggingFormat: get<string>('logging-format') as 'json' | 'text',
    shutdownDelayMs: get<number>('shutdown-delay-duration'),
    shutdownSendRetryAfter: get<boolean>('shutdown-send-retry-after'),
    shutdownWatchTerminationGracePeriodMs: get<number>('shutdown-watch-termination-grace-period'),
    livezGracePeriodMs: get<number>('livez-grace-period'),
    etcdCountMetricPollPeriodMs: get<number>('etcd-count-metric-poll-period'),
    etcdDbMetricPollIntervalMs: get<number>('etcd-db-metric-poll-interval'),
    etcdHealthcheckTimeoutMs: get<number>('etcd-healthcheck-timeout'),
    etcdReadycheckTimeoutMs: get<number>('etcd-readycheck-timeout'),
    etcdMaxRequestBytes: get<number>('etcd-max-request-bytes'),
    workers: get<number>('workers'),
    tracingConfigFile: get<string>('tracing-config-file'),
    enableGarbageCollector: get<boolean>('enable-garbage-collector'),
    enablePriorityAndFairness: get<boolean>('enable-priority-and-fairness'),
    leaderElect: get<boolean>('leader-elect'),
    leaderElectLeaseDurationMs: get<number>('leader-elect-lease-duration'),
    leaderElectRenewDeadlineMs: get<number>('leader-elect-renew-deadline'),
    leaderElectRetryPeriodMs: get<number>('leader-elect-retry-period'),
    leaderElectResourceNamespace: get<string>('leader-elect-resource-namespace'),
    leaderElectResourceName: get<string>('leader-elect-resource-name'),
    clientCaFile: get<string>('client-ca-file'),
    tokenAuthFile: get<string>('token-auth-file'),
    requestHeader: {
      clientCaFile: get<string>('requestheader-client-ca-file'),
      allowedNames: get<string[]>('requestheader-allowed-names'),
      usernameHeaders: get<string[]>('requestheader-username-headers'),
      uidHeaders: get<string[]>('requestheader-uid-headers'),
      groupHeaders: get<string[]>('requestheader-group-headers'),
      extraHeaderPrefixes: get<string[]>('requestheader-extra-headers-prefix'),
    },
    proxyClientCertFile: get<string>('proxy-client-cert-file'),
    proxyClientKeyFile: get<string>('proxy-client-key-file'),
    enableAggregatorRouting: get<boolean>('enable-aggregator-routing'),
    storageMediaType: get<string>('storage-media-type') as ServerFlags['storageMediaType'],
    encryptionProviderConfig: get<string>('encryption-provider-config'),
    authorizationModes: get<string[]>('authorization-mode'),
    anonymousAuth: get<boolean>('anonymous-auth'),
    serviceClusterIPRange: get<string>('service-cluster-ip-range'),
    serviceNodePortRange: get<string>('service-node-port-range'),
    advertiseAddress: get<string>('advertise-address'),
    endpointReconcilerType: get<string>('endpoint-reconciler-type') as 'lease' | 'none',
    etcdCaFile: get<string>('etcd-cafile'),
    etcdCertFile: get<string>('etcd-certfile'),
    etcdKeyFile: get<string>('etcd-keyfile'),
    audit: {
      policyFile: get<string>('audit-policy-file'),
      logPath: get<string>('audit-log-path'),
      maxAgeDays: get<number>('audit-log-maxage'),
      maxBackups: get<number>('audit-log-maxbackup'),
      maxSizeMb: get<number>('audit-log-maxsize'),
      compress: get<boolean>('audit-log-compress'),
      mode: get<string>('audit-log-mode') as AuditMode,
      bufferSize: get<number>('audit-log-batch-buffer-size'),
      maxBatchSize: get<number>('audit-log-batch-max-size'),
      maxBatchWaitMs: get<number>('audit-log-batch-max-wait'),
      ...(get<boolean>('audit-log-truncate-enabled') ? { truncateMaxEventBytes: get<number>('audit-log-truncate-max-event-size'), truncateMaxBatchBytes: get<number>('audit-log-truncate-max-batch-size') } : {}),
      ...(get<string>('audit-webhook-config-file') !== '' ? {
        webhook: {
          configFile: get<string>('audit-webhook-config-file'),
          mode: get<string>('audit-webhook-mode') as AuditMode,
          initialBackoffMs: get<number>('audit-webhook-initial-backoff'),
          bufferSize: get<number>('audit-webhook-batch-buffer-size'),
          maxBatchSize: get<number>('audit-webhook-batch-max-size'),
          maxBatchWaitMs: get<number>('audit-webhook-batch-max-wait'),
          ...(get<boolean>('audit-webhook-batch-throttle-enable') ? { throttle: { qps: get<number>('audit-webhook-batch-throttle-qps'), burst: get<number>('audit-webhook-batch-throttle-burst') } } : {}),
          ...(get<boolean>('audit-webhook-truncate-enabled') ? { truncate: { maxEventBytes: get<number>('audit-webhook-truncate-max-event-size'), maxBatchBytes: get<number>('audit-webhook-truncate-max-batch-size') } } : {}),
        },
      } : {}),
    },
    serviceAccountIssuers: get<string[]>('service-account-issuer'),
    serviceAccountKeyFiles: get<string[]>('service-account-key-file'),
    serviceAccountSigningKeyFile: get<string>('service-account-signing-key-file'),
    apiAudiences: get<string[]>('api-audiences'),
    serviceAccountMaxTokenExpirationMs: get<number>('service-account-max-token-expiration'),
    serviceAccountExtendTokenExpiration: get<boolean>('service-account-extend-token-expiration'),
    serviceAccountJwksUri: get<string>('service-account-jwks-uri'),
    serviceAccountLookup: get<boolean>('service-account-lookup'),
    rootCaFile: get<string>('root-ca-file'),
    admissionPlugins: [],
    defaultNotReadyTolerationSeconds: get<number>('default-not-ready-toleration-seconds'),
    defaultUnreachableTolerationSeconds: get<number>('default-unreachable-toleration-seconds'),
    admissionControlConfigFile: get<string>('admission-control-config-file'),
    enabledControllers: resolveControllers(get<string[]>('controllers')),
  };
  const etcdErrors = etcdOptionErrors(flags.etcdServers, get<string>('storage-backend'), get<string[]>('etcd-servers-overrides'));
  if (etcdErrors.length > 0) throw new FlagError(etcdErrors.length === 1 ? etcdErrors[0]! : `[${etcdErrors.join(', ')}]`);
  for (const [name, value] of values) {
    if (FLAGS[name]?.unimplemented === true && !isUnset(value)) throw new FlagError(`--${name} is not implemented by kapi`);
  }
  validateAuthorizationModes(flags.authorizationModes);
  if (flags.audit.logPath !== '') validateAuditLog(flags.audit, get);
  if (flags.audit.webhook !== undefined) validateAuditWebhook(get);
  const securityErrors = [...serviceAccountErrors(flags), ...requestHeaderErrors(flags)];
  const given = (name: string) => (values.has(name) ? get<string[]>(name) : undefined);
  const admission = resolveAdmissionPlugins({
    enable: given('enable-admission-plugins'),
    disable: given('disable-admission-plugins'),
    admissionControl: given('admission-control'),
  });
  if ('errors' in admission) securityErrors.push(...admission.errors);
  else flags.admissionPlugins = admission.plugins;
  // kube reports these together (an aggregate: one message, or `[a, b]`).
  if (securityErrors.length > 0) throw new FlagError(securityErrors.length === 1 ? securityErrors[0]! : `[${securityErrors.join(', ')}]`);
  const corsErrors = corsOriginErrors(flags.corsAllowedOrigins);
  if (corsErrors.length > 0) throw new FlagError(corsErrors.length === 1 ? corsErrors[0]! : `[${corsErrors.join(', ')}]`);
  validatePort('secure-port', flags.securePort, false);
  validatePort('insecure-port', flags.insecurePort, true);
  if ((flags.tlsCertFile === '') !== (flags.tlsPrivateKeyFile === '')) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  if (flags.requestTimeoutMs <= 0) throw new FlagError('--request-timeout can not be negative or zero value');
  if (flags.minRequestTimeoutSeconds < 0) throw new FlagError('--min-request-timeout can not be negative value');
  if (flags.maxRequestsInflight < 0) throw new FlagError('--max-requests-inflight can not be negative value');
  if (flags.maxConnections < 0) throw new FlagError('--max-connections can not be negative value');
  if (flags.goawayChance < 0 || flags.goawayChance > 0.02) throw new FlagError('--goaway-chance can not be less than 0 or greater than 0.02');
  if (flags.maxMutatingRequestsInflight < 0) throw new FlagError('--max-mutating-requests-inflight can not be negative value');
  if (flags.etcdCompactionIntervalMs < 0) throw new FlagError('--etcd-compaction-interval can not be negative value');
  if (flags.loggingFormat !== 'json' && flags.loggingFormat !== 'text') {
    throw new FlagError(`logging format: Unsupported log format "${String(flags.loggingFormat)}". Permitted formats: "json", "text"`);
  }
  if (flags.shutdownDelayMs < 0) throw new FlagError('--shutdown-delay-duration can not be negative value');
  if (flags.shutdownWatchTerminationGracePeriodMs < 0) throw new FlagError('shutdown-watch-termination-grace-period, if provided, can not be a negative value');
  if (flags.livezGracePeriodMs < 0) throw new FlagError('--livez-grace-period can not be a negative value');
  if (flags.etcdHealthcheckTimeoutMs <= 0) throw new FlagError(`--etcd-healthcheck-timeout must be greater than 0`);
  if (flags.etcdReadycheckTimeoutMs <= 0) throw new FlagError(`--etcd-readycheck-timeout must be greater than 0`);
  if (flags.etcdMaxRequestBytes <= 0) throw new FlagError('--etcd-max-request-bytes must be greater than 0');
  if (flags.workers < 0) throw new FlagError('--workers can not be negative value');
  if (flags.workers !== 1 && flags.audit.policyFile !== '' && flags.audit.logPath !== '' && flags.audit.logPath !== '-') {
    throw new FlagError('--audit-log-path (a file) needs --workers=1: the workers would rotate one file each (use --audit-log-path=- to log to standard output)');
  }
  if (flags.leaderElect) validateLeaderElection(flags);
  validateServiceNetwork(flags);
  const mediaTypes = ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'];
  if (!mediaTypes.includes(flags.storageMediaType)) {
    throw new FlagError(`--storage-media-type ${JSON.stringify(flags.storageMediaType)} invalid, allowed values: ${mediaTypes.join(', ')}`);
  }
  if (!flags.etcdPrefix.startsWith('/')) flags.etcdPrefix = `/${flags.etcdPrefix}`;
  try {
    resolveRuntimeConfig([...builtinDefinitions, customResourceDefinitions], flags.runtimeConfig);
  } catch (err) {
    if (err instanceof RuntimeConfigError) throw new FlagError(err.message);
    throw err;
  }
  return flags;
}

/** A flag value that asks for nothing: empty, false, zero or an empty list. */
function isUnset(value: FlagValue): boolean {
  return value === '' || value === false || value === 0 || (Array.isArray(value) && value.length === 0);
}

/** kube's etcd option checks, in its order (an override must be `group/resource#servers`). */
function etcdOptionErrors(servers: readonly string[], backend: string, overrides: readonly string[]): string[] {
  const errors: string[] = [];
  if (servers.length === 0) errors.push('--etcd-servers must be specified');
  if (backend !== '' && backend !== 'etcd3') errors.push("--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'");
  for (const override of overrides) {
    const tokens = override.split('#');
    if (tokens.length !== 2 || tokens[0]!.split('/').length !== 2) {
      errors.push('--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated');
    }
  }
  return errors;
}

const CORS_HELP = FLAGS['cors-allowed-origins']!.help;

/**
 * kube's --cors-allowed-origins checks: each entry non-empty, a valid regular expression, and
 * pinned to the start of the host (`^` or `//`) and to its end (`$` or `:`), against CVE-2022-1996.
 */
function corsOriginErrors(origins: readonly string[]): string[] {
  const errors: string[] = [];
  for (const origin of origins) {
    if (origin === '') {
      errors.push(`empty value in --cors-allowed-origins, help: ${CORS_HELP}`);
      continue;
    }
    let problem: string | undefined;
    try {
      new RegExp(origin);
    } catch (err) {
      problem = `error parsing regexp: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (problem === undefined) {
      const pinStart = origin.includes('^') || origin.includes('//');
      const pinEnd = origin.includes('$') || origin.includes(':');
      if (!pinStart || !pinEnd) problem = 'regular expression does not pin to start/end of host in the origin header';
    }
    if (problem !== undefined) errors.push(`--cors-allowed-origins has an invalid regular expression: ${problem}, help: ${CORS_HELP}`);
  }
  return errors;
}

/** The `--help` text: usage plus every flag with its type and default. */
export function usage(program = 'kapi-apiserver'): string {
  const lines = [
    `The kapi API server: a Kubernetes-compatible API server (TypeScript) over etcd.`,
    '',
    'Usage:',
    `  ${program} [flags]`,
    '',
    'Flags:',
  ];
  const entries = Object.entries(FLAGS).sort(([a], [b]) => a.localeCompare(b));
  for (const [name, spec] of entries) {
    const type = spec.type === 'stringList' ? 'strings' : name === 'feature-gates' ? 'colonSeparatedMultimapStringString' : spec.type;
    const shown = spec.type === 'bool' ? '' : ` ${type}`;
    const def = spec.defaultText === '' || spec.defaultText === 'false' || spec.defaultText === '0' ? '' : ` (default ${spec.type === 'string' ? JSON.stringify(spec.defaultText) : spec.type === 'duration' ? formatGoDuration(parseGoDuration(spec.defaultText)) : spec.defaultText})`;
    const prefix = name === 'v' ? '  -v, --v' : `      --${name}`;
    lines.push(`${prefix}${shown}`.padEnd(52) + ` ${spec.help}${def}`);
  }
  lines.push('  -h, --help'.padEnd(52) + ' help for ' + program);
  return lines.join('\n') + '\n';
}

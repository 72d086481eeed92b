/**
 * The composition root: the only place that names concrete backends. etcd storage → watch
 * cache → registry → HTTP(S) listeners.
 */
import type { RequestListener } from 'node:http';
import type { Registry } from 'prom-client';
import {
  apiextensionsDefinitions,
  builtinDefinitions,
  createRegistry,
  customResourceDefinitions,
  definitions,
  JSON_STORED_KINDS,
  startCrdController,
  type CrdController,
  type RequestContext,
  type ResourceDefinition,
  type KubeletAddressing,
  type ServiceNetworkConfig,
} from '@kapi/registry';
import {
  advertisedAddress,
  ensureFlowcontrolBootstrap,
  FLOWCONTROL_GROUP,
  kapiControllers,
  masterLeases,
  startControllers,
  type ControllerOptions,
  type KubernetesServiceOptions,
  type RunningControllers,
} from '@kapi/controllers';
import type { Tracer } from '@opentelemetry/api';
import { applyRuntimeConfig, resolveRuntimeConfig } from './runtime-config.js';
import { DEFAULT_MAX_REQUEST_BYTES, createEtcdStorage, createEtcdUnaryClient, kubeStorageCodec, leaseObjectCountObserver, startCompactor, startStorageMetricsPoller, ttlKeys, type EtcdTlsFiles, type StorageMediaType } from '@kapi/storage';
import { loadEncryptionConfig } from './encryption-config.js';
import { startAuditing, type AuditSettings } from './audit/index.js';
import { createWatchCache, type WatchCacheOptions } from '@kapi/watch-cache';
import { loadServingCertificate } from './certs.js';
import { ServerLifecycle } from './filters/lifecycle.js';
import { createInflightLimiter } from './filters/max-inflight.js';
import { yamlDecoder } from './body/yaml-decoder-pool.js';
import { boundedCheck, delayedCheck, logCheck, pingCheck, type HealthCheck } from './health.js';
import { createLogger, type Logger } from './logger.js';
import { ConnectionGuard, effectiveConnectionCap, readOpenFilesLimit } from './http/connection-guard.js';
import type { Http2Options } from './http/http2.js';
import { createListener, HEADERS_TIMEOUT_MS, listen, stopListening, urlHost, type ConnectionTimeouts, type Listener } from './http/listeners.js';
import { createApiMetrics } from './metrics.js';
import { createRequestHandler } from './server.js';
import { createPprofHandler } from './profiling/pprof-handler.js';
import { createDebugFlagsHandler } from './profiling/debug-flags.js';
import { startHeapSampling } from './profiling/v8-profiles.js';
import { startAggregator } from './aggregator/index.js';
import { startServiceResolver } from './proxy/index.js';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { createAuthenticator } from './auth/authenticator.js';
import { alwaysAllow, alwaysDeny, unionAuthorizer, type Authorizer } from './auth/authorizer.js';
import { reconcileBootstrapPolicy } from './auth/bootstrap-policy.js';
import { rbacAuthorizer } from './auth/rbac-authorizer.js';
import { nodeAuthorizer } from './auth/node-authorizer.js';
import { parseCertificateBundle, type RequestHeaderConfig } from './auth/request-header.js';
import { authenticationInfoPublisher } from './auth/authentication-info.js';
import type { RequestHeaderFlags } from './flags.js';
import { startNodeGraph, type NodeGraph } from './auth/node-graph.js';
import { escalationGuard, type EscalationDependencies } from './auth/escalation.js';
import { startRbacPolicyStore, type RbacPolicyStore } from './auth/rbac-policy.js';
import { reviewResources } from './auth/reviews.js';
import { readTokenFile } from './auth/token-file.js';
import { withExtraResources } from './auth/extra-resources.js';
import { componentStatusResource } from './component-statuses.js';
import { serviceAccountAdmission } from './admission/service-account.js';
import { chainAdmission } from './admission/chain.js';
import { defaultAdmissionPlugins } from './admission/plugins.js';
import { defaultTolerationSeconds, type DefaultTolerationSecondsOptions } from './admission/default-toleration-seconds.js';
import { taintNodesByCondition } from './admission/taint-nodes-by-condition.js';
import { createPriorityAdmission, ensureSystemPriorityClasses, SCHEDULING_GROUP } from './admission/priority.js';
import { createRuntimeClassAdmission } from './admission/runtime-class.js';
import { createPodSecurity, type PodSecurityOptions } from './admission/pod-security/plugin.js';
import { createLimitRanger } from './admission/limit-ranger.js';
import { createAdmissionMetrics } from './admission/metrics.js';
import { createAdmissionWebhooks } from './admission/webhooks.js';
import type { UserInfo } from './auth/user.js';
import type { ResourceRequestInfo } from './http/request-info.js';
import { createNodeRestriction, type NodeRestriction } from './admission/node-restriction.js';
import { createObjectAdmission } from './admission/object-admission.js';
import { createValidatingAdmissionPolicy } from './admission/validating-policy/index.js';
import { externalHost, readServiceAccountKeys, startServiceAccounts, type ServiceAccountServices, type ServiceAccountTokenOptions } from './serviceaccount/service-accounts.js';

export interface ApiServerOptions {
  /** etcd client URLs (--etcd-servers). Required. */
  readonly etcdServers: readonly string[];
  /** --etcd-prefix; default `/registry`. */
  readonly etcdPrefix?: string;
  /** --runtime-config: built-in group versions and resources turned on or off (runtime-config.ts). Throws RuntimeConfigError when invalid. */
  readonly runtimeConfig?: Readonly<Record<string, string>>;
  /** --secure-port: 6443 by default, 0 picks a free port, `null` serves no HTTPS (programmatic only). */
  readonly securePort?: number | null;
  /** --bind-address; default `0.0.0.0`. */
  readonly bindAddress?: string;
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  /** --cert-dir; default `/var/run/kubernetes`. */
  readonly certDir?: string;
  /** Plain HTTP port; undefined/null = off, 0 = a free port. */
  readonly insecurePort?: number | null;
  /** default `127.0.0.1`. */
  readonly insecureBindAddress?: string;
  /** --request-timeout in ms; default 60000. */
  readonly requestTimeoutMs?: number;
  /** --profiling: /debug/pprof served (V8's profiles in pprof's format) and the heap sampled from the start; default true, as kube. */
  readonly profiling?: boolean;
  /** --watch-cache; default true. */
  readonly watchCache?: boolean;
  /** --min-request-timeout in seconds; default 1800 (a watch without timeoutSeconds lasts [min, 2×min)). */
  readonly minRequestTimeoutSeconds?: number;
  /** --etcd-compaction-interval in ms; default 5 min, 0 disables compaction. */
  readonly etcdCompactionIntervalMs?: number;
  /** --event-ttl in ms; default 1 h. Events expire from etcd this long after their last write (whole seconds; under 1 s: never). */
  readonly eventTtlMs?: number;
  /** --lease-reuse-duration-seconds; default 60. */
  readonly leaseReuseDurationSeconds?: number;
  /** --feature-gates=ConsistentListFromCache=...: serve most-recent lists from the watch cache once it is current; default true. */
  readonly consistentListFromCache?: boolean;
  /**
   * --feature-gates=AllowUnsafeMalformedObjectDeletion=...; default false. On: unreadable stored
   * values are reported as kube then reports them, and the delete option
   * `ignoreStoreReadErrorWithClusterBreakingPotential` removes them.
   */
  readonly allowUnsafeMalformedObjectDeletion?: boolean;
  /** Programmatic only (tests): shorter watch-cache periods than kube's defaults. */
  readonly watchCacheTuning?: Pick<WatchCacheOptions, 'bookmarkIntervalMs' | 'tickMs' | 'waitTimeoutMs'>;
  readonly logger?: Logger;
  /** --max-requests-inflight; default 400; 0 = no limit. */
  readonly maxRequestsInflight?: number;
  /** --max-mutating-requests-inflight; default 200; 0 = no limit. */
  readonly maxMutatingRequestsInflight?: number;
  /** --shutdown-delay-duration in ms: after SIGTERM/close(), readyz fails but everything is served this long. Default 0. */
  readonly shutdownDelayMs?: number;
  /** --shutdown-send-retry-after: after the delay, keep listening and answer new requests 429 + Retry-After until drained. */
  readonly shutdownSendRetryAfter?: boolean;
  /** --shutdown-watch-termination-grace-period in ms: spread the ending of open watches over it. Default 0 (all at once). */
  readonly shutdownWatchTerminationGracePeriodMs?: number;
  /** How long the shutdown waits for in-flight requests; default the request timeout (kube's ShutdownTimeout, 60s). */
  readonly shutdownDrainTimeoutMs?: number;
  /** --livez-grace-period in ms: post-start hooks count as healthy in livez/healthz this long after start. Default 0. */
  readonly livezGracePeriodMs?: number;
  /** --etcd-count-metric-poll-period in ms; default 60000; 0 disables apiserver_storage_objects. */
  readonly etcdCountMetricPollPeriodMs?: number;
  /** --etcd-db-metric-poll-interval in ms; default 30000; 0 disables apiserver_storage_size_bytes. */
  readonly etcdDbMetricPollIntervalMs?: number;
  /** --etcd-healthcheck-timeout in ms (the `etcd` check); default 2000. */
  readonly etcdHealthcheckTimeoutMs?: number;
  /** --etcd-readycheck-timeout in ms (the `etcd-readiness` check); default 2000. */
  readonly etcdReadycheckTimeoutMs?: number;
  /**
   * --etcd-max-request-bytes (kapi extension): the etcd cluster's --max-request-bytes; default
   * 1572864 (etcd's). Larger writes are refused before they are sent, as etcd would refuse them.
   */
  readonly etcdMaxRequestBytes?: number;
  /** Tracer for request and etcd spans; default the global provider's (set up by the entry point). */
  readonly tracer?: Tracer;
  /** Verbosity from which one line per request is logged; default 3 (kube's httplog). */
  readonly requestLogVerbosity?: number;
  /** Programmatic only (tests): shorter connection timeouts than kube's (see http/listeners.ts). */
  readonly connectionTimeouts?: ConnectionTimeouts;
  /**
   * --max-connections (kapi extension): open client connections at most, over all listeners;
   * default 20000, 0 = no cap. Lowered to leave a quarter (at most 1024) of the process's
   * open-files limit free. At the cap the connection idle the longest is closed for a new one.
   */
  readonly maxConnections?: number;
  /** HTTP/2 on the secure port: --disable-http2-serving, --http2-max-streams-per-connection, --goaway-chance (see http/http2.ts). */
  readonly http2?: Http2Options;
  /**
   * kapi's leader-elected controllers (namespace deletion, garbage collection, service
   * accounts) and their leader election; false = none of them (programmatic: tests that need
   * a quiet cluster; the others still run). Default: on, kube's lease timings.
   */
  readonly controllers?: false | ControllerOptions;
  /**
   * `--enable-garbage-collector` (default true). False: deletes add no `orphan`/`foregroundDeletion`
   * finalizers and no garbage collector runs (ownerReferences are left to an outside collector).
   */
  readonly enableGarbageCollector?: boolean;
  /**
   * `--enable-priority-and-fairness` (default true). kapi has no priority-and-fairness request
   * filter; what the flag switches here is the config consumer's Dangling condition on FlowSchemas.
   */
  readonly enablePriorityAndFairness?: boolean;
  /** --client-ca-file: HTTPS requests client certificates and authenticates those these authorities signed (CN = user, O = groups). */
  readonly clientCaFile?: string;
  /** --token-auth-file: static bearer tokens (kube's CSV). */
  readonly tokenAuthFile?: string;
  /** --requestheader-*: front-proxy authentication (the CA file turns it on); published in kube-system/extension-apiserver-authentication. */
  readonly requestHeader?: RequestHeaderFlags;
  /** --feature-gates RemoteRequestHeaderUID: the UID headers are published too. */
  readonly remoteRequestHeaderUid?: boolean;
  /** --proxy-client-cert-file/--proxy-client-key-file: the client certificate presented to aggregated API servers. */
  readonly proxyClientCertFile?: string;
  readonly proxyClientKeyFile?: string;
  /** --enable-aggregator-routing: aggregated API servers and webhooks behind a Service are reached at their endpoints' addresses, not their ClusterIPs. */
  readonly enableAggregatorRouting?: boolean;
  /**
   * --storage-media-type: how objects of built-in kinds are written (default protobuf, as
   * kube-apiserver; custom resources are JSON whatever it says). Reads accept every format.
   */
  readonly storageMediaType?: StorageMediaType;
  /** --encryption-provider-config: an EncryptionConfiguration file (encryption at rest). */
  readonly encryptionProviderConfig?: string;
  /** --authorization-mode, in order; default ['AlwaysAllow']. Only AlwaysAllow, AlwaysDeny and RBAC are built. */
  readonly authorizationModes?: readonly string[];
  /**
   * Requests without credentials run as system:anonymous (--anonymous-auth after kube's
   * reset: false whenever AlwaysAllow is a mode). Default false. With no authenticator at all
   * (no CA, no tokens, no anonymous) authentication is off, as in kube.
   */
  readonly anonymousAuth?: boolean;
  /** --service-cluster-ip-range and --service-node-port-range; default kube's (10.0.0.0/24, 30000-32767). */
  readonly serviceNetwork?: ServiceNetworkConfig;
  /** --advertise-address; default --bind-address unless unspecified or loopback, else the host's first non-loopback address. */
  readonly advertiseAddress?: string;
  /** --external-hostname: the host of `/api`'s server address and of the default JWKS URI (with the secure port); default the advertised address. */
  readonly externalHostname?: string;
  /** --cors-allowed-origins: Origin patterns (already checked) that get kube's CORS headers; default none. */
  readonly corsAllowedOrigins?: readonly string[];
  /** --allow-privileged; default false, as kube: privileged and hostProcess containers are refused in pod specs. */
  readonly allowPrivileged?: boolean;
  /** --kubelet-preferred-address-types and --kubelet-port: how a Node's kubelet is addressed (pods/log, exec, the node proxy). */
  readonly kubelet?: KubeletAddressing;
  /** --endpoint-reconciler-type; default `lease`. */
  readonly endpointReconcilerType?: 'lease' | 'none';
  /**
   * The `kubernetes` Service, its Endpoints and the IP/port repair pass (default on, kube's
   * timings: reconcile every 10 s, leases of 15 s, repair every 3 min); false = none
   * (programmatic only: tests that must see an empty cluster).
   */
  readonly kubernetesService?: false | Pick<KubernetesServiceOptions, 'intervalMs' | 'leaseTTLSeconds' | 'repairIntervalMs'>;
  /**
   * The aggregator's APIService writers — the local APIServices' registration and the
   * Available condition controller (default on); false = neither (programmatic only: storage
   * round trips that must read back exactly what they wrote). Proxying is unaffected.
   */
  readonly apiServiceControllers?: boolean;
  /** --etcd-cafile/--etcd-certfile/--etcd-keyfile: TLS (and a client certificate) to etcd. */
  readonly etcdTls?: EtcdTlsFiles;
  /** --audit-policy-file and the --audit-log-* and --audit-webhook-* flags; none = no audit events. */
  readonly audit?: AuditSettings;
  /**
   * Service account tokens (--service-account-issuer, keys, --api-audiences, expirations):
   * TokenRequest, the token authenticator, issuer discovery, legacy token Secrets. None: no
   * service account tokens (kube requires them). Throws ServiceAccountKeyError for unreadable keys.
   */
  readonly serviceAccountTokens?: ServiceAccountTokenOptions & { readonly lookup?: boolean };
  /** kube-controller-manager's --root-ca-file: published as kube-root-ca.crt; default the serving certificate. */
  readonly rootCaFile?: string;
  /** The admission plugins to run (admission/plugins.ts resolves the flags); default kube's default-enabled plugins that kapi builds. */
  readonly admissionPlugins?: readonly string[];
  /** --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds; default 300 each. */
  readonly defaultTolerationSeconds?: DefaultTolerationSecondsOptions;
  /** PodSecurity's defaults and exemptions (its PodSecurityConfiguration); default privileged:latest, none exempt. */
  readonly podSecurity?: PodSecurityOptions;
  /** kube-controller-manager's --controllers, resolved (@kapi/controllers' resolveControllerFlag): which of kapi's KCM controllers run; default every one. */
  readonly enabledControllers?: ReadonlySet<string>;
  /** Set when this server is one worker of several (--workers, workers/): how it differs from a lone server. */
  readonly worker?: WorkerServing;
}

/** What a worker serves differently from a lone server. */
export interface WorkerServing {
  /** Sent as the `X-Kapi-Worker` header of every response (tells the workers apart). */
  readonly name: string;
  /** The registry /metrics prints instead of this process's own (the merged metrics of all workers). */
  servedMetrics(local: Registry): Registry;
}

export interface RunningServer {
  /** The HTTPS port, when serving HTTPS. */
  readonly securePort?: number;
  readonly insecurePort?: number;
  /** `https://<host>:<port>` when serving HTTPS. */
  readonly url?: string;
  /** `http://<host>:<port>` when serving plain HTTP. */
  readonly insecureUrl?: string;
  /** The serving certificate (PEM), for clients that must trust a self-signed one. */
  readonly certificate?: string;
  /**
   * The graceful shutdown (kube's sequence): readyz fails at once; everything is still served
   * for the shutdown delay; then no new requests are taken (listeners close, or 429 with
   * Retry-After), open watches end (spread over the watch grace period), in-flight requests
   * drain (bounded); then background work stops and storage closes. Idempotent.
   */
  close(): Promise<void>;
  /** True once close() began (readyz reports `shutdown` failed). */
  readonly shuttingDown: boolean;
}

/** --max-connections' default: far above what clients open (kubectl 1, an informer-based controller one per watch). */
export const DEFAULT_MAX_CONNECTIONS = 20_000;

function parseBundle(pem: string, flag: string): X509Certificate[] {
  try {
    return parseCertificateBundle(pem);
  } catch (err) {
    throw new Error(`--${flag}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function readFileWithContext(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`--${flag}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The process-wide connection limits; hitting the cap is logged at most every 10 s. */
function connectionGuard(options: ApiServerOptions, logger: Logger): ConnectionGuard {
  const requested = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const openFiles = readOpenFilesLimit();
  const maxConnections = effectiveConnectionCap(requested, openFiles);
  if (maxConnections !== requested) logger.info('--max-connections lowered to stay within the open-files limit', { requested, openFilesLimit: openFiles, maxConnections });
  let lastLogged = 0;
  const counts = { evicted: 0, refused: 0 };
  return new ConnectionGuard({
    maxConnections,
    firstRequestTimeoutMs: options.connectionTimeouts?.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
    onLimit: (event) => {
      counts[event]++;
      if (Date.now() - lastLogged < 10_000) return;
      lastLogged = Date.now();
      logger.warn('connection cap reached: idle connections closed, new ones refused', { maxConnections, ...counts });
      counts.evicted = 0;
      counts.refused = 0;
    },
  });
}

/** `handler` with the worker's name in an `X-Kapi-Worker` header on every response. */
function workerHandler(handler: RequestListener, name: string): RequestListener {
  return (req, res) => {
    res.setHeader('X-Kapi-Worker', name);
    handler(req, res);
  };
}

/**
 * Starts a server: connects to etcd, builds the registry, listens, then creates the system
 * namespaces (retrying with backoff while etcd is unreachable; readyz reports
 * `poststarthook/start-system-namespaces-controller` failed meanwhile), then starts the
 * controllers. Resolves once the namespaces exist and the controllers' informers have listed
 * (`informer-sync`; waited for up to 5 s). Rejects when a port cannot be bound or the
 * certificate cannot be loaded.
 */
export async function startApiServer(options: ApiServerOptions): Promise<RunningServer> {
  if (options.etcdServers.length === 0) throw new Error('--etcd-servers must be specified');
  const logger = options.logger ?? createLogger();
  const securePort = options.securePort === undefined ? 6443 : options.securePort;
  const clientCa = options.clientCaFile ? readFileWithContext(options.clientCaFile, 'client-ca-file') : undefined;
  const tokens = options.tokenAuthFile ? readTokenFile(options.tokenAuthFile) : undefined;
  const requestHeaderCa = options.requestHeader?.clientCaFile ? readFileWithContext(options.requestHeader.clientCaFile, 'requestheader-client-ca-file') : undefined;
  const requestHeader: RequestHeaderConfig | undefined = options.requestHeader !== undefined && requestHeaderCa !== undefined ? {
    authorities: parseBundle(requestHeaderCa, 'requestheader-client-ca-file'),
    allowedNames: options.requestHeader.allowedNames,
    usernameHeaders: options.requestHeader.usernameHeaders,
    uidHeaders: options.requestHeader.uidHeaders,
    groupHeaders: options.requestHeader.groupHeaders,
    extraHeaderPrefixes: options.requestHeader.extraHeaderPrefixes,
  } : undefined;
  let proxyClientCertificate: { cert: string; key: string } | undefined;
  if (options.proxyClientCertFile && options.proxyClientKeyFile) {
    const cert = readFileWithContext(options.proxyClientCertFile, 'proxy-client-cert-file');
    const key = readFileWithContext(options.proxyClientKeyFile, 'proxy-client-key-file');
    try {
      createSecureContext({ cert, key });
    } catch (err) {
      throw new Error(`--proxy-client-cert-file/--proxy-client-key-file: ${err instanceof Error ? err.message : String(err)}`);
    }
    proxyClientCertificate = { cert, key };
  }
  const modes = options.authorizationModes ?? ['AlwaysAllow'];
  const advertiseAddress = options.kubernetesService === false ? '' : (options.advertiseAddress ?? advertisedAddress(options.bindAddress ?? '0.0.0.0'));
  const saTokens = options.serviceAccountTokens;
  const saKeys = saTokens !== undefined ? readServiceAccountKeys(saTokens) : undefined;
  const rootCaFromFile = options.rootCaFile ? readFileWithContext(options.rootCaFile, 'root-ca-file') : undefined;
  const admissionPlugins = options.admissionPlugins ?? defaultAdmissionPlugins();
  const certificate = securePort !== null ? await loadServingCertificate({
    ...(options.tlsCertFile ? { certFile: options.tlsCertFile } : {}),
    ...(options.tlsPrivateKeyFile ? { keyFile: options.tlsPrivateKeyFile } : {}),
    certDir: options.certDir ?? '/var/run/kubernetes',
  }) : undefined;

  // One etcd client (kapi's own, over node:http2) for the storage, the compactor (every replica
  // runs one; they agree through compact_rev_key; interval 0 compacts nothing but still learns
  // others' compactions), the metrics poller and the master leases.
  const etcdMaxRequestBytes = options.etcdMaxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const etcdClient = createEtcdUnaryClient([...options.etcdServers], { maxRequestBytes: etcdMaxRequestBytes, ...(options.etcdTls !== undefined ? { tls: options.etcdTls } : {}) });
  const compactor = startCompactor({
    client: etcdClient,
    intervalMs: options.etcdCompactionIntervalMs ?? 5 * 60_000,
    onError: (err) => logger.warn(`etcd compaction failed: ${err instanceof Error ? err.message : String(err)}`),
  });
  const metrics = createApiMetrics();
  let auditor: ReturnType<typeof startAuditing>;
  try {
    auditor = startAuditing(options.audit, metrics.registry, (message) => logger.error(message));
  } catch (err) {
    metrics.close();
    await compactor.stop();
    etcdClient.close();
    throw err;
  }
  const etcdPrefix = (options.etcdPrefix ?? '/registry').replace(/\/$/, '');
  const allDefinitions = [...builtinDefinitions, customResourceDefinitions];
  const servedDefinitions = applyRuntimeConfig(allDefinitions, resolveRuntimeConfig(allDefinitions, options.runtimeConfig ?? {}));
  // Mutable: custom resources join at run time (the metrics poller reads it on every round).
  // One entry per key prefix (events.k8s.io Events share core's `events`: one watch cache).
  const resources = servedDefinitions
    .filter((d, i) => servedDefinitions.findIndex((o) => (o.storagePrefix ?? o.plural) === (d.storagePrefix ?? d.plural)) === i)
    .map((d) => ({ prefix: `${etcdPrefix}/${d.storagePrefix ?? d.plural}`, group: d.group, resource: d.plural }));
  // Read before anything starts: a configuration kube would refuse stops the server here.
  let transformerFor: ReturnType<typeof loadEncryptionConfig> | undefined;
  try {
    transformerFor = options.encryptionProviderConfig ? loadEncryptionConfig(options.encryptionProviderConfig, resources) : undefined;
  } catch (err) {
    await compactor.stop();
    etcdClient.close();
    throw err;
  }
  const etcd = createEtcdStorage({
    endpoints: [...options.etcdServers],
    codec: kubeStorageCodec(options.storageMediaType ?? 'application/vnd.kubernetes.protobuf', JSON_STORED_KINDS),
    ...(transformerFor !== undefined ? { transformerFor } : {}),
    http2Client: etcdClient,
    ...(options.etcdTls !== undefined ? { tls: options.etcdTls } : {}),
    maxRequestBytes: etcdMaxRequestBytes,
    leaseReuseDurationSeconds: options.leaseReuseDurationSeconds ?? 60,
    compaction: compactor,
    metricsRegistry: metrics.registry,
    resources,
    ...(options.tracer !== undefined ? { tracer: options.tracer } : {}),
    ...(options.allowUnsafeMalformedObjectDeletion === true ? { unsafeDeletion: { etcdPrefix } } : {}),
  });
  const storageMetrics = startStorageMetricsPoller({
    registry: metrics.registry,
    counter: etcd,
    resources,
    client: etcdClient,
    countPollPeriodMs: options.etcdCountMetricPollPeriodMs ?? 60_000,
    dbPollIntervalMs: options.etcdDbMetricPollIntervalMs ?? 30_000,
  });
  const watchCache = options.watchCache === false ? undefined : createWatchCache(etcd, {
    resources,
    consistentReads: options.consistentListFromCache ?? true,
    metricsRegistry: metrics.registry,
    logger,
    ...options.watchCacheTuning,
  });
  const storage = watchCache ?? etcd;
  const garbageCollection = options.enableGarbageCollector ?? true;
  // kube's policy-based RBAC storages: writes of roles and bindings may not grant more than
  // the writer holds. Without authentication (no user on a request) nothing is checked.
  const authenticating = clientCa !== undefined || tokens !== undefined || options.anonymousAuth === true || requestHeader !== undefined;
  const escalation: EscalationDependencies = {
    authorizer: { authorize: (attributes) => authorizer.authorize(attributes), rulesFor: (user, namespace) => authorizer.rulesFor(user, namespace) },
    policy: () => rbacPolicy,
  };
  // Started once the registry exists (its informers read it); the registry asks for its hooks lazily.
  const nodeRestriction: NodeRestriction | undefined = admissionPlugins.includes('NodeRestriction') ? createNodeRestriction() : undefined;
  const priority = admissionPlugins.includes('Priority') ? createPriorityAdmission() : undefined;
  const runtimeClass = admissionPlugins.includes('RuntimeClass') ? createRuntimeClassAdmission() : undefined;
  const limitRanger = admissionPlugins.includes('LimitRanger') ? createLimitRanger() : undefined;
  const podSecurity = admissionPlugins.includes('PodSecurity') ? createPodSecurity(options.podSecurity, { metricsRegistry: metrics.registry }) : undefined;
  const objectAdmission = createObjectAdmission(admissionPlugins, (attributes) => authorizer.authorize(attributes));
  const admissionMetrics = createAdmissionMetrics(metrics.registry);
  const validatingPolicy = admissionPlugins.includes('ValidatingAdmissionPolicy')
    ? createValidatingAdmissionPolicy({ authorize: (attributes) => authorizer.authorize(attributes), metrics: admissionMetrics })
    : undefined;
  const webhooks = createAdmissionWebhooks({
    mutating: admissionPlugins.includes('MutatingAdmissionWebhook'),
    validating: admissionPlugins.includes('ValidatingAdmissionWebhook'),
    metrics: admissionMetrics,
    onError: (err) => logger.warn(`admission webhook informer: ${err instanceof Error ? err.message : String(err)}`),
    onFailOpen: (webhook, err) => logger.warn(`Failed calling webhook, failing open ${webhook}: ${err.message}`),
  });
  const storedRegistry = createRegistry({
    storage,
    prefix: options.etcdPrefix ?? '/registry',
    definitions: servedDefinitions,
    garbageCollection,
    // kube converts the duration to whole seconds (a fraction truncated; 0 = no expiry).
    eventTtlSeconds: Math.trunc((options.eventTtlMs ?? 3_600_000) / 1000),
    ...(options.allowPrivileged === true ? { allowPrivileged: true } : {}),
    ...(options.kubelet !== undefined ? { kubelet: options.kubelet } : {}),
    ...(options.serviceNetwork !== undefined ? { serviceNetwork: options.serviceNetwork } : {}),
    onReleaseError: (err) => logger.warn(`releasing a service IP or node port failed (the repair pass frees it): ${err instanceof Error ? err.message : String(err)}`),
    ...(authenticating ? { writeGuard: (definition: ResourceDefinition) => escalationGuard(escalation, definition) } : {}),
    namespaceLifecycle: admissionPlugins.includes('NamespaceLifecycle'),
    // kube's plugin order (admission/plugins.ts ALL_PLUGINS).
    admission: chainAdmission([
      limitRanger !== undefined && ((definition: ResourceDefinition) => limitRanger.plugin(definition)),
      admissionPlugins.includes('ServiceAccount') && ((definition: ResourceDefinition) =>
        definition.group === '' && definition.plural === 'pods' ? serviceAccountAdmission((ns, name) => serviceAccounts.readServiceAccount(ns, name)) : undefined),
      nodeRestriction !== undefined && ((definition: ResourceDefinition) => nodeRestriction.plugin(definition)),
      admissionPlugins.includes('TaintNodesByCondition') && taintNodesByCondition,
      podSecurity !== undefined && ((definition: ResourceDefinition) => podSecurity.plugin(definition)),
      priority !== undefined && ((definition: ResourceDefinition) => priority.plugin(definition)),
      admissionPlugins.includes('DefaultTolerationSeconds') && defaultTolerationSeconds(options.defaultTolerationSeconds),
      runtimeClass !== undefined && ((definition: ResourceDefinition) => runtimeClass.plugin(definition)),
      // (kube's storage, certificates and ingress plugins: none of them handles pods.)
      ...objectAdmission.early,
      webhooks.mutating !== undefined && (() => webhooks.mutating),
      validatingPolicy !== undefined && (() => validatingPolicy.plugin),
      webhooks.validating !== undefined && (() => webhooks.validating),
      objectAdmission.quota,
    ], admissionMetrics),
  });
  nodeRestriction?.start(storedRegistry, (err) => logger.warn(`node restriction informer: ${err instanceof Error ? err.message : String(err)}`));
  priority?.start(storedRegistry, (err) => logger.warn(`priority class informer: ${err instanceof Error ? err.message : String(err)}`));
  limitRanger?.start(storedRegistry, (err) => logger.warn(`limit range informer: ${err instanceof Error ? err.message : String(err)}`));
  podSecurity?.start(storedRegistry, (err) => logger.warn(`pod security namespace informer: ${err instanceof Error ? err.message : String(err)}`));
  runtimeClass?.start(storedRegistry, (err) => logger.warn(`runtime class informer: ${err instanceof Error ? err.message : String(err)}`));
  validatingPolicy?.start(storedRegistry, (err) => logger.warn(`validating admission policy informer: ${err instanceof Error ? err.message : String(err)}`));
  objectAdmission.start(storedRegistry, (err) => logger.warn(`admission informer: ${err instanceof Error ? err.message : String(err)}`));
  // Services (and, with --enable-aggregator-routing, Endpoints) in memory: how webhooks and aggregated APIs behind a Service are reached.
  const serviceResolver = startServiceResolver(storedRegistry, {
    aggregatorRouting: options.enableAggregatorRouting === true,
    onError: (err) => logger.warn(`service informer: ${err instanceof Error ? err.message : String(err)}`),
  });
  webhooks.start(storedRegistry, serviceResolver);
  let boundPort: number | undefined;
  const serviceAccounts: ServiceAccountServices = startServiceAccounts(storedRegistry, {
    ...(nodeRestriction !== undefined ? { admitTokenRequest: (ctx: RequestContext, name: string, body: unknown) => nodeRestriction.admitTokenRequest(ctx, name, body) } : {}),
    ...(saTokens !== undefined && saKeys !== undefined ? { tokens: { ...saTokens, ...saKeys } } : {}),
    ...(rootCaFromFile ?? certificate?.cert) !== undefined ? { rootCaPem: (rootCaFromFile ?? certificate?.cert)! } : {},
    // kube's external address: --external-hostname, else the advertised one.
    defaultJwksUri: () => `https://${urlHost(options.externalHostname ?? (advertiseAddress !== '' ? advertiseAddress : externalHost(options.bindAddress ?? '0.0.0.0')))}:${boundPort ?? securePort ?? 6443}/openid/v1/jwks`,
    onError: (what, err) => logger.warn(`${what}: ${err instanceof Error ? err.message : String(err)}`),
    ...(saTokens?.lookup === false ? { lookup: false } : {}),
  });
  let rbacPolicy: RbacPolicyStore | undefined;
  let nodeGraph: NodeGraph | undefined;
  const authorizer: Authorizer = unionAuthorizer(modes.map((mode) => {
    switch (mode) {
      case 'AlwaysAllow':
        return alwaysAllow;
      case 'AlwaysDeny':
        return alwaysDeny;
      case 'RBAC':
        rbacPolicy ??= startRbacPolicyStore(storedRegistry, (err) => logger.warn(`rbac informer: ${err instanceof Error ? err.message : String(err)}`));
        return rbacAuthorizer(rbacPolicy);
      case 'Node':
        nodeGraph ??= startNodeGraph(storedRegistry, (err) => logger.warn(`node authorizer informer: ${err instanceof Error ? err.message : String(err)}`));
        return nodeAuthorizer(nodeGraph);
      default:
        throw new Error(`authorization-mode ${mode} is not implemented by kapi`);
    }
  }));
  const anonymous = options.anonymousAuth === true;
  const saAuthenticator = serviceAccounts.authenticator;
  const authenticator = clientCa !== undefined || tokens !== undefined || anonymous || saAuthenticator !== undefined || requestHeader !== undefined
    ? createAuthenticator({
      ...(tokens !== undefined ? { tokens } : {}),
      clientCertificates: clientCa !== undefined,
      ...(requestHeader !== undefined ? { requestHeader } : {}),
      ...(requestHeader !== undefined && clientCa !== undefined ? { clientAuthorities: parseBundle(clientCa, 'client-ca-file') } : {}),
      anonymous,
      ...(saAuthenticator !== undefined ? { serviceAccountTokens: saAuthenticator, apiAudiences: serviceAccounts.apiAudiences } : {}),
    })
    : undefined;
  const registry = withExtraResources(
    storedRegistry,
    [
      ...reviewResources({ authorizer, ...(authenticator !== undefined ? { reviewToken: (token: string, audiences?: readonly string[]) => authenticator.reviewToken(token, audiences) } : {}) }),
      // Probed on each read; etcdCheck is the healthz check below (defined once the server's checks are).
      componentStatusResource({ checkEtcd: () => etcdCheck.check() }),
    ],
    serviceAccounts.subresources,
  );
  // Set once the server has started: resources served after that are new CRDs.
  let started = false;
  // One readiness check per watch cache (a cache that is (re-)listing cannot serve). The cache
  // of a CRD created while the server runs does not fail readyz during its first list: kube's
  // readiness does not depend on a new resource (a replica would leave its load balancer's
  // rotation whenever a CRD is created); once listed, a re-list fails it like any other.
  const cacheCheck = (r: { prefix: string; group: string; resource: string }, addedWhileServing = false): HealthCheck => {
    let listed = !addedWhileServing;
    return {
      name: `watch-cache/${r.group === '' ? r.resource : `${r.resource}.${r.group}`}`,
      check: () => {
        const ready = watchCache?.isReady(r.prefix);
        if (ready === true) listed = true;
        if (ready !== false || !listed) return Promise.resolve();
        const reason = watchCache?.initializationError(r.prefix);
        return Promise.reject(new Error(reason === undefined ? 'not initialized' : `not initialized: ${reason}`));
      },
    };
  };
  // Filled below; custom resources add their cache's check when they are first served.
  const readyzChecks: HealthCheck[] = [];
  // Every replica serves every established CRD (not leader-elected); each custom resource gets its own cacher.
  const crdController: CrdController = startCrdController(registry, {
    beforeRegister: (d) => {
      const resource = { prefix: `${etcdPrefix}/${d.storagePrefix ?? d.plural}`, group: d.group, resource: d.plural };
      if (resources.some((r) => r.prefix === resource.prefix)) return;
      resources.push(resource);
      if (watchCache === undefined) return;
      watchCache.addResource(resource);
      readyzChecks.splice(Math.max(readyzChecks.length - 1, 0), 0, cacheCheck(resource, started));
    },
    onError: (err) => logger.warn(`crd controller: ${err instanceof Error ? err.message : String(err)}`),
  });
  const crdSynced: HealthCheck = {
    name: 'poststarthook/crd-informer-synced',
    check: () => (crdController.hasSynced ? Promise.resolve() : Promise.reject(new Error('not finished'))),
  };

  // kube-aggregator: APIServices that name a Service are proxied to it (every replica).
  const aggregator = startAggregator(storedRegistry, {
    resolver: serviceResolver,
    ...(proxyClientCertificate !== undefined ? { clientCertificate: proxyClientCertificate } : {}),
    uidHeader: options.remoteRequestHeaderUid === true,
    localGroup: (name) => registry.resources.some((r) => r.definition.group === name),
    // Custom resources (unstructured bodies) get theirs from the CRDs instead.
    controllers: options.apiServiceControllers !== false,
    builtinGroupVersions: registry.resources.filter((r) => r.definition.bodyDecoding !== 'unstructured').map((r) => ({ group: r.definition.group, version: r.version })),
    metrics: metrics.registry,
    onError: (what, err) => logger.warn(`aggregator: ${what}: ${err instanceof Error ? err.message : String(err)}`),
  });

  const startedAt = Date.now();
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const lifecycle = new ServerLifecycle();
  let namespacesReady = false;
  let rbacBootstrapped = false;
  let closing = false;
  // Kept fresh while probed (the last check within 30 s): a health request never waits for etcd.
  const etcdCheck = boundedCheck('etcd', () => etcd.currentRevision(), options.etcdHealthcheckTimeoutMs ?? 2000, Date.now, 30_000);
  const etcdReadiness = boundedCheck('etcd-readiness', () => etcd.currentRevision(), options.etcdReadycheckTimeoutMs ?? 2000, Date.now, 30_000);
  const bootstrapCheck: HealthCheck = {
    name: 'poststarthook/start-system-namespaces-controller',
    check: () => (namespacesReady ? Promise.resolve() : Promise.reject(new Error('not finished'))),
  };
  // kube-apiserver's `informer-sync`: ready once the controllers' informers have made their first
  // lists. Latched, as an informer's HasSynced is: the monitor the garbage collector adds for a
  // CRD created later does not unready the server.
  let informersSynced = false;
  const informerSync: HealthCheck = {
    name: 'informer-sync',
    check: () => {
      if (options.controllers === false || informersSynced || (informersSynced = controllers?.synced() === true)) return Promise.resolve();
      return Promise.reject(new Error('informers not started or not synced'));
    },
  };
  const shutdownCheck: HealthCheck = {
    name: 'shutdown',
    check: () => (lifecycle.shutdownInitiated ? Promise.reject(new Error('process is shutting down')) : Promise.resolve()),
  };
  const cacheChecks: HealthCheck[] = watchCache === undefined ? [] : resources.map((r) => cacheCheck(r));
  const logHealth = logCheck(() => logger.healthy?.() ?? true);
  // kube's rbac/bootstrap-roles post-start hook: the bootstrap policy reconciled and the RBAC informers listed.
  const rbacCheck: HealthCheck[] = rbacPolicy === undefined ? [] : [{
    name: 'poststarthook/rbac/bootstrap-roles',
    check: () => (rbacBootstrapped && rbacPolicy?.synced() === true ? Promise.resolve() : Promise.reject(new Error('not finished'))),
  }];
  // kube's priority-and-fairness-config-producer post-start hook (installed when flowcontrol.apiserver.k8s.io/v1 is served): the bootstrap FlowSchemas and priority levels ensured once.
  let flowcontrolBootstrapped = false;
  const flowcontrolCheck: HealthCheck[] = storedRegistry.lookup(FLOWCONTROL_GROUP, 'v1', 'flowschemas') === undefined ? [] : [{
    name: 'poststarthook/priority-and-fairness-config-producer',
    check: () => (flowcontrolBootstrapped ? Promise.resolve() : Promise.reject(new Error('not finished'))),
  }];
  // kube's autoregister-completion: every built-in local APIService has been seen Available.
  const autoregisterCheck: HealthCheck[] = aggregator === undefined ? [] : [{
    name: 'autoregister-completion',
    check: () => {
      const pending = aggregator.pendingLocalApiServices();
      return pending.length === 0 ? Promise.resolve() : Promise.reject(new Error(`missing APIService: [${pending.join(' ')}]`));
    },
  }];
  // kube's scheduling/bootstrap-system-priority-classes post-start hook (installed when scheduling.k8s.io/v1 is served).
  let priorityClassesBootstrapped = false;
  const priorityClassCheck: HealthCheck[] = storedRegistry.lookup(SCHEDULING_GROUP, 'v1', 'priorityclasses') === undefined ? [] : [{
    name: 'poststarthook/scheduling/bootstrap-system-priority-classes',
    check: () => (priorityClassesBootstrapped ? Promise.resolve() : Promise.reject(new Error('not finished'))),
  }];
  // kube's order: informer-sync before the post-start hooks, the hooks in the order kube-apiserver
  // registers them (autoregister-completion comes after its own), kapi's watch caches, shutdown last.
  readyzChecks.unshift(pingCheck, logHealth, etcdCheck, etcdReadiness, informerSync, crdSynced, bootstrapCheck, ...rbacCheck, ...priorityClassCheck, ...flowcontrolCheck, ...autoregisterCheck, ...cacheChecks, shutdownCheck);
  const livezGraceMs = options.livezGracePeriodMs ?? 0;
  const hooksForLivez = [delayedCheck(bootstrapCheck, startedAt, livezGraceMs)];
  const shutdown = new AbortController();
  const profiling = options.profiling ?? true;
  // Go samples the heap from the start (MemProfileRate); so does kapi while profiling is on.
  if (profiling) startHeapSampling().catch((err: unknown) => logger.warn('heap sampling not started: /debug/pprof/heap will fail', { err: err instanceof Error ? err.message : String(err) }));
  const requestHandler = createRequestHandler({
    registry,
    ...(options.allowUnsafeMalformedObjectDeletion === true ? { allowUnsafeMalformedObjectDeletion: true } : {}),
    definitions: { ...definitions, ...apiextensionsDefinitions },
    metrics: options.worker === undefined ? metrics : { ...metrics, registry: options.worker.servedMetrics(metrics.registry) },
    health: {
      livez: [pingCheck, logHealth, etcdCheck, ...hooksForLivez],
      healthz: [pingCheck, logHealth, etcdCheck, ...hooksForLivez],
      readyz: readyzChecks,
    },
    requestTimeoutMs,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
    shutdown: shutdown.signal,
    logger,
    lifecycle,
    inflightLimiter: createInflightLimiter({
      maxRequestsInflight: options.maxRequestsInflight ?? 400,
      maxMutatingRequestsInflight: options.maxMutatingRequestsInflight ?? 200,
    }),
    ...(options.tracer !== undefined ? { tracer: options.tracer } : {}),
    ...(options.requestLogVerbosity !== undefined ? { requestLogVerbosity: options.requestLogVerbosity } : {}),
    ...(auditor !== undefined ? { auditor } : {}),
    extraRoutes: serviceAccounts.routes,
    ...(options.corsAllowedOrigins !== undefined ? { corsAllowedOrigins: options.corsAllowedOrigins } : {}),
    ...(options.externalHostname !== undefined ? { externalAddress: () => `${urlHost(options.externalHostname!)}:${boundPort ?? securePort ?? 6443}` } : {}),
    ...(profiling ? { pprof: createPprofHandler({ shutdown: shutdown.signal }), debugFlags: createDebugFlagsHandler((level) => logger.setVerbosity?.(level)) } : {}),
    ...(aggregator !== undefined ? { aggregator } : {}),
    auth: {
      ...(authenticator !== undefined ? { authenticator } : {}),
      authorizer,
      onAuthenticationFailure: (req, reason) => logger.debug(4, 'Unable to authenticate the request', { URI: req.url ?? '/', err: reason }),
      ...(nodeRestriction !== undefined ? { admitRequest: (user: UserInfo, info: ResourceRequestInfo) => nodeRestriction.admitSubresource(user, info.verb, { group: info.group, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name }) } : {}),
    },
  });

  const handler: RequestListener = options.worker === undefined ? requestHandler : workerHandler(requestHandler, options.worker.name);
  const guard = connectionGuard(options, logger);
  const listenerOptions = { requestTimeoutMs, guard, ...(options.connectionTimeouts !== undefined ? { timeouts: options.connectionTimeouts } : {}) };
  const servers: Listener[] = [];
  const result: { securePort?: number; insecurePort?: number; url?: string; insecureUrl?: string; certificate?: string } = {};
  try {
    if (securePort !== null && certificate !== undefined) {
      // The front proxy's authority is trusted for the TLS handshake too; the authenticators tell the two apart.
      const trusted = [clientCa, requestHeaderCa].filter((pem): pem is string => pem !== undefined).map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`)).join('');
      const server = createListener(handler, { ...listenerOptions, ...(options.http2 !== undefined ? { http2: options.http2 } : {}), tls: { cert: certificate.cert, key: certificate.key, ...(trusted !== '' ? { clientCa: trusted } : {}) } });
      servers.push(server);
      const bind = options.bindAddress ?? '0.0.0.0';
      result.securePort = await listen(server, securePort, bind);
      boundPort = result.securePort;
      result.url = `https://${urlHost(bind)}:${result.securePort}`;
      result.certificate = certificate.cert;
    }
    if (options.insecurePort !== undefined && options.insecurePort !== null) {
      const server = createListener(handler, listenerOptions);
      servers.push(server);
      const bind = options.insecureBindAddress ?? '127.0.0.1';
      result.insecurePort = await listen(server, options.insecurePort, bind);
      result.insecureUrl = `http://${urlHost(bind)}:${result.insecurePort}`;
    }
  } catch (err) {
    await Promise.all(servers.map((server) => stopListening(server, 0).closed));
    await aggregator?.stop();
    await rbacPolicy?.stop();
    await nodeGraph?.stop();
    await nodeRestriction?.stop();
    await priority?.stop();
    await runtimeClass?.stop();
    await podSecurity?.stop();
    await limitRanger?.stop();
    await validatingPolicy?.stop();
    await objectAdmission.stop();
    await webhooks.stop();
    await serviceResolver.stop();
    await serviceAccounts.stop();
    await crdController.stop();
    storageMetrics.stop();
    metrics.close();
    await auditor?.close();
    await compactor.stop();
    await storage.close();
    etcdClient.close();
    throw err;
  }

  const authenticationInfo = authenticationInfoPublisher(storedRegistry, {
    ...(clientCa !== undefined ? { clientCa } : {}),
    ...(requestHeader !== undefined && requestHeaderCa !== undefined ? {
      requestHeader: {
        clientCa: requestHeaderCa,
        allowedNames: requestHeader.allowedNames,
        usernameHeaders: requestHeader.usernameHeaders,
        ...(options.remoteRequestHeaderUid === true ? { uidHeaders: requestHeader.uidHeaders } : {}),
        groupHeaders: requestHeader.groupHeaders,
        extraHeaderPrefixes: requestHeader.extraHeaderPrefixes,
      },
    } : {}),
  }, (err) => logger.warn(`extension-apiserver-authentication: ${err instanceof Error ? err.message : String(err)}`));
  let wake: (() => void) | undefined;
  const bootstrap = (async () => {
    for (let delay = 100; !closing; delay = Math.min(delay * 2, 5000)) {
      try {
        await registry.ensureSystemNamespaces();
        namespacesReady = true;
        if (rbacPolicy !== undefined) await reconcileBootstrapPolicy(storedRegistry);
        rbacBootstrapped = true;
        await authenticationInfo.sync();
        await ensureFlowcontrolBootstrap(storedRegistry);
        flowcontrolBootstrapped = true;
        await ensureSystemPriorityClasses(storedRegistry);
        priorityClassesBootstrapped = true;
        return;
      } catch (err) {
        logger.warn(`creating system namespaces failed, retrying in ${delay}ms: ${err instanceof Error ? err.message : String(err)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  })();

  let controllers: RunningControllers | undefined;
  let closed: Promise<void> | undefined;
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      lifecycle.shutdownInitiated = true;
      wake?.();
      const delayMs = options.shutdownDelayMs ?? 0;
      logger.info('shutdown initiated: readyz reports failure', { shutdownDelay: `${delayMs}ms`, watches: lifecycle.watchesOpen, inflight: lifecycle.requestsInFlight });
      if (delayMs > 0) await sleep(delayMs);
      lifecycle.rejectWithRetryAfter = options.shutdownSendRetryAfter === true;
      lifecycle.notAcceptingNewRequests = true;
      // Default: stop listening now. With send-retry-after: keep listening (new requests get 429) until drained.
      let listeners = lifecycle.rejectWithRetryAfter ? undefined : servers.map((server) => stopListening(server, 60_000));
      const drainMs = options.shutdownDrainTimeoutMs ?? requestTimeoutMs;
      const [, drained] = await Promise.all([
        lifecycle.terminateWatches(options.shutdownWatchTerminationGracePeriodMs ?? 0),
        lifecycle.drainRequests(drainMs),
      ]);
      if (!drained) logger.warn('shutdown: in-flight requests did not finish in time', { inflight: lifecycle.requestsInFlight, timeout: `${drainMs}ms` });
      shutdown.abort();
      listeners ??= servers.map((server) => stopListening(server, 2000));
      for (const listener of listeners) listener.force();
      await Promise.all(listeners.map((l) => l.closed));
      await bootstrap;
      authenticationInfo.stop();
      await aggregator?.stop();
      await controllers?.stop();
      await rbacPolicy?.stop();
      await nodeGraph?.stop();
      await nodeRestriction?.stop();
      await priority?.stop();
      await runtimeClass?.stop();
      await podSecurity?.stop();
      await limitRanger?.stop();
    await limitRanger?.stop();
    await podSecurity?.stop();
    await limitRanger?.stop();
      await validatingPolicy?.stop();
      await objectAdmission.stop();
      await webhooks.stop();
      await serviceResolver.stop();
      await serviceAccounts.stop();
      await crdController.stop();
      // kube's sequence: the audit backend shuts down once requests have drained (its queue is written out).
      await auditor?.close();
      storageMetrics.stop();
      metrics.close();
      await compactor.stop();
      await storage.close();
      etcdClient.close();
      logger.info('shutdown complete');
    })();
    return closed;
  };
  await bootstrap;
  // Every CRD stored so far is served before the server reports itself started (as readyz's crd-informer-synced).
  if (!closing) await crdController.synced();
  if (!closing) {
    const tuning = options.controllers === false ? {} : (options.controllers ?? {});
    const reconciler = options.endpointReconcilerType ?? 'lease';
    controllers = startControllers(registry, kapiControllers({
      registry,
      onError: (name, err) => logger.warn(`${name}: ${err instanceof Error ? err.message : String(err)}`),
      ...(tuning.namespaceResyncMs !== undefined ? { namespaceResyncMs: tuning.namespaceResyncMs } : {}),
      ...(tuning.resourceQuotaSyncMs !== undefined ? { resourceQuotaSyncMs: tuning.resourceQuotaSyncMs } : {}),
      ...(garbageCollection && tuning.garbageCollector !== false ? { garbageCollector: tuning.garbageCollector ?? {} } : {}),
      ...serviceAccounts.controllerInputs,
      ...(rbacPolicy !== undefined ? { clusterRoles: rbacPolicy } : {}),
      ...(options.kubernetesService !== false && result.securePort !== undefined ? {
        kubernetesService: {
          ...options.kubernetesService,
          advertiseAddress,
          securePort: result.securePort,
          endpointReconciler: reconciler,
          ...(reconciler === 'lease' ? { leases: masterLeases(ttlKeys(etcdClient, `${etcdPrefix}/masterleases/`, undefined, leaseObjectCountObserver(metrics.registry))) } : {}),
        },
      } : {}),
      ...(storedRegistry.lookup(FLOWCONTROL_GROUP, 'v1', 'flowschemas') !== undefined ? { flowcontrol: { intervalMs: 60_000 } } : {}),
      priorityAndFairness: options.enablePriorityAndFairness !== false,
    }, { leaderElected: options.controllers !== false, ...(options.enabledControllers !== undefined ? { enabled: options.enabledControllers } : {}) }), tuning.leaderElection !== undefined ? { leaderElection: tuning.leaderElection } : {});
    // Their first lists come from the watch caches: wait briefly so that readyz (informer-sync) passes on return.
    for (const deadline = Date.now() + 5000; !controllers.synced() && !closing && Date.now() < deadline; ) await sleep(10);
  }
  // Requests are authorized from the RBAC informers: wait (bounded) for their first lists.
  for (const deadline = Date.now() + 10_000; ((rbacPolicy !== undefined && !rbacPolicy.synced()) || nodeGraph?.synced() === false || nodeRestriction?.synced() === false || priority?.synced() === false || !objectAdmission.synced()) && !closing && Date.now() < deadline; ) await sleep(10);
  // The YAML decoder threads start now rather than with the first YAML body.
  yamlDecoder().warm();
  started = true;
  return {
    ...result,
    close,
    get shuttingDown() {
      return lifecycle.shutdownInitiated;
    },
  };
}
export type { ConnectionTimeouts } from './http/listeners.js';

#!/usr/bin/env node
/**
 * `kapi-apiserver`: parse kube-apiserver flags, start the tracing SDK when
 * --tracing-config-file is given (the only place the SDK is started), start the server, and
 * shut down gracefully on SIGTERM/SIGINT (a second signal exits at once, as kube does).
 * With --workers=N > 1 this process becomes the primary (workers/primary.ts) and the same
 * program runs again as each of its N workers.
 */
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { loadServingCertificate } from './certs.js';
import { FlagError, anonymousAllowed, parseFlags, usage } from './flags.js';
import type { AdmissionConfiguration } from './admission/config-file.js';
import { createLogger } from './logger.js';
import { GIT_VERSION, formatVersionInfoGo, versionInfo } from './version.js';
// The server (main.js) is imported only where it runs: not in the primary of several workers.
import type { startApiServer as StartApiServer } from './main.js';
import { resolveWorkerCount } from './workers/count.js';
import { runPrimary } from './workers/primary.js';
import { shareOfLimit, workerContext } from './workers/worker.js';
import { notifyStarted } from './started-hook.js';
// The tracing SDK (OpenTelemetry's exporter over gRPC: ~0.5 s of CPU to load) is imported only
// when --tracing-config-file asks for it.
import type { TracingSdk } from './tracing.js';

/** Flushes and stops the tracing SDK; an unreachable collector costs at most 5 s and never fails the exit. */
async function flushTracing(tracing: TracingSdk | undefined, warn: (err: unknown) => void): Promise<void> {
  if (tracing === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      tracing.shutdown(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000))),
    ]);
  } catch (err) {
    warn(err);
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<void> {
  let flags;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (flags === 'help') {
    process.stdout.write(usage());
    return;
  }
  if ('version' in flags) {
    process.stdout.write(flags.version === 'raw' ? `${formatVersionInfoGo(versionInfo())}\n` : `Kubernetes ${GIT_VERSION}\n`);
    return;
  }
  const worker = workerContext();
  const flagsLogger = createLogger({ verbosity: flags.verbosity, format: flags.loggingFormat });
  // One verbosity for the whole server: a worker's PUT /debug/flags/v reaches the others too.
  const logger = worker === undefined ? flagsLogger : { ...flagsLogger, setVerbosity: worker.shareVerbosity((level) => flagsLogger.setVerbosity?.(level)) };
  // pflag's own lines, once per server (a worker parses the same command line again).
  if (worker === undefined) for (const warning of flags.flagWarnings) process.stderr.write(`${warning}\n`);
  if (worker === undefined && cluster.isPrimary) {
    const workers = resolveWorkerCount(flags.workers);
    if (workers > 1) {
      // Generated once, here, before any worker could race to write it; the workers read it.
      if (flags.tlsCertFile === '') await loadServingCertificate({ certDir: flags.certDir });
      runPrimary({ workers, logger });
      return;
    }
  }
  // A worker's share of the server-wide limits.
  const share = (limit: number) => (worker === undefined ? limit : shareOfLimit(limit, worker.count));
  let tracing: TracingSdk | undefined;
  if (flags.tracingConfigFile !== '') {
    const { TracingConfigError, readTracingConfiguration, startTracing } = await import('./tracing.js');
    try {
      const config = readTracingConfiguration(flags.tracingConfigFile);
      tracing = startTracing(config, { instanceId: `apiserver-${randomUUID()}` });
      logger.info('tracing enabled', { endpoint: config.endpoint, samplingRatePerMillion: config.samplingRatePerMillion });
    } catch (err) {
      if (err instanceof TracingConfigError) {
        process.stderr.write(`Error: ${err.message}\n`);
        process.exit(1);
      }
      throw err;
    }
  }
  let admissionConfig: AdmissionConfiguration = {};
  if (flags.admissionControlConfigFile !== '') {
    const { AdmissionConfigError, readAdmissionConfiguration } = await import('./admission/config-file.js');
    try {
      admissionConfig = readAdmissionConfiguration(flags.admissionControlConfigFile, flags.admissionPlugins);
    } catch (err) {
      if (err instanceof AdmissionConfigError) {
        process.stderr.write(`Error: ${err.message}\n`);
        process.exit(1);
      }
      throw err;
    }
  }
  for (const warning of flags.featureGateWarnings) logger.warn(warning);
  if (flags.anonymousAuth && !anonymousAllowed(flags)) {
    logger.warn('AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer');
  }
  if (flags.watchCacheSizes.length > 0) {
    logger.info(`--watch-cache-sizes=${flags.watchCacheSizes.join(',')} is ignored: kapi sizes each watch cache by a time window`);
  }
  const { startApiServer }: { startApiServer: typeof StartApiServer } = await import('./main.js');
  const server = await startApiServer({
    etcdServers: flags.etcdServers,
    etcdPrefix: flags.etcdPrefix,
    runtimeConfig: flags.runtimeConfig,
    securePort: flags.securePort,
    bindAddress: flags.bindAddress,
    tlsCertFile: flags.tlsCertFile,
    tlsPrivateKeyFile: flags.tlsPrivateKeyFile,
    certDir: flags.certDir,
    insecurePort: flags.insecurePort === 0 ? null : flags.insecurePort,
    insecureBindAddress: flags.insecureBindAddress,
    requestTimeoutMs: flags.requestTimeoutMs,
    profiling: flags.profiling,
    watchCache: flags.watchCache,
    minRequestTimeoutSeconds: flags.minRequestTimeoutSeconds,
    etcdCompactionIntervalMs: flags.etcdCompactionIntervalMs,
    eventTtlMs: flags.eventTtlMs,
    leaseReuseDurationSeconds: flags.leaseReuseDurationSeconds,
    consistentListFromCache: flags.featureGates['ConsistentListFromCache'] ?? true,
    allowUnsafeMalformedObjectDeletion: flags.featureGates['AllowUnsafeMalformedObjectDeletion'] ?? false,
    maxRequestsInflight: share(flags.maxRequestsInflight),
    maxConnections: share(flags.maxConnections),
    http2: { disabled: flags.disableHttp2Serving, maxStreamsPerConnection: flags.http2MaxStreamsPerConnection, goawayChance: flags.goawayChance },
    maxMutatingRequestsInflight: share(flags.maxMutatingRequestsInflight),
    shutdownDelayMs: flags.shutdownDelayMs,
    shutdownSendRetryAfter: flags.shutdownSendRetryAfter,
    shutdownWatchTerminationGracePeriodMs: flags.shutdownWatchTerminationGracePeriodMs,
    livezGracePeriodMs: flags.livezGracePeriodMs,
    etcdCountMetricPollPeriodMs: flags.etcdCountMetricPollPeriodMs,
    etcdDbMetricPollIntervalMs: flags.etcdDbMetricPollIntervalMs,
    etcdHealthcheckTimeoutMs: flags.etcdHealthcheckTimeoutMs,
    etcdReadycheckTimeoutMs: flags.etcdReadycheckTimeoutMs,
    etcdMaxRequestBytes: flags.etcdMaxRequestBytes,
    enableGarbageCollector: flags.enableGarbageCollector,
    enablePriorityAndFairness: flags.enablePriorityAndFairness,
    ...(flags.clientCaFile !== '' ? { clientCaFile: flags.clientCaFile } : {}),
    ...(flags.tokenAuthFile !== '' ? { tokenAuthFile: flags.tokenAuthFile } : {}),
    ...(flags.requestHeader.clientCaFile !== '' ? { requestHeader: flags.requestHeader } : {}),
    remoteRequestHeaderUid: flags.featureGates['RemoteRequestHeaderUID'] === true,
    ...(flags.proxyClientCertFile !== '' && flags.proxyClientKeyFile !== '' ? { proxyClientCertFile: flags.proxyClientCertFile, proxyClientKeyFile: flags.proxyClientKeyFile } : {}),
    ...(flags.enableAggregatorRouting ? { enableAggregatorRouting: true } : {}),
    storageMediaType: flags.storageMediaType,
    ...(flags.encryptionProviderConfig !== '' ? { encryptionProviderConfig: flags.encryptionProviderConfig } : {}),
    authorizationModes: flags.authorizationModes,
    serviceNetwork: {
      ...(flags.serviceClusterIPRange !== '' ? { clusterIPRange: flags.serviceClusterIPRange } : {}),
      nodePortRange: flags.serviceNodePortRange,
    },
    ...(flags.advertiseAddress !== '' ? { advertiseAddress: flags.advertiseAddress } : {}),
    ...(flags.externalHostname !== '' ? { externalHostname: flags.externalHostname } : {}),
    ...(flags.corsAllowedOrigins.length > 0 ? { corsAllowedOrigins: flags.corsAllowedOrigins } : {}),
    allowPrivileged: flags.allowPrivileged,
    kubelet: { preferredAddressTypes: flags.kubeletPreferredAddressTypes, port: flags.kubeletPort },
    endpointReconcilerType: flags.endpointReconcilerType,
    ...(flags.etcdCaFile !== '' || flags.etcdCertFile !== '' || flags.etcdKeyFile !== '' ? { etcdTls: { caFile: flags.etcdCaFile, certFile: flags.etcdCertFile, keyFile: flags.etcdKeyFile } } : {}),
    audit: flags.audit,
    anonymousAuth: anonymousAllowed(flags),
    admissionPlugins: flags.admissionPlugins,
    ...(admissionConfig.podSecurity !== undefined ? { podSecurity: admissionConfig.podSecurity } : {}),
    defaultTolerationSeconds: { notReadySeconds: flags.defaultNotReadyTolerationSeconds, unreachableSeconds: flags.defaultUnreachableTolerationSeconds },
    enabledControllers: flags.enabledControllers,
    ...(flags.serviceAccountIssuers.length > 0 ? {
      serviceAccountTokens: {
        issuers: flags.serviceAccountIssuers,
        keyFiles: flags.serviceAccountKeyFiles,
        signingKeyFile: flags.serviceAccountSigningKeyFile,
        apiAudiences: flags.apiAudiences,
        maxExpirationSeconds: Math.floor(flags.serviceAccountMaxTokenExpirationMs / 1000),
        extendExpiration: flags.serviceAccountExtendTokenExpiration,
        lookup: flags.serviceAccountLookup,
        ...(flags.serviceAccountJwksUri !== '' ? { jwksUri: flags.serviceAccountJwksUri } : {}),
      },
    } : {}),
    ...(flags.rootCaFile !== '' ? { rootCaFile: flags.rootCaFile } : {}),
    controllers: {
      leaderElection: flags.leaderElect
        ? {
            leaseDurationMs: flags.leaderElectLeaseDurationMs,
            renewDeadlineMs: flags.leaderElectRenewDeadlineMs,
            retryPeriodMs: flags.leaderElectRetryPeriodMs,
            namespace: flags.leaderElectResourceNamespace,
            name: flags.leaderElectResourceName,
          }
        : false,
    },
    ...(worker !== undefined ? { worker: { name: String(worker.slot), servedMetrics: (local) => worker.servedMetrics(local) } } : {}),
    logger,
  });
  worker?.ready();
  logger.info(`Serving securely on ${flags.bindAddress}:${server.securePort}`);
  if (server.insecurePort !== undefined) logger.info(`Serving insecurely on ${flags.insecureBindAddress}:${server.insecurePort}`);
  // dist/bundled.js saves its code cache now.
  notifyStarted();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.info(`Received ${signal} again, exiting immediately`);
      process.exit(1);
    }
    stopping = true;
    logger.info(`Received ${signal}, shutting down`);
    server
      .close()
      .then(() => flushTracing(tracing, (err) => logger.warn(`tracing shutdown: ${err instanceof Error ? err.message : String(err)}`)))
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error('shutdown failed', err);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // The primary's stop reaches a worker that may have had the same signal already (SIGINT from a terminal goes to the whole group).
  worker?.onShutdown(() => {
    if (!stopping) stop('shutdown from the primary');
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

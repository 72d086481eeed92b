/**
 * The composition root: the only place that names concrete backends. etcd storage → watch
 * cache → registry → HTTP(S) listeners.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { builtinDefinitions, createRegistry, definitions } from '@kapi/registry';
import { createEtcdClient, createEtcdStorage, startCompactor } from '@kapi/storage';
import { createWatchCache, type WatchCacheOptions } from '@kapi/watch-cache';
import { loadServingCertificate } from './certs.js';
import { boundedCheck, pingCheck, type HealthCheck } from './health.js';
import { createLogger, type Logger } from './logger.js';
import { createApiMetrics } from './metrics.js';
import { createRequestHandler } from './server.js';

export interface ApiServerOptions {
  /** etcd client URLs (--etcd-servers). Required. */
  readonly etcdServers: readonly string[];
  /** --etcd-prefix; default `/registry`. */
  readonly etcdPrefix?: string;
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
  /** --watch-cache; default true. */
  readonly watchCache?: boolean;
  /** --min-request-timeout in seconds; default 1800 (a watch without timeoutSeconds lasts [min, 2×min)). */
  readonly minRequestTimeoutSeconds?: number;
  /** --etcd-compaction-interval in ms; default 5 min, 0 disables compaction. */
  readonly etcdCompactionIntervalMs?: number;
  /** --feature-gates=ConsistentListFromCache=...: serve most-recent lists from the watch cache once it is current; default true. */
  readonly consistentListFromCache?: boolean;
  /** Programmatic only (tests): shorter watch-cache periods than kube's defaults. */
  readonly watchCacheTuning?: Pick<WatchCacheOptions, 'bookmarkIntervalMs' | 'tickMs' | 'waitTimeoutMs'>;
  readonly logger?: Logger;
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
  /** Stops accepting connections, ends open ones, stops background work and closes storage. */
  close(): Promise<void>;
}

function urlHost(address: string): string {
  if (address === '0.0.0.0' || address === '::' || address === '') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

function listen(server: HttpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 2000).unref();
  });
}

/** Node's limits, set to kube's equivalents; requestTimeout is off so watches can stay open. */
function tune(server: HttpServer): void {
  server.headersTimeout = 32_000;
  server.requestTimeout = 0;
  server.keepAliveTimeout = 90_000;
  server.maxHeadersCount = 1000;
}

/**
 * Starts a server: connects to etcd, builds the registry, listens, then creates the system
 * namespaces (retrying with backoff while etcd is unreachable; readyz reports
 * `poststarthook/start-system-namespaces-controller` failed meanwhile). Resolves once the
 * namespaces exist. Rejects when a port cannot be bound or the certificate cannot be loaded.
 */
export async function startApiServer(options: ApiServerOptions): Promise<RunningServer> {
  if (options.etcdServers.length === 0) throw new Error('--etcd-servers must be specified');
  const logger = options.logger ?? createLogger();
  const securePort = options.securePort === undefined ? 6443 : options.securePort;
  const certificate = securePort !== null ? await loadServingCertificate({
    ...(options.tlsCertFile ? { certFile: options.tlsCertFile } : {}),
    ...(options.tlsPrivateKeyFile ? { keyFile: options.tlsPrivateKeyFile } : {}),
    certDir: options.certDir ?? '/var/run/kubernetes',
  }) : undefined;

  // One etcd client for the storage and the compactor (every replica runs one; they agree
  // through compact_rev_key). Interval 0 compacts nothing but still learns others' compactions.
  const etcdClient = createEtcdClient([...options.etcdServers]);
  const compactor = startCompactor({
    client: etcdClient,
    intervalMs: options.etcdCompactionIntervalMs ?? 5 * 60_000,
    onError: (err) => logger.warn(`etcd compaction failed: ${err instanceof Error ? err.message : String(err)}`),
  });
  const etcd = createEtcdStorage({ endpoints: [...options.etcdServers], client: etcdClient, compaction: compactor });
  const metrics = createApiMetrics();
  const etcdPrefix = (options.etcdPrefix ?? '/registry').replace(/\/$/, '');
  const storage = options.watchCache === false ? etcd : createWatchCache(etcd, {
    resources: builtinDefinitions.map((d) => ({ prefix: `${etcdPrefix}/${d.storagePrefix ?? d.plural}`, group: d.group, resource: d.plural })),
    consistentReads: options.consistentListFromCache ?? true,
    metricsRegistry: metrics.registry,
    logger,
    ...options.watchCacheTuning,
  });
  const registry = createRegistry({ storage, prefix: options.etcdPrefix ?? '/registry' });

  let namespacesReady = false;
  let closing = false;
  const etcdCheck = boundedCheck('etcd', () => etcd.currentRevision(), 2000);
  const bootstrapCheck: HealthCheck = {
    name: 'poststarthook/start-system-namespaces-controller',
    check: () => (namespacesReady ? Promise.resolve() : Promise.reject(new Error('not finished'))),
  };
  const shutdownCheck: HealthCheck = {
    name: 'shutdown',
    check: () => (closing ? Promise.reject(new Error('server is shutting down')) : Promise.resolve()),
  };
  const shutdown = new AbortController();
  const handler = createRequestHandler({
    registry,
    definitions,
    metrics,
    health: {
      livez: [pingCheck],
      healthz: [pingCheck, etcdCheck, bootstrapCheck],
      readyz: [pingCheck, etcdCheck, bootstrapCheck, shutdownCheck],
    },
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
    shutdown: shutdown.signal,
    logger,
  });

  const servers: HttpServer[] = [];
  const result: { securePort?: number; insecurePort?: number; url?: string; insecureUrl?: string; certificate?: string } = {};
  try {
    if (securePort !== null && certificate !== undefined) {
      const server = createHttpsServer({ cert: certificate.cert, key: certificate.key, maxHeaderSize: 1 << 20 }, handler);
      tune(server);
      servers.push(server);
      const bind = options.bindAddress ?? '0.0.0.0';
      result.securePort = await listen(server, securePort, bind);
      result.url = `https://${urlHost(bind)}:${result.securePort}`;
      result.certificate = certificate.cert;
    }
    if (options.insecurePort !== undefined && options.insecurePort !== null) {
      const server = createHttpServer({ maxHeaderSize: 1 << 20 }, handler);
      tune(server);
      servers.push(server);
      const bind = options.insecureBindAddress ?? '127.0.0.1';
      result.insecurePort = await listen(server, options.insecurePort, bind);
      result.insecureUrl = `http://${urlHost(bind)}:${result.insecurePort}`;
    }
  } catch (err) {
    await Promise.all(servers.map(closeServer));
    await compactor.stop();
    await storage.close();
    etcdClient.close();
    throw err;
  }

  let wake: (() => void) | undefined;
  const bootstrap = (async () => {
    for (let delay = 100; !closing; delay = Math.min(delay * 2, 5000)) {
      try {
        await registry.ensureSystemNamespaces();
        namespacesReady = true;
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

  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    shutdown.abort();
    wake?.();
    await bootstrap;
    await Promise.all(servers.map(closeServer));
    await compactor.stop();
    await storage.close();
    etcdClient.close();
  };
  await bootstrap;
  return { ...result, close };
}

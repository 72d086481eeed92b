#!/usr/bin/env node
/** `kapi-apiserver`: parse kube-apiserver flags, start, log like kube, close gracefully on SIGTERM/SIGINT. */
import { FlagError, parseFlags, usage } from './flags.js';
import { createLogger } from './logger.js';
import { startApiServer } from './main.js';

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
  const logger = createLogger(flags.verbosity);
  if (flags.watchCacheSizes.length > 0) {
    logger.info(`--watch-cache-sizes=${flags.watchCacheSizes.join(',')} is ignored: kapi sizes each watch cache by a time window`);
  }
  const server = await startApiServer({
    etcdServers: flags.etcdServers,
    etcdPrefix: flags.etcdPrefix,
    securePort: flags.securePort,
    bindAddress: flags.bindAddress,
    tlsCertFile: flags.tlsCertFile,
    tlsPrivateKeyFile: flags.tlsPrivateKeyFile,
    certDir: flags.certDir,
    insecurePort: flags.insecurePort === 0 ? null : flags.insecurePort,
    insecureBindAddress: flags.insecureBindAddress,
    requestTimeoutMs: flags.requestTimeoutMs,
    watchCache: flags.watchCache,
    minRequestTimeoutSeconds: flags.minRequestTimeoutSeconds,
    etcdCompactionIntervalMs: flags.etcdCompactionIntervalMs,
    consistentListFromCache: flags.featureGates['ConsistentListFromCache'] ?? true,
    logger,
  });
  logger.info(`Serving securely on ${flags.bindAddress}:${server.securePort}`);
  if (server.insecurePort !== undefined) logger.info(`Serving insecurely on ${flags.insecureBindAddress}:${server.insecurePort}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`Received ${signal}, shutting down`);
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('shutdown failed', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

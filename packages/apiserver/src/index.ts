// @kapi/apiserver — the HTTP layer, flags and the composition root.

export { startApiServer, type ApiServerOptions, type RunningServer } from './main.js';
export { parseFlags, usage, FlagError, type ServerFlags } from './flags.js';
export { parseGoDuration, formatGoDuration } from './duration.js';
export { createRequestHandler, type RequestHandler, type RequestHandlerOptions } from './server.js';
export { createApiMetrics, REQUEST_DURATION_BUCKETS, type ApiMetrics, type RequestLabels } from './metrics.js';
export { boundedCheck, pingCheck, type HealthCheck, type HealthChecks } from './health.js';
export { createLogger, silentLogger, type Logger } from './logger.js';
export { versionInfo, GIT_VERSION, type VersionInfo } from './version.js';
export { loadServingCertificate, type ServingCertificate } from './certs.js';

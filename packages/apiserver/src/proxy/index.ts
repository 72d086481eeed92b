/** Reaching backends behind Services: resolution, TLS and the front-proxy identity headers (aggregated APIs, webhooks). */
export { backendUrl, clusterIpServiceResolver, endpointServiceResolver, endpointUrls, serviceServerName, type BackendAddress, type ObjectLookup, type ServiceReference, type ServiceResolver } from './service-resolver.js';
export { createBackendAgents, decodeCaBundle, type BackendAgents, type BackendTls, type ClientCertificate } from './backend-tls.js';
export { authProxyHeaders, escapeExtraKey, isAuthProxyHeader } from './auth-proxy-headers.js';
export { startServiceResolver, type RunningServiceResolver } from './service-informers.js';

/**
 * The HTTP request handler: request info → filters (timeout, metrics, panic recovery) →
 * negotiation → the verb or non-resource handler. Knows the registry only through its
 * `resources`/`lookup` and the schema `definitions`; no concrete backends here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, type Tracer } from '@opentelemetry/api';
import type { JSONSchemaProps, StatusError } from '@kapi/machinery';
import { badRequest, isStatusError, yieldBeforeLongStep } from '@kapi/machinery';
import { performance } from 'node:perf_hooks';
import type { Registry } from '@kapi/registry';
import { createApiSurface, type ApiSurface } from './api-surface.js';
import { serveDiscoveryDocument, serveDiscoveryRoot } from './discovery/handler.js';
import { corsFilter } from './filters/cors.js';
import { resolveResourceRoute } from './handlers/resource-routes.js';
import type { HandlerSettings, RequestScope } from './handlers/scope.js';
import { serveHealth, type HealthChecks } from './health.js';
import { methodNotRegistered, PAGE_NOT_FOUND_TEXT, pageNotFound, PageNotFound, pathNotFound, writeRequestTimeout } from './http/generic-errors.js';
import { abandonRequestBody, closeConnectionAfterResponse } from './http/http2.js';
import { outputForErrors } from './http/negotiation.js';
import { parseQuery } from './http/query.js';
import { requestDeadlineMs } from './http/request-deadline.js';
import { negotiateResourceOutput } from './http/resource-output.js';
import { requestInfoFor, type RequestInfo } from './http/request-info.js';
import { toStatusError, writeError, writeObject, writeText } from './http/respond.js';
import { SHUTTING_DOWN_MESSAGE, type ServerLifecycle } from './filters/lifecycle.js';
import { requestKind, writePlainError, writeTooManyRequests, type InflightLimiter } from './filters/max-inflight.js';
import { requestSpan } from './filters/tracing.js';
import { goDuration, type Logger } from './logger.js';
import type { ApiMetrics } from './metrics.js';
import { goBucketBounds } from './metrics.js';
import { routeLabels, unroutedLabels, type LabelSource } from './http/request-labels.js';
import { serveOpenApiV2, serveOpenApiV3 } from './openapi/handler.js';
import { deprecationOf } from './deprecation.js';
import { versionInfo } from './version.js';
import { ImpersonationError } from './auth/impersonation.js';
import { authorizeRequest, type RequestAuthorization } from './auth/request-auth.js';
import { AuditRejected, auditIdOf, type AuditRecord, type Auditor } from './audit/auditor.js';
import type { UserInfo } from './auth/user.js';
import type { Aggregator } from './aggregator/index.js';
import { upgradeConnectionOf } from './http/upgrade.js';
import { isPprofPath } from './profiling/pprof-handler.js';
import { isDebugFlagsPath } from './profiling/debug-flags.js';

export interface RequestHandlerOptions {
  readonly registry: Pick<Registry, 'resources' | 'lookup' | 'subscribe'>;
  /** Named schemas for OpenAPI components (the registry's `definitions`). */
  readonly definitions: Readonly<Record<string, JSONSchemaProps>>;
  readonly metrics: ApiMetrics;
  readonly health: HealthChecks;
  /** Deadline for non-long-running requests (kube's --request-timeout); 504 after it. */
  readonly requestTimeoutMs: number;
  /** --min-request-timeout in seconds (default 1800): the default watch lifetime is random in [min, 2×min). */
  readonly minRequestTimeoutSeconds?: number;
  /** Aborted when the server begins shutting down: open watches end at once. */
  readonly shutdown?: AbortSignal;
  readonly logger: Logger;
  /** --max-requests-inflight / --max-mutating-requests-inflight seats; none = no limits. */
  readonly inflightLimiter?: InflightLimiter;
  /** Shutdown phases, the in-flight wait group and watch termination (see filters/lifecycle.ts). */
  readonly lifecycle?: ServerLifecycle;
  /** Tracer for request spans; default the global provider's, and none at all while no SDK is started (tracing.ts). */
  readonly tracer?: Tracer;
  /** Verbosity from which one line per request is logged (kube's httplog logs at 3). */
  readonly requestLogVerbosity?: number;
  /**
   * Authentication, impersonation and authorization of HTTPS requests (kube's filters). Plain
   * HTTP (--insecure-port, loopback by default) is not authenticated, as kube's old insecure
   * port. None: every request is allowed.
   */
  readonly auth?: RequestAuthorization;
  /** Audit records (--audit-policy-file with a backend); none = no events (the Audit-Id header is sent regardless). */
  readonly auditor?: Auditor;
  /** kube's AllowUnsafeMalformedObjectDeletion feature gate (default false): see HandlerSettings.unsafeDeletion. */
  readonly allowUnsafeMalformedObjectDeletion?: boolean;
  /** The aggregation layer: remote APIServices' group-versions are proxied and listed in discovery. */
  readonly aggregator?: Aggregator;
  /** More non-resource routes by first path segment (service account issuer discovery). */
  readonly extraRoutes?: Readonly<Record<string, NonResourceRoute>>;
  /** --cors-allowed-origins (checked patterns); none = no CORS headers. */
  readonly corsAllowedOrigins?: readonly string[];
  /** `host:port` from --external-hostname, for `/api`'s server address; none = the address the client reached. */
  readonly externalAddress?: () => string;
  /** kube's --profiling: serves /debug/pprof and every path under /debug/pprof/ (any method); none = 404 there. */
  readonly pprof?: NonResourceRoute;
  /** kube's --profiling too: /debug/flags and every path under it (any method); none = 404 there. */
  readonly debugFlags?: NonResourceRoute;
}

/** Health endpoints: never limited, never refused while shutting down (probes must see the truth). */
const PROBE_PATHS = new Set(['healthz', 'livez', 'readyz']);

/** Counts the bytes of a response body (for apiserver_response_sizes). */
function countBody(res: ServerResponse): () => number {
  let bytes = 0;
  const add = (chunk: unknown) => {
    if (typeof chunk === 'string') bytes += Buffer.byteLength(chunk);
    else if (chunk instanceof Uint8Array) bytes += chunk.length;
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  (res as unknown as { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
    add(args[0]);
    return write(...args);
  };
  (res as unknown as { end: (...args: unknown[]) => ServerResponse }).end = (...args: unknown[]) => {
    if (typeof args[0] !== 'function') add(args[0]);
    return end(...args);
  };
  return () => bytes;
}

/** Calls `onHeaders` once, just before the response headers are written. */
/** Calls `onHeaders` once, right after the response headers are written. */
function afterHeaders(res: ServerResponse, onHeaders: () => void): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  (res as unknown as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
    const out = writeHead(...args);
    onHeaders();
    return out;
  };
}

function beforeHeaders(res: ServerResponse, onHeaders: () => void): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  (res as unknown as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
    onHeaders();
    return writeHead(...args);
  };
}

export interface RequestHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  readonly surface: ApiSurface;
}

interface ParsedUrl {
  readonly path: string;
  readonly segments: string[];
  readonly query: URLSearchParams;
}

/**
 * Splits the request target into decoded path segments and the query (parsed as Go does, see
 * parseQuery). Throws 400 for malformed percent-encoding in the path, 404 for an API path
 * with an empty or `%2F`-holding segment.
 */
function parseUrl(url: string): ParsedUrl {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = parseQuery(q < 0 ? '' : url.slice(q + 1));
  const segments: string[] = [];
  const raws = path.split('/');
  // kube's API routes match the path as sent: an empty segment inside it (`/api/v1//namespaces`)
  // or a `%2F` inside a segment matches no route (404 Status), where a plain split would serve it.
  const api = raws[1] === 'api' || raws[1] === 'apis';
  for (const [i, raw] of raws.entries()) {
    if (raw === '') {
      if (api && i > 0 && i < raws.length - 1) throw pathNotFound();
      continue;
    }
    let segment: string;
    try {
      segment = raw.includes('%') ? decodeURIComponent(raw) : raw;
    } catch {
      throw badRequest(`invalid URL escape in path ${JSON.stringify(path)}`);
    }
    if (api && segment.includes('/')) throw pathNotFound();
    segments.push(segment);
  }
  return { path, segments, query };
}

/** Per-request bookkeeping shared by the filters and the handlers. */
interface RequestState {
  readonly warnings: string[];
  /** A route matched (only matched requests are counted in metrics, as in kube). */
  matched: boolean;
  /** The requested version is deprecated (apiserver_requested_deprecated_apis). */
  deprecated?: { removedRelease: string };
  /** For a watch: aborted when the shutdown ends it. */
  watchSignal?: AbortSignal;
  /** Who the request acts as (authenticated and impersonated), when authentication runs. */
  user?: UserInfo;
  /** Adds an audit annotation to the request's event (admission's). */
  readonly annotate: (key: string, value: string) => void;
}

export type NonResourceRoute = (req: IncomingMessage, res: ServerResponse, url: ParsedUrl) => Promise<void> | void;

/** Builds the request handler. Never throws from the returned function; every failure becomes a Status response. */
export function createRequestHandler(options: RequestHandlerOptions): RequestHandler {
  const { registry, metrics, logger, lifecycle, inflightLimiter } = options;
  const requestLogVerbosity = options.requestLogVerbosity ?? 3;
  const settings: HandlerSettings = {
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
    shutdown: options.shutdown ?? new AbortController().signal,
    ...(options.allowUnsafeMalformedObjectDeletion === true ? { unsafeDeletion: options.auth !== undefined ? { authorizer: options.auth.authorizer } : {} } : {}),
  };
  const { aggregator } = options;
  const surface = createApiSurface(() => registry.resources, () => options.definitions, aggregator?.discovery, { issuerDiscovery: options.extraRoutes?.['.well-known'] !== undefined });
  registry.subscribe(() => surface.invalidate());
  aggregator?.discovery.onChange(() => surface.invalidateAggregated());
  const remoteGroups = aggregator?.discovery;
  const cors = corsFilter(options.corsAllowedOrigins ?? []);

  const health = (endpoint: 'healthz' | 'livez' | 'readyz'): NonResourceRoute => (_req, res, url) =>
    serveHealth(res, endpoint, options.health[endpoint], url.segments.slice(1).join('/'), url.query, (failed) =>
      logger.info(`${endpoint} check failed`, { failed }),
    );

  /** Non-resource routes by first path segment (label for metrics = `/<segment>`). */
  const routes: Record<string, NonResourceRoute> = {
    ...options.extraRoutes,
    healthz: health('healthz'),
    livez: health('livez'),
    readyz: health('readyz'),
    debug: (req, res, url) => (isPprofPath(url.path) ? options.pprof!(req, res, url) : options.debugFlags!(req, res, url)),
    version: (req, res, url) => {
      if (url.segments.length !== 1) throw pathNotFound();
      // A go-restful route in kube: GET only.
      if (req.method === 'HEAD') throw methodNotRegistered();
      writeObject(res, 200, versionInfo(), 'json');
    },
    metrics: async (_req, res, url) => {
      if (url.segments.length !== 1) throw pathNotFound();
      writeText(res, 200, goBucketBounds(await metrics.registry.metrics()), metrics.registry.contentType);
    },
    openapi: (req, res, url) =>
      url.segments[1] === 'v2' ? serveOpenApiV2(req, res, surface) : serveOpenApiV3(req, res, surface, url.segments.slice(2).join('/'), url.query),
    api: (req, res, url) => {
      if (url.segments.length === 1) serveDiscoveryRoot(req, res, surface, true, undefined, options.externalAddress?.());
      else serveDiscoveryDocument(req, res, surface, true, url.segments.slice(1));
    },
    apis: (req, res, url) => {
      if (url.segments.length === 1) serveDiscoveryRoot(req, res, surface, false, remoteGroups);
      else serveDiscoveryDocument(req, res, surface, false, url.segments.slice(1), remoteGroups);
    },
  };

  /** Whether a non-resource route serves `url` (the OpenAPI tree only as /openapi/v2 and under /openapi/v3). */
  const nonResourceRouteExists = (url: ParsedUrl): boolean => {
    const first = url.segments[0] ?? '';
    if (first === 'debug') return isPprofPath(url.path) ? options.pprof !== undefined : options.debugFlags !== undefined && isDebugFlagsPath(url.path);
    return Object.hasOwn(routes, first) && (first !== 'openapi' || url.segments[1] === 'v3' || (url.segments[1] === 'v2' && url.segments.length === 2));
  };

  /** Whether a route serves the request: a served resource with that subresource, path shape and verb, or a non-resource route. */
  const routeExists = (info: RequestInfo, url: ParsedUrl): boolean => {
    if (!info.isResourceRequest) return nonResourceRouteExists(url);
    const resource = registry.lookup(info.group, info.version, info.resource);
    if (resource === undefined) return false;
    try {
      resolveResourceRoute(info, resource);
      return true;
    } catch {
      return false;
    }
  };

  async function serveResource(req: IncomingMessage, res: ServerResponse, info: RequestInfo & { isResourceRequest: true }, url: ParsedUrl, state: RequestState): Promise<void> {
    const resource = registry.lookup(info.group, info.version, info.resource);
    if (resource === undefined) throw info.group !== '' && surface.group(info.group) === undefined ? pageNotFound() : pathNotFound();
    // An unknown subresource or path shape is 404 (405 for a method) from no route: not counted, no warning.
    const route = resolveResourceRoute(info, resource);
    // kube's resource routes register GET, not HEAD (a HEAD watch would hold the connection): 405 from no route.
    if (req.method === 'HEAD') throw methodNotRegistered();
    state.matched = true;
    const servedVersion = resource.definition.versions.find((v) => v.name === resource.version);
    const deprecation = servedVersion === undefined ? undefined : deprecationOf(resource.definition, servedVersion);
    if (deprecation !== undefined) {
      // kube adds the warning before the handler runs (every response, errors included).
      state.deprecated = { removedRelease: deprecation.removedRelease };
      state.warnings.push(deprecation.warning);
    }
    const output = negotiateResourceOutput(req.headers.accept, url.query, resource.definition, info.version);
    const userAgent = req.headers['user-agent'];
    const scope: RequestScope = {
      req,
      res,
      info,
      query: url.query,
      output,
      resource,
      context: { namespace: route.namespace, ...(userAgent !== undefined ? { userAgent } : {}), ...(state.user !== undefined ? { user: state.user } : {}), annotate: state.annotate },
      warnings: state.warnings,
      groupResource: { group: resource.definition.group, resource: resource.definition.plural },
      settings: state.watchSignal !== undefined ? { ...settings, shutdown: AbortSignal.any([settings.shutdown, state.watchSignal]) } : settings,
      startLongRunning: () => metrics.startLongRunning(routeLabels(labelSource(req, info, url))),
      ...(info.verb === 'watch' ? { watchEventSent: metrics.watchEvents(info.group, info.version, info.resource) } : {}),
    };
    await route.handler(scope);
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, url: ParsedUrl, info: RequestInfo, state: RequestState): Promise<void> {
    // kube-aggregator is in front of everything: a group-version a remote APIService claims goes to its backend.
    const remote = aggregator !== undefined && url.segments[0] === 'apis' && url.segments.length >= 3 ? aggregator.target(url.segments[1]!, url.segments[2]!) : undefined;
    if (remote !== undefined) return aggregator!.proxy(req, res, remote, state.user, !info.isResourceRequest && url.segments.length === 3);
    if (info.isResourceRequest) return serveResource(req, res, info, url, state);
    if (!nonResourceRouteExists(url)) throw pageNotFound();
    const route = routes[url.segments[0]!]!;
    state.matched = true;
    // kube's non-REST mux serves the profiling and debug-flags handlers for any method.
    if (req.method !== 'GET' && req.method !== 'HEAD' && url.segments[0] !== 'debug') throw methodNotRegistered();
    await route(req, res, url);
  }

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const start = process.hrtime.bigint();
    const receivedAt = performance.now();
    const method = req.method ?? 'GET';
    // kube's WithAuditInit: every response names its audit ID (the client's Audit-ID, or a new one).
    const auditID = auditIdOf(req);
    res.setHeader('Audit-Id', auditID);
    let audit: AuditRecord | undefined;
    const beginAudit = (user: UserInfo | undefined): void => {
      if (options.auditor === undefined || info === undefined || url === undefined) return;
      const record = options.auditor.begin({ req, res, auditID, info, query: url.query, receivedAt, ...(user !== undefined ? { user } : {}) });
      if (record === 'rejected') throw new AuditRejected();
      audit = record;
    };
    const state: RequestState = { warnings: [], matched: false, annotate: (key, value) => audit?.annotate(key, value) };
    let info: RequestInfo | undefined;
    let url: ParsedUrl | undefined;
    let parseError: unknown;
    try {
      url = parseUrl(req.url ?? '/');
      info = requestInfoFor(method, url.path, url.segments, url.query.get('watch'));
    } catch (err) {
      parseError = err;
    }
    // kube's BasicLongRunningRequestCheck: /debug/pprof/ requests (a CPU profile takes its `seconds`) have no deadline and take no seat.
    const profiling = info?.isResourceRequest === false && url !== undefined && url.path.startsWith('/debug/pprof/');
    // Watches, and upgraded connections (exec-style streams, tunnelled to aggregated APIs too): no deadline, no seat once answered.
    const longRunning = profiling || (info?.isResourceRequest === true && (info.verb === 'watch' || upgradeConnectionOf(req) !== undefined));
    const probe = info?.isResourceRequest === false && PROBE_PATHS.has(url?.segments[0] ?? '');
    // kube's WithRequestDeadline: --request-timeout, or a shorter `timeout` parameter (400 when malformed).
    let timeoutMs = options.requestTimeoutMs;
    if (!longRunning && url !== undefined && parseError === undefined) {
      try {
        timeoutMs = requestDeadlineMs(url.query, options.requestTimeoutMs);
      } catch (err) {
        parseError = err;
      }
    }
    /** Labels for a request refused before routing: its route's when one would serve it, else none path-derived. */
    const labels = () => {
      if (info === undefined || url === undefined) return undefined;
      const source = labelSource(req, info, url);
      return routeExists(info, url) ? routeLabels(source) : unroutedLabels(source);
    };

    // Shutdown: after the delay, responses close their connections; with
    // --shutdown-send-retry-after, new requests are refused (kube's WithRetryAfter).
    if (lifecycle?.notAcceptingNewRequests) {
      closeConnectionAfterResponse(res);
      if (lifecycle.rejectWithRetryAfter && !probe) {
        writePlainError(res, 429, SHUTTING_DOWN_MESSAGE, { 'Retry-After': '5' });
        if (!req.complete) req.resume();
        return;
      }
    }

    // kube's CORS filter sits just outside authentication: an allowed Origin's preflight needs no credentials.
    if (cors !== undefined && parseError === undefined && cors(req, res)) {
      logRequest(req, method, res.statusCode, start);
      if (!req.complete) req.resume();
      return;
    }

    // kube's authentication, impersonation and authorization filters: a refused request takes no seat.
    const authenticating = options.auth !== undefined && parseError === undefined && info !== undefined && url !== undefined && (req.socket as { encrypted?: boolean }).encrypted === true;
    if (authenticating && options.auth !== undefined && info !== undefined && url !== undefined) {
      const parsedUrl = url;
      const parsedInfo = info;
      let authFailed = false;
      try {
        state.user = authorizeRequest(options.auth, req, info, url.query, {
          authenticated: (user) => beginAudit(user),
          authenticationFailed: () => {
            authFailed = true;
          },
          impersonated: (user) => audit?.impersonated(user),
          authorized: (allowed, reason) => audit?.authorized(allowed, reason),
        });
      } catch (err) {
        if (err instanceof ImpersonationError || err instanceof AuditRejected) {
          // kube's responsewriters.InternalError: plain text, the URI quoted.
          writePlainError(res, 500, `Internal Server Error: ${JSON.stringify(req.url ?? '/')}: ${err.message}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
        } else {
          // Authentication and authorization messages quote at most a header's worth: written at once.
          void writeError(res, toStatusError(err), outputForErrors(req.headers.accept, info.isResourceRequest), state.warnings);
        }
        if (authFailed) options.auditor?.failedAuthentication({ req, res, auditID, info: parsedInfo, query: parsedUrl.query, receivedAt });
        else audit?.complete(res.statusCode);
        logRequest(req, method, res.statusCode, start);
        if (!req.complete) req.resume();
        return;
      }
    }

    if (!authenticating && parseError === undefined) {
      try {
        beginAudit(undefined);
      } catch {
        writePlainError(res, 500, `Internal Server Error: ${JSON.stringify(req.url ?? '/')}: failed to store audit event`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
        logRequest(req, method, 500, start);
        if (!req.complete) req.resume();
        return;
      }
    }

    // Max in-flight: a seat per request; a watch holds one only until its headers go out. A
    // request refused up front (malformed path or timeout) takes none.
    const kind = requestKind(method);
    let releaseSeat: (() => void) | undefined;
    let endInflight: (() => void) | undefined;
    if (!probe && parseError === undefined) {
      if (inflightLimiter !== undefined && !profiling) {
        releaseSeat = inflightLimiter.tryAcquire(kind);
        if (releaseSeat === undefined) {
          writeTooManyRequests(res);
          const l = labels();
          if (l !== undefined) {
            metrics.recordDropped(l);
            metrics.recordTermination(l, 429);
          }
          audit?.complete(429);
          logRequest(req, method, 429, start);
          if (!req.complete) req.resume();
          return;
        }
      }
      if (!profiling) endInflight = metrics.startInflight(kind);
      if (longRunning) {
        if (audit !== undefined) {
          const record = audit;
          afterHeaders(res, () => record.responseStarted(res.statusCode));
        }
        beforeHeaders(res, () => {
          releaseSeat?.();
          endInflight?.();
        });
      }
    }
    const untrack = longRunning ? undefined : lifecycle?.trackRequest();
    const watchRegistration = longRunning && !profiling ? lifecycle?.registerWatch() : undefined;
    if (watchRegistration !== undefined) state.watchSignal = watchRegistration.signal;
    const responseSize = method === 'GET' && !longRunning ? countBody(res) : undefined;
    const span = requestSpan(options.tracer, req, method, url?.path ?? req.url ?? '/', info);

    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    let unexpected: unknown;
    // A response that cannot be written (Node refused a header) must not end the process.
    const unwritable = (writeErr: unknown) => {
      logger.error(`${method} ${req.url}: could not write the error response`, writeErr);
      res.destroy();
    };
    /** Answers `err`; a promise while a long answer is being written in slices (writeError). */
    const fail = (err: unknown): Promise<void> | undefined => {
      const status: StatusError = toStatusError(err);
      if (!isStatusError(err) && err !== parseError) unexpected = err ?? new Error('unknown error');
      if (status.code >= 500 && status.reason === 'InternalError') logger.error(`${method} ${req.url}: unexpected error`, err);
      // The rest of an oversized body is not read: close the connection instead.
      if (status.code === 413 && !res.headersSent) abandonRequestBody(res);
      try {
        if (err instanceof AuditRejected) {
          unexpected = undefined;
          writePlainError(res, 500, `Internal Server Error: ${JSON.stringify(req.url ?? '/')}: ${err.message}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
          return undefined;
        }
        if (status instanceof PageNotFound) {
          writeText(res, 404, PAGE_NOT_FOUND_TEXT);
          return undefined;
        }
        return writeError(res, status, outputForErrors(req.headers.accept, info?.isResourceRequest === true), state.warnings)?.catch(unwritable);
      } catch (writeErr) {
        unwritable(writeErr);
        return undefined;
      }
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      // A client that went away (a probe's timeout) left nothing to answer: not a server error.
      // A short message (InternalError's): written at once, before the request is recorded.
      if (!res.headersSent && !res.destroyed) void fail(new Error('the handler finished without a response'));
      releaseSeat?.();
      endInflight?.();
      untrack?.();
      watchRegistration?.done();
      if (state.matched && info !== undefined && url !== undefined) {
        metrics.recordRequest(routeLabels(labelSource(req, info, url)), res.statusCode, start, {
          ...(responseSize !== undefined ? { responseSize: responseSize() } : {}),
          ...(state.deprecated !== undefined ? { deprecated: state.deprecated } : {}),
        });
      }
      audit?.complete(res.statusCode, {
        ...(unexpected !== undefined ? { panic: unexpected } : {}),
        ...(state.deprecated !== undefined ? { deprecated: state.deprecated } : {}),
      });
      span.end(res.statusCode);
      logRequest(req, method, res.statusCode, start);
      if (!req.complete) req.resume();
    };

    let work: Promise<void>;
    if (parseError !== undefined || info === undefined || url === undefined) {
      work = Promise.reject(parseError);
    } else {
      const parsedUrl = url;
      const parsedInfo = info;
      const run = () => context.with(span.context, () => {
        try {
          return dispatch(req, res, parsedUrl, parsedInfo, state);
        } catch (err) {
          return Promise.reject(err);
        }
      });
      // A blocking audit backend is delivering the RequestReceived event: the request waits for
      // it, and fails when a blocking-strict one could not deliver it (kube's WithAudit).
      const received = audit?.received;
      const start = (): Promise<void> => (received === undefined ? run() : received.then((ok) => {
        if (!ok) throw new AuditRejected();
        return run();
      }));
      // Requests that arrive together are started in slices: once this turn of the loop has run
      // a slice of request work, the request starts on a later turn, so that the loop reads
      // other connections (a health probe) in between instead of starting every request that
      // arrived in one go. Health probes and long-running requests start at once; outside a
      // busy turn this is a clock read.
      const later = probe || longRunning ? undefined : yieldBeforeLongStep();
      work = later === undefined ? start() : later.then(start);
    }
    if (!longRunning && timeoutMs > 0) {
      timer = setTimeout(() => {
        writeRequestTimeout(res);
        const l = labels();
        if (l !== undefined && state.matched) metrics.recordTermination(l, 504);
        finish();
      }, timeoutMs);
    }
    work.then(finish, (err: unknown) => {
      const writing = fail(err);
      if (writing === undefined) finish();
      else void writing.then(finish);
    });
  };

  /** kube's httplog line (`"HTTP" verb=... URI=... latency=... userAgent=... srcIP=... resp=...`) at requestLogVerbosity. */
  function logRequest(req: IncomingMessage, method: string, code: number, start: bigint): void {
    if (logger.enabled !== undefined ? !logger.enabled(requestLogVerbosity) : false) return;
    const socket = req.socket;
    logger.debug(requestLogVerbosity, 'HTTP', {
      verb: method,
      URI: req.url ?? '/',
      latency: goDuration(process.hrtime.bigint() - start),
      userAgent: req.headers['user-agent'] ?? '',
      srcIP: socket.remoteAddress !== undefined ? `${socket.remoteAddress}:${socket.remotePort}` : '',
      resp: code,
    });
  }
  return Object.assign(handler, { surface });
}

function labelSource(req: IncomingMessage, info: RequestInfo, url: ParsedUrl): LabelSource {
  return { method: req.method ?? 'GET', contentType: req.headers['content-type'], info, segments: url.segments, query: url.query };
}

/**
 * The request span (kube's WithTracing filter: an otelhttp server span, public-endpoint mode).
 * Incoming trace context is not trusted: a `traceparent` header never becomes the parent (the
 * span is always the root of a new trace); it is only recorded as a link, as otelhttp's
 * WithPublicEndpoint does. The span is made active while the request is handled, so storage
 * calls (etcd spans) become its children.
 */
import type { IncomingMessage } from 'node:http';
import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context, trace, type Context, type Link, type Span, type Tracer } from '@opentelemetry/api';
import type { RequestInfo } from '../http/request-info.js';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C `traceparent` of a request as a link (never a parent), when well-formed. */
export function incomingLink(header: string | string[] | undefined): Link | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim());
  if (match === null || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  return {
    context: { traceId: match[2]!, spanId: match[3]!, traceFlags: parseInt(match[4]!, 16) & TraceFlags.SAMPLED, isRemote: true },
  };
}

/**
 * kube names the span by the request's route: `GET /api/v1/namespaces/{:namespace}/configmaps/{:name}`
 * for resource requests, the method alone for anything else.
 */
export function requestSpanName(method: string, info: RequestInfo | undefined): string {
  if (info === undefined || !info.isResourceRequest) return method;
  const root = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const ns = info.namespace !== '' && info.resource !== 'namespaces' ? '/namespaces/{:namespace}' : '';
  const name = info.name !== '' ? '/{:name}' : '';
  const sub = info.subresource !== '' ? `/${info.subresource}` : '';
  return `${method} ${root}${ns}/${info.resource}${name}${sub}`;
}

export interface RequestSpan {
  readonly span: Span;
  /** The context to run the handler in (the span active). */
  readonly context: Context;
  end(statusCode: number): void;
}

/** Global tracer providers registered by startTracing (tracing.ts) and not shut down. */
let globalProviders = 0;

/**
 * Told by startTracing (tracing.ts) when it registers the global tracer provider (`true`) and
 * when that provider is shut down (`false`). Without one, the global tracer makes no spans.
 */
export function noteGlobalTracing(started: boolean): void {
  globalProviders += started ? 1 : -1;
}

/** The span of a request that nothing traces: nothing recorded, the handler run in the root context. */
const UNTRACED: RequestSpan = { span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), context: ROOT_CONTEXT, end() {} };

/**
 * The server span of a request (startRequestSpan) on `tracer`, or on the global tracer when
 * none is given. Without a tracer and without a global provider (no --tracing-config-file)
 * every span would be a no-op: none is started, and the request pays no attributes, span name
 * or context for it.
 */
export function requestSpan(tracer: Tracer | undefined, req: IncomingMessage, method: string, path: string, info: RequestInfo | undefined): RequestSpan {
  if (tracer === undefined && globalProviders === 0) return UNTRACED;
  return startRequestSpan(tracer ?? trace.getTracer('kapi-apiserver'), req, method, path, info);
}

/** Starts the server span of a request, as a root (incoming context is not trusted). */
export function startRequestSpan(tracer: Tracer, req: IncomingMessage, method: string, path: string, info: RequestInfo | undefined): RequestSpan {
  const link = incomingLink(req.headers['traceparent']);
  const userAgent = req.headers['user-agent'];
  const span = tracer.startSpan(
    requestSpanName(method, info),
    {
      kind: SpanKind.SERVER,
      root: true,
      attributes: {
        'http.request.method': method,
        'url.path': path,
        ...(userAgent !== undefined ? { 'user_agent.original': userAgent } : {}),
        ...(req.socket.remoteAddress !== undefined ? { 'client.address': req.socket.remoteAddress } : {}),
      },
      ...(link !== undefined ? { links: [link] } : {}),
    },
    ROOT_CONTEXT,
  );
  const ctx = trace.setSpan(context.active(), span);
  let ended = false;
  return {
    span,
    context: ctx,
    end(statusCode) {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', statusCode);
      if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

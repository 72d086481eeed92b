/**
 * `--tracing-config-file`: kube's TracingConfiguration (apiserver.config.k8s.io v1alpha1,
 * v1beta1 or v1; `endpoint` default `localhost:4317`, OTLP over gRPC without TLS;
 * `samplingRatePerMillion` unset = never sample new traces) and the OpenTelemetry SDK that the
 * entry point (bin.ts) starts from it. Library code only uses `@opentelemetry/api`.
 */
import { readFileSync } from 'node:fs';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { parse as parseYaml } from 'yaml';
import { noteGlobalTracing } from './filters/tracing.js';

export const TRACING_API_VERSIONS = ['apiserver.config.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1'];

export interface TracingConfiguration {
  /** host:port of the OTLP gRPC collector; default `localhost:4317`. */
  readonly endpoint: string;
  /** Spans sampled per million new traces; 0 = never (kube's default when unset). */
  readonly samplingRatePerMillion: number;
}

/** Thrown for a configuration file kube would reject; the message is kube-like. */
export class TracingConfigError extends Error {
  override readonly name = 'TracingConfigError';
}

/** Parses and validates a TracingConfiguration document (YAML or JSON). */
export function parseTracingConfiguration(text: string, file = 'tracing configuration'): TracingConfiguration {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new TracingConfigError(`failed to read tracing configuration from "${file}": ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new TracingConfigError(`failed to read tracing configuration from "${file}": not an object`);
  const obj = doc as Record<string, unknown>;
  if (obj['kind'] !== 'TracingConfiguration' || !TRACING_API_VERSIONS.includes(String(obj['apiVersion']))) {
    throw new TracingConfigError(`failed to read tracing configuration from "${file}": no kind "${String(obj['kind'])}" is registered for version "${String(obj['apiVersion'])}"`);
  }
  const errors: string[] = [];
  const endpoint = obj['endpoint'] === undefined || obj['endpoint'] === null ? 'localhost:4317' : String(obj['endpoint']);
  const rate = obj['samplingRatePerMillion'];
  let samplingRatePerMillion = 0;
  if (rate !== undefined && rate !== null) {
    if (typeof rate !== 'number' || !Number.isInteger(rate)) errors.push(`samplingRatePerMillion: Invalid value: ${JSON.stringify(rate)}: must be an integer`);
    else if (rate < 0) errors.push(`samplingRatePerMillion: Invalid value: ${rate}: sampling rate must be positive`);
    else if (rate > 1_000_000) errors.push(`samplingRatePerMillion: Invalid value: ${rate}: sampling rate per million must be less than or equal to one million`);
    else samplingRatePerMillion = rate;
  }
  if (!/^[^\s/]+:\d+$/.test(endpoint) && !/^[a-z]+:\/\//.test(endpoint)) errors.push(`endpoint: Invalid value: "${endpoint}": must be host:port or a URL`);
  if (errors.length > 0) throw new TracingConfigError(`invalid tracing configuration "${file}": ${errors.join(', ')}`);
  return { endpoint, samplingRatePerMillion };
}

export function readTracingConfiguration(file: string): TracingConfiguration {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TracingConfigError(`failed to read tracing configuration from "${file}": ${(err as Error).message}`);
  }
  return parseTracingConfiguration(text, file);
}

export interface TracingSdk {
  /** Flushes pending spans and stops the exporter. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  /** service.instance.id (kube: the apiserver's ID). */
  readonly instanceId: string;
  /** Instead of the OTLP exporter (tests): a processor of its own, e.g. SimpleSpanProcessor(InMemorySpanExporter). */
  readonly spanProcessor?: SpanProcessor;
  readonly exporter?: SpanExporter;
}

/**
 * Registers the global tracer provider and the AsyncLocalStorage context manager. The sampler
 * is ParentBased(TraceIdRatio(rate / 1e6)); since the server never takes a parent from a
 * request, the ratio decides for every request.
 */
export function startTracing(config: TracingConfiguration, options: StartTracingOptions): TracingSdk {
  const url = /^[a-z]+:\/\//.test(config.endpoint) ? config.endpoint : `http://${config.endpoint}`;
  const processor = options.spanProcessor ?? new BatchSpanProcessor({ exporter: options.exporter ?? new OTLPTraceExporter({ url }) });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'apiserver', 'service.instance.id': options.instanceId }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.samplingRatePerMillion / 1_000_000) }),
    spanProcessors: [processor],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  noteGlobalTracing(true);
  return {
    async shutdown() {
      noteGlobalTracing(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

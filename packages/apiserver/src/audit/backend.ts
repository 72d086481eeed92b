/**
 * The audit backend contract and the wrappers kube composes its backends from: a backend per
 * plugin (the log, the webhook), wrapped by its --audit-<plugin>-mode (blocking-strict: its
 * failures fail the request; blocking: failures ignored; batch: a buffer, see
 * buffered-backend.ts) and by --audit-<plugin>-truncate-* (outermost), then joined in a union.
 */
import { levelAtLeast, type Level } from './policy.js';

/** One audit.k8s.io/v1 Event as backends take it; shared by every backend, so read-only. */
export interface AuditEvent {
  readonly object: Readonly<Record<string, unknown>>;
  readonly level: Level;
  /** The event as one JSON line (encoded on first use, then kept). */
  json(): string;
}

export function auditEvent(object: Record<string, unknown>, level: Level): AuditEvent {
  let encoded: string | undefined;
  return { object, level, json: () => (encoded ??= JSON.stringify(object)) };
}

/** A result a backend may give before (boolean) or after (a promise) its delivery; promises never reject. */
export type Processed = boolean | Promise<boolean>;

export interface AuditBackend {
  /**
   * Takes events in order. True when they were recorded or accepted for recording, false when
   * some were lost (each loss already counted in apiserver_audit_error_total). A promise when the
   * backend waits for its delivery (a blocking webhook).
   */
  processEvents(events: readonly AuditEvent[]): Processed;
  /** Delivers what it holds (as far as it still can) and releases its resources. */
  close(): Promise<void>;
}

/** kube's audit.HandlePluginError: count the lost events under the plugin's name and log why. */
export type PluginErrorHandler = (plugin: string, count: number, err: unknown) => void;

/** True when every result is; synchronous when every result is. */
export function allProcessed(results: readonly Processed[]): Processed {
  if (results.every((r) => typeof r === 'boolean')) return results.every((r) => r === true);
  return Promise.all(results.map((r) => Promise.resolve(r))).then((values) => values.every((v) => v));
}

/** kube's audit.Union: every backend gets every event; the union succeeds when all do. */
export function unionBackends(backends: readonly AuditBackend[]): AuditBackend {
  if (backends.length === 1) return backends[0]!;
  return {
    processEvents: (events) => allProcessed(backends.map((b) => b.processEvents(events))),
    close: async () => {
      await Promise.all(backends.map((b) => b.close()));
    },
  };
}

/** --audit-<plugin>-mode=blocking: the backend is waited for, but its failures do not fail requests. */
export function ignoringErrors(backend: AuditBackend): AuditBackend {
  return {
    processEvents(events) {
      const result = backend.processEvents(events);
      return typeof result === 'boolean' ? true : result.then(() => true);
    },
    close: () => backend.close(),
  };
}

export interface TruncateLimits {
  /** --audit-<plugin>-truncate-max-event-size, bytes of JSON. */
  readonly maxEventBytes: number;
  /** --audit-<plugin>-truncate-max-batch-size: a larger set of events is handed on in parts. */
  readonly maxBatchBytes: number;
}

const TRUNCATED_ANNOTATION = 'audit.k8s.io/truncated';

/**
 * --audit-<plugin>-truncate-enabled (kube's truncate plugin): an event over maxEventBytes at
 * level Request or above loses its request and response objects and is annotated
 * `audit.k8s.io/truncated: "true"`; one still too large is dropped (plugin `truncate`).
 * Events are handed on in runs of at most maxBatchBytes.
 */
export function truncatingBackend(delegate: AuditBackend, limits: TruncateLimits, onPluginError: PluginErrorHandler): AuditBackend {
  const size = (event: AuditEvent) => Buffer.byteLength(event.json());
  return {
    processEvents(events) {
      const results: Processed[] = [];
      let batch: AuditEvent[] = [];
      let batchBytes = 0;
      let dropped = 0;
      for (let event of events) {
        let bytes = size(event);
        if (bytes > limits.maxEventBytes && levelAtLeast(event.level, 'Request')) {
          event = truncated(event);
          bytes = size(event);
        }
        if (bytes > limits.maxEventBytes) {
          dropped++;
          continue;
        }
        if (batch.length > 0 && batchBytes + bytes > limits.maxBatchBytes) {
          results.push(delegate.processEvents(batch));
          batch = [];
          batchBytes = 0;
        }
        batch.push(event);
        batchBytes += bytes;
      }
      if (batch.length > 0) results.push(delegate.processEvents(batch));
      if (dropped > 0) onPluginError('truncate', dropped, new Error('event is too large even after truncating'));
      return allProcessed(results);
    },
    close: () => delegate.close(),
  };
}

function truncated(event: AuditEvent): AuditEvent {
  const { requestObject: _request, responseObject: _response, ...rest } = event.object;
  const annotations: Record<string, string> = { ...(rest['annotations'] as Record<string, string> | undefined) };
  // kube's LogAnnotation keeps a value already set.
  annotations[TRUNCATED_ANNOTATION] ??= 'true';
  return auditEvent({ ...rest, annotations: Object.fromEntries(Object.entries(annotations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }, event.level);
}

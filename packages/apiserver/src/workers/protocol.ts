/**
 * The messages between the primary and its workers (over the cluster IPC channel), and the
 * environment a worker is started with.
 */
import type { MetricsSnapshot } from './metrics.js';

/** The worker's index (0…N-1); a replacement takes the index of the worker it replaces. */
export const WORKER_SLOT_ENV = 'KAPI_WORKER_SLOT';
/** N, as the primary resolved it (--workers=0 is resolved once, in the primary). */
export const WORKER_COUNT_ENV = 'KAPI_WORKERS';
/** The log verbosity last set through PUT /debug/flags/v, for a worker started after it (replacing one that died). */
export const WORKER_VERBOSITY_ENV = 'KAPI_WORKER_VERBOSITY';

/** Worker → primary. */
export type WorkerMessage =
  /** The worker's server has started (it serves). */
  | { readonly kapi: 'ready' }
  /** A scrape of /metrics reached this worker: asks for the merged metrics of all. */
  | { readonly kapi: 'metrics-request'; readonly id: number }
  /** This worker's own metrics, for collection `id`. */
  | { readonly kapi: 'metrics-snapshot'; readonly id: number; readonly metrics: MetricsSnapshot }
  /** PUT /debug/flags/v reached this worker and set its log verbosity: the others are to follow. */
  | { readonly kapi: 'verbosity'; readonly level: number };

/** Primary → worker. */
export type PrimaryMessage =
  /** Stop gracefully (kube's shutdown sequence); repeated: no effect. */
  | { readonly kapi: 'shutdown' }
  /** Send this worker's metrics for collection `id`. */
  | { readonly kapi: 'metrics-collect'; readonly id: number }
  /** The answer to a metrics-request: the merged exposition text, or why there is none. */
  | { readonly kapi: 'metrics'; readonly id: number; readonly text?: string; readonly error?: string }
  /** Set the log verbosity (another worker was sent PUT /debug/flags/v). */
  | { readonly kapi: 'verbosity'; readonly level: number };

const WORKER_KINDS = new Set(['ready', 'metrics-request', 'metrics-snapshot', 'verbosity']);
const PRIMARY_KINDS = new Set(['shutdown', 'metrics-collect', 'metrics', 'verbosity']);

function kind(message: unknown): unknown {
  return typeof message === 'object' && message !== null ? (message as { kapi?: unknown }).kapi : undefined;
}

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  return WORKER_KINDS.has(kind(message) as string);
}

export function isPrimaryMessage(message: unknown): message is PrimaryMessage {
  return PRIMARY_KINDS.has(kind(message) as string);
}

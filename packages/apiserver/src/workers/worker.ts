/**
 * The worker side of a server of several workers: how a worker tells the primary it serves,
 * takes the primary's graceful stop, serves the merged /metrics, shares a log verbosity set
 * through it with the other workers, and its share of the server-wide limits.
 */
import cluster from 'node:cluster';
import { Registry } from 'prom-client';
import { isPrimaryMessage, WORKER_COUNT_ENV, WORKER_SLOT_ENV, WORKER_VERBOSITY_ENV, type WorkerMessage } from './protocol.js';
import type { MetricsSnapshot } from './metrics.js';

export interface WorkerContext {
  /** This worker's index, 0…count-1 (kept by its replacement). */
  readonly slot: number;
  readonly count: number;
  /** Tells the primary this worker serves. */
  ready(): void;
  /** Calls `stop` when the primary stops the server (SIGTERM/SIGINT to the primary); at once when it already has. */
  onShutdown(stop: () => void): void;
  /**
   * The registry /metrics prints: the merged metrics of every worker, asked of the primary
   * (rejects after `timeoutMs` without an answer). Also answers the primary's collections
   * with `local`'s metrics.
   */
  servedMetrics(local: Registry, timeoutMs?: number): Registry;
  /**
   * The server's log verbosity for this worker: `set` applies a level (the flags', or the one a
   * PUT /debug/flags/v set before this worker started, then every one the other workers are
   * sent); the returned function is called with a level set through this worker's PUT and
   * passes it to the others.
   */
  shareVerbosity(set: (level: number) => void): (level: number) => void;
}

/** The context of this process when it is a worker started by the primary; undefined otherwise. */
export function workerContext(): WorkerContext | undefined {
  const slotText = process.env[WORKER_SLOT_ENV];
  if (!cluster.isWorker || slotText === undefined) return undefined;
  const slot = Number(slotText);
  const count = Number(process.env[WORKER_COUNT_ENV] ?? '1');
  const send = (message: WorkerMessage): void => {
    if (process.connected) process.send?.(message);
  };
  const shutdownListeners: (() => void)[] = [];
  // A stop that arrives while the server is starting is kept for the listener registered once it started.
  let shutdownRequested = false;
  const answers = new Map<number, (reply: { text?: string; error?: string }) => void>();
  let local: Registry | undefined;
  let requests = 0;
  let setVerbosity: ((level: number) => void) | undefined;
  process.on('message', (message: unknown) => {
    if (!isPrimaryMessage(message)) return;
    switch (message.kapi) {
      case 'shutdown':
        shutdownRequested = true;
        for (const stop of shutdownListeners) stop();
        return;
      case 'metrics-collect':
        void local?.getMetricsAsJSON().then((metrics) => send({ kapi: 'metrics-snapshot', id: message.id, metrics: metrics as MetricsSnapshot }));
        return;
      case 'metrics':
        answers.get(message.id)?.(message);
        return;
      case 'verbosity':
        setVerbosity?.(message.level);
        return;
    }
  });
  const merged = (timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const id = requests++;
      const timer = setTimeout(() => {
        answers.delete(id);
        reject(new Error('the primary did not answer with the merged metrics'));
      }, timeoutMs);
      answers.set(id, (reply) => {
        clearTimeout(timer);
        answers.delete(id);
        if (reply.text !== undefined) resolve(reply.text);
        else reject(new Error(reply.error ?? 'no metrics'));
      });
      send({ kapi: 'metrics-request', id });
    });
  return {
    slot,
    count,
    ready: () => send({ kapi: 'ready' }),
    onShutdown: (stop) => {
      shutdownListeners.push(stop);
      if (shutdownRequested) stop();
    },
    servedMetrics(registry, timeoutMs = 5000) {
      local = registry;
      const served = new Registry();
      served.metrics = () => merged(timeoutMs);
      return served;
    },
    shareVerbosity(set) {
      setVerbosity = set;
      const inherited = process.env[WORKER_VERBOSITY_ENV];
      if (inherited !== undefined && /^[0-9]+$/.test(inherited)) set(Number(inherited));
      return (level) => {
        set(level);
        send({ kapi: 'verbosity', level });
      };
    },
  };
}

/** A worker's share of a server-wide limit (0 = none stays none). */
export function shareOfLimit(limit: number, workers: number): number {
  return limit === 0 ? 0 : Math.ceil(limit / workers);
}

/**
 * The primary of a server of several workers (--workers=N > 1): it serves no request itself.
 * It forks N workers (this same program, same flags), each a full replica — own etcd client,
 * watch caches, controllers behind the shared leader Lease — listening on the same ports:
 * Node's cluster module holds the sockets here and hands each new connection to the next
 * worker in turn. It replaces a worker that dies (a worker that dies before it ever served
 * ends the whole server: a bad flag or a taken port would only die again), forwards SIGTERM
 * and SIGINT as a graceful stop to every worker and exits once all have (a second signal kills
 * them at once), answers the workers' requests for the merged /metrics (metrics.ts), and passes
 * a log verbosity set through one worker's PUT /debug/flags/v on to the others and to every
 * worker it starts later, so the server has one verbosity as kube-apiserver does.
 */
import cluster, { type Worker } from 'node:cluster';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../logger.js';
import { mergeSnapshots, RetiredMetrics, type MetricsSnapshot } from './metrics.js';
import { isWorkerMessage, WORKER_COUNT_ENV, WORKER_SLOT_ENV, WORKER_VERBOSITY_ENV, type PrimaryMessage } from './protocol.js';

export interface PrimaryOptions {
  readonly workers: number;
  readonly logger: Logger;
  /** How long a collection waits for a worker's metrics before leaving it out; default 3000. */
  readonly collectTimeoutMs?: number;
}

interface Slot {
  worker: Worker;
  /** It reported ready (its server was started) at least once since it was forked. */
  ready: boolean;
  startedAt: number;
  /** Restarts that followed quickly one after another (for the backoff). */
  quickRestarts: number;
  /** The last metrics it sent, kept for RetiredMetrics when it dies. */
  lastMetrics?: MetricsSnapshot;
}

/** Runs the primary until every worker has exited; then exits the process (0 after a graceful stop). */
export function runPrimary(options: PrimaryOptions): void {
  const { logger, workers: count } = options;
  const collectTimeoutMs = options.collectTimeoutMs ?? 3000;
  const slots: Slot[] = [];
  const retired = new RetiredMetrics();
  const own = new Registry();
  collectDefaultMetrics({ register: own });
  let stopping = false;
  let exitCode = 0;
  let collections = 0;
  /** The verbosity last set through PUT /debug/flags/v; none yet: the flags'. */
  let verbosity: number | undefined;
  const pending = new Map<number, { responses: MetricsSnapshot[]; waiting: Set<Worker>; done: () => void }>();

  const fork = (index: number, quickRestarts: number): void => {
    const worker = cluster.fork({
      [WORKER_SLOT_ENV]: String(index),
      [WORKER_COUNT_ENV]: String(count),
      ...(verbosity !== undefined ? { [WORKER_VERBOSITY_ENV]: String(verbosity) } : {}),
    });
    const slot: Slot = { worker, ready: false, startedAt: Date.now(), quickRestarts };
    slots[index] = slot;
    worker.on('message', (message: unknown) => onMessage(slot, message));
    worker.on('exit', (code, signal) => onExit(index, slot, code, signal));
  };

  const send = (worker: Worker, message: PrimaryMessage): void => {
    if (worker.isConnected()) worker.send(message);
  };

  const onMessage = (slot: Slot, message: unknown): void => {
    if (!isWorkerMessage(message)) return;
    switch (message.kapi) {
      case 'ready':
        slot.ready = true;
        if (slots.every((s) => s.ready)) logger.info(`all ${count} workers serving`);
        return;
      case 'metrics-request':
        void collect().then(
          (text) => send(slot.worker, { kapi: 'metrics', id: message.id, text }),
          (err: unknown) => send(slot.worker, { kapi: 'metrics', id: message.id, error: err instanceof Error ? err.message : String(err) }),
        );
        return;
      case 'metrics-snapshot': {
        slot.lastMetrics = message.metrics;
        const collection = pending.get(message.id);
        if (collection === undefined || !collection.waiting.delete(slot.worker)) return;
        collection.responses.push(message.metrics);
        if (collection.waiting.size === 0) collection.done();
        return;
      }
      case 'verbosity':
        verbosity = message.level;
        for (const other of slots) if (other !== slot) send(other.worker, { kapi: 'verbosity', level: message.level });
        return;
    }
  };

  /** Every live worker's snapshot, the retired totals and the primary's own process metrics, merged. */
  const collect = async (): Promise<string> => {
    const id = collections++;
    const responses: MetricsSnapshot[] = [];
    const waiting = new Set(slots.map((s) => s.worker).filter((w) => w.isConnected()));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, collectTimeoutMs);
      function finish(): void {
        clearTimeout(timer);
        pending.delete(id);
        resolve();
      }
      pending.set(id, { responses, waiting, done: finish });
      for (const worker of waiting) send(worker, { kapi: 'metrics-collect', id });
      if (waiting.size === 0) finish();
    });
    const mine = (await own.getMetricsAsJSON()) as MetricsSnapshot;
    return mergeSnapshots([...responses, retired.snapshot, mine]).metrics();
  };

  const onExit = (index: number, slot: Slot, code: number | null, signal: string | null): void => {
    if (slots[index] !== slot) return;
    if (slot.lastMetrics !== undefined) void retired.retire(slot.lastMetrics);
    for (const collection of pending.values()) {
      if (collection.waiting.delete(slot.worker) && collection.waiting.size === 0) collection.done();
    }
    if (code !== 0) exitCode = 1;
    if (stopping) {
      if (slots.every((s) => s.worker.isDead())) process.exit(exitCode);
      return;
    }
    const how = signal !== null ? `signal ${signal}` : `code ${String(code)}`;
    if (!slot.ready) {
      logger.error(`worker ${index} exited (${how}) before it served; stopping the server`);
      exitCode = 1;
      stopAll();
      return;
    }
    // A worker that keeps dying soon after its start is restarted ever more slowly (1 s … 30 s).
    const quick = Date.now() - slot.startedAt < 30_000 ? slot.quickRestarts + 1 : 0;
    const delayMs = quick === 0 ? 0 : Math.min(1000 * 2 ** (quick - 1), 30_000);
    logger.warn(`worker ${index} exited (${how}); starting a new one${delayMs > 0 ? ` in ${delayMs}ms` : ''}`);
    setTimeout(() => {
      if (!stopping) fork(index, quick);
    }, delayMs);
  };

  /** Every worker stops gracefully (the exit follows the last one's). */
  const stopAll = (): void => {
    stopping = true;
    for (const slot of slots) send(slot.worker, { kapi: 'shutdown' });
    if (slots.every((s) => s.worker.isDead())) process.exit(exitCode);
  };
  const onSignal = (signal: string): void => {
    if (stopping) {
      logger.info(`Received ${signal} again, exiting immediately`);
      for (const slot of slots) slot.worker.process.kill('SIGKILL');
      process.exit(1);
    }
    logger.info(`Received ${signal}, shutting down ${count} workers`);
    stopAll();
  };

  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  logger.info(`starting ${count} workers`);
  for (let i = 0; i < count; i++) fork(i, 0);
}

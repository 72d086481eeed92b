/**
 * The `/readyz` probe loop: a worker thread (so that the fuzzer's own work cannot delay it)
 * that asks `/readyz` every `intervalMs` on a fresh connection and records each answer that
 * took longer than `limitMs`, was not `200 ok`, or never came.
 */
import { Worker } from 'node:worker_threads';

export interface SlowProbe {
  /** When the probe was sent (ms since the epoch). */
  readonly at: number;
  readonly ms: number;
  readonly status: number;
  readonly error?: string;
}

export interface ProbeReport {
  readonly probes: number;
  readonly maxMs: number;
  readonly p99Ms: number;
  /** Probes slower than the limit, failed or unanswered. */
  readonly slow: readonly SlowProbe[];
}

export interface ReadyzProbe {
  /** The probes so far (the loop keeps running). */
  report(): Promise<ProbeReport>;
  stop(): Promise<ProbeReport>;
}

/** A probe slower than this (ms) is recorded. */
export const READYZ_LIMIT_MS = 1000;

export function startReadyzProbe(url: string, options: { intervalMs?: number; limitMs?: number } = {}): ReadyzProbe {
  const worker = new Worker(new URL('./readyz-probe-worker.js', import.meta.url), {
    workerData: { url: `${url}/readyz`, intervalMs: options.intervalMs ?? 100, limitMs: options.limitMs ?? READYZ_LIMIT_MS },
  });
  let pending: ((r: ProbeReport) => void)[] = [];
  worker.on('message', (r: ProbeReport) => {
    const waiters = pending;
    pending = [];
    for (const w of waiters) w(r);
  });
  const ask = (command: 'report' | 'stop') =>
    new Promise<ProbeReport>((resolve) => {
      pending.push(resolve);
      worker.postMessage(command);
    });
  return {
    report: () => ask('report'),
    async stop() {
      const r = await ask('stop');
      await worker.terminate();
      return r;
    },
  };
}
